/*
 * NEX: neighbour exchange (Chen et al., 2005), as Open MPI uses for even P.
 *
 * Step 0: ranks 2k and 2k+1 swap their blocks, so each pair holds two
 * consecutive blocks.  In each later step i (1 <= i < P/2) a rank trades with
 * its other neighbour, alternately left and right, and passes on the pair of
 * blocks it received in step i-1.  Half the steps of RING, twice the message.
 * Odd P falls back to RING.
 *
 * Cost (even P):  (alpha + beta*m) + (P/2 - 1) * (alpha + 2*beta*m)
 */
#include "algorithms/algorithms.h"

/* First block of the pair rank r receives in step i >= 1 (i = 0 gives the
 * pair it completes in step 0). */
static int nex_recv_pair(int r, int i) {
  int even = r - (r % 2); /* the even rank of r's step-0 pair */
  if (i == 0) return even;
  int away = i % 2 ? i + 1 : -i; /* odd steps look one way, even steps the other */
  return r % 2 ? even + away : even - away; /* pat_blocks wraps modulo P */
}

int pat_allgather_nex(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  if (P % 2) return pat_allgather_ring(s, a);
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  for (int r = lo; r < hi; r++) {
    int partner = r % 2 ? r - 1 : r + 1;
    pat_span own = pat_blocks(P, r, 1), theirs = pat_blocks(P, partner, 1);
    if (pat_sched_add(s, r, 0, PAT_OP_SEND, partner, 1, &own, 0) ||
        pat_sched_add(s, r, 0, PAT_OP_RECV, partner, 1, &theirs, 0))
      return PAT_ENOMEM;
    for (int i = 1; i < P / 2; i++) {
      /* even ranks go left on odd steps, odd ranks go right */
      int left = (i % 2 == 1) == (r % 2 == 0);
      int peer = left ? (r - 1 + P) % P : (r + 1) % P;
      pat_span out = pat_blocks(P, nex_recv_pair(r, i - 1), 2);
      pat_span in = pat_blocks(P, nex_recv_pair(r, i), 2);
      if (pat_sched_add(s, r, i, PAT_OP_SEND, peer, 1, &out, 0) ||
          pat_sched_add(s, r, i, PAT_OP_RECV, peer, 1, &in, 0))
        return PAT_ENOMEM;
    }
  }
  return PAT_OK;
}
