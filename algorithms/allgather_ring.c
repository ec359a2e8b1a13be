/*
 * RING: parallel ring all-gather.
 *
 * In step t (0 <= t < P-1) rank r sends block (r - t) mod P to rank r+1 and
 * receives block (r - 1 - t) mod P from rank r-1: it forwards what it received
 * in the previous step.  Every link carries one block per step.
 *
 * Cost (Hockney, block of m bytes):  (P - 1) * (alpha + beta * m)
 */
#include "algorithms/algorithms.h"

int pat_allgather_ring(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  for (int t = 0; t < P - 1; t++)
    for (int r = lo; r < hi; r++) {
      int right = (r + 1) % P, left = (r - 1 + P) % P;
      pat_span out = pat_blocks(P, r - t, 1), in = pat_blocks(P, r - 1 - t, 1);
      if (pat_sched_add(s, r, t, PAT_OP_SEND, right, 1, &out, 0) ||
          pat_sched_add(s, r, t, PAT_OP_RECV, left, 1, &in, 0))
        return PAT_ENOMEM;
    }
  return PAT_OK;
}
