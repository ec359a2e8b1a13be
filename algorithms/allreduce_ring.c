/*
 * RING all-reduce: a ring reduce-scatter, then a ring all-gather.
 *
 * Reduce-scatter, steps t = 0 .. P-2: rank r sends its partial segment
 * (r - t) mod P to rank r + 1, which combines it with its own; segment s
 * thus travels s, s+1, ... and is complete at rank s - 1.  All-gather,
 * steps P-1+t: rank r sends segment (r + 1 - t) mod P, complete, to r + 1,
 * which keeps it.  Every rank gets the one rank's result of each segment,
 * so all hold the same bits.
 *
 * A segment's contributions wrap past rank P-1 (s, ..., P-1, 0, ..., s-1):
 * the op must be commutative.
 *
 * Cost (vector of n bytes):
 *   2*(P-1)*alpha + 2*(P-1)/P * n*beta + (P-1)/P * n*gamma
 */
#include "algorithms/allreduce.h"

int pat_allreduce_ring(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  for (int t = 0; t < P - 1; t++)
    for (int r = lo; r < hi; r++) {
      int right = (r + 1) % P, left = (r - 1 + P) % P;
      pat_span out = pat_blocks(P, r - t, 1), in = pat_blocks(P, left - t, 1);
      if (pat_sched_add(s, r, t, PAT_OP_SEND, right, 1, &out, 0) ||
          pat_sched_add(s, r, t, PAT_OP_RECV, left, 1, &in, PAT_OPF_REDUCE))
        return PAT_ENOMEM;
    }
  for (int t = 0; t < P - 1; t++)
    for (int r = lo; r < hi; r++) {
      int right = (r + 1) % P, left = (r - 1 + P) % P;
      pat_span out = pat_blocks(P, r + 1 - t, 1), in = pat_blocks(P, r - t, 1);
      if (pat_sched_add(s, r, P - 1 + t, PAT_OP_SEND, right, 1, &out, 0) ||
          pat_sched_add(s, r, P - 1 + t, PAT_OP_RECV, left, 1, &in, 0))
        return PAT_ENOMEM;
    }
  return PAT_OK;
}
