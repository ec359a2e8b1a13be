/*
 * BRUCK: Bruck's dissemination all-gather (Bruck et al., 1997), any P.
 *
 * In step k (distance d = 2^k) rank r holds blocks r .. r+d-1 (mod P); it
 * sends min(d, P-d) of them, starting at r, to rank r-d and receives as many,
 * starting at r+d, from rank r+d.  Blocks are addressed in the result
 * directly, so no final rotation is needed.
 *
 * Cost:  ceil(log2 P) * alpha + (P - 1) * beta * m
 */
#include "algorithms/algorithms.h"

int pat_allgather_bruck(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  for (int k = 0, d = 1; d < P; k++, d *= 2) {
    int count = d < P - d ? d : P - d;
    for (int r = lo; r < hi; r++) {
      pat_span out = pat_blocks(P, r, count), in = pat_blocks(P, r + d, count);
      if (pat_sched_add(s, r, k, PAT_OP_SEND, (r - d + P) % P, 1, &out, 0) ||
          pat_sched_add(s, r, k, PAT_OP_RECV, (r + d) % P, 1, &in, 0))
        return PAT_ENOMEM;
    }
  }
  return PAT_OK;
}
