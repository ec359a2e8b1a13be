/*
 * LNBC: linear gather to the root, then a binomial broadcast.
 *
 * Step 0: every rank sends its block to the root, which receives them all at
 * once (its one receive port serialises them).  Then the root broadcasts, in
 * a binomial tree, what each rank lacks.
 *
 * Cost:  (P - 1) * (alpha + beta * m)  +  ceil(log2 P) * (alpha + beta * (P - 1) * m)
 */
#include "algorithms/algorithms.h"

int pat_allgather_lnbc(pat_sched *s, const pat_build_args *a) {
  const int P = a->P, root = a->root;
  if (root < 0 || root >= P) return PAT_EINVAL;
  s->flags |= PAT_SCHED_MULTI_RECV;
  for (int r = 0; r < P; r++) {
    if (r == root || (!pat_sched_keeps(s, r) && !pat_sched_keeps(s, root))) continue;
    pat_span own = pat_blocks(P, r, 1);
    if (pat_sched_transfer(s, 0, r, root, 1, &own, 0)) return PAT_ENOMEM;
  }
  int next;
  return pat_bcast_binomial_rest(s, P, root, 1, &next);
}
