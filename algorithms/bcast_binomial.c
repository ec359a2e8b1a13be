/*
 * Binomial broadcast of "everything the receiver lacks" (all blocks but its
 * own), used after a gather by the rooted algorithms (LNBC, BSLB).
 *
 * In round j (j = 0 .. ceil(log2 P)-1) each rank whose rank relative to the
 * root is v < 2^j sends to relative rank v + 2^j, if it exists.
 *
 * Cost:  ceil(log2 P) * (alpha + beta * (P - 1) * m)
 */
#include "algorithms/algorithms.h"

int pat_bcast_binomial_rest(pat_sched *s, int P, int root, int first_step, int *next_step) {
  int step = first_step;
  for (int d = 1; d < P; d *= 2, step++)
    for (int v = 0; v < d && v + d < P; v++) {
      int from = (v + root) % P, to = (v + d + root) % P;
      if (!pat_sched_keeps(s, from) && !pat_sched_keeps(s, to)) continue;
      pat_span rest = pat_blocks(P, to + 1, P - 1);
      if (pat_sched_transfer(s, step, from, to, 1, &rest, 0)) return PAT_ENOMEM;
    }
  *next_step = step;
  return PAT_OK;
}
