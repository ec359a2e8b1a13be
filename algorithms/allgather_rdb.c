/*
 * RDB: recursive doubling, for any P.
 *
 * Let p2 be the largest power of two <= P and x = P - p2.  If x > 0, ranks
 * p2..P-1 first hand their block to rank r - p2.  Then the p2 low ranks run
 * log2(p2) exchange steps: in step k rank v swaps everything it holds with
 * v XOR 2^k (its own group of 2^k ranks, plus their extra partners' blocks).
 * Finally each extra rank receives every block it lacks from r - p2.
 *
 * Cost (P a power of two):  log2(P) * alpha + (P - 1) * beta * m
 * otherwise two more steps:  + 2*alpha + beta*m + (P - 1) * beta * m
 */
#include "algorithms/algorithms.h"

/* Spans held by low rank v after k doubling steps: its group of 2^k low
 * ranks, and the blocks of those ranks' extra partners. */
static int rdb_group_spans(int P, int p2, int v, int k, pat_span *sp) {
  int size = 1 << k, base = (v >> k) << k, extra = P - p2, n = 0;
  sp[n++] = pat_blocks(P, base, size);
  int ext = (extra < base + size ? extra : base + size) - base;
  if (ext > 0) sp[n++] = pat_blocks(P, p2 + base, ext);
  return n;
}

int pat_allgather_rdb(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  int p2 = 1, logp2 = 0;
  while (2 * p2 <= P) {
    p2 *= 2;
    logp2++;
  }
  const int extra = P - p2, pre = extra > 0;
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  for (int r = lo; r < hi; r++) {
    if (r >= p2) {
      pat_span own = pat_blocks(P, r, 1), rest = pat_blocks(P, r + 1, P - 1);
      if (pat_sched_add(s, r, 0, PAT_OP_SEND, r - p2, 1, &own, 0) ||
          pat_sched_add(s, r, pre + logp2, PAT_OP_RECV, r - p2, 1, &rest, 0))
        return PAT_ENOMEM;
      continue;
    }
    if (r < extra) {
      pat_span in = pat_blocks(P, r + p2, 1), rest = pat_blocks(P, r + p2 + 1, P - 1);
      if (pat_sched_add(s, r, 0, PAT_OP_RECV, r + p2, 1, &in, 0) ||
          pat_sched_add(s, r, pre + logp2, PAT_OP_SEND, r + p2, 1, &rest, 0))
        return PAT_ENOMEM;
    }
    for (int k = 0; k < logp2; k++) {
      int peer = r ^ (1 << k);
      pat_span out[2], in[2];
      int nout = rdb_group_spans(P, p2, r, k, out), nin = rdb_group_spans(P, p2, peer, k, in);
      if (pat_sched_add(s, r, pre + k, PAT_OP_SEND, peer, nout, out, 0) ||
          pat_sched_add(s, r, pre + k, PAT_OP_RECV, peer, nin, in, 0))
        return PAT_ENOMEM;
    }
  }
  return PAT_OK;
}
