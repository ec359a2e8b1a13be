/*
 * The fold of a P that is not a power of two, shared by the recursive
 * all-reduces (RDB, Rabenseifner): x = P - p2 ranks step out before the
 * power-of-two part and get the result after it.
 *
 * Why pairs (2i, 2i + 1) and not rank r with r - p2: the pair's
 * contributions are adjacent, so the rank that stays holds a run of
 * consecutive ranks, and every later combination joins adjacent runs: the
 * order a non-commutative op needs (r with r - p2 would join ranks 0 and p2).
 *
 * Cost: one step before and one after, alpha + n*beta each (n the vector's
 * bytes), and n*gamma for the fold's combination.
 */
#include "algorithms/allreduce.h"

int pat_allreduce_pow2(int P) {
  int p2 = 1;
  while (2 * p2 <= P) p2 *= 2;
  return p2;
}

int pat_allreduce_fold(pat_sched *s, int P, int step, int *next) {
  const int x = P - pat_allreduce_pow2(P);
  *next = step + (x > 0);
  pat_span all = pat_blocks(P, 0, P);
  for (int i = 0; i < x; i++) {
    if (!pat_sched_keeps(s, 2 * i) && !pat_sched_keeps(s, 2 * i + 1)) continue;
    if (pat_sched_reduce(s, step, 2 * i, 2 * i + 1, 1, &all, 0)) return PAT_ENOMEM;
  }
  return PAT_OK;
}

int pat_allreduce_unfold(pat_sched *s, int P, int step) {
  const int x = P - pat_allreduce_pow2(P);
  pat_span all = pat_blocks(P, 0, P);
  for (int i = 0; i < x; i++) {
    if (!pat_sched_keeps(s, 2 * i) && !pat_sched_keeps(s, 2 * i + 1)) continue;
    if (pat_sched_transfer(s, step, 2 * i + 1, 2 * i, 1, &all, 0)) return PAT_ENOMEM;
  }
  return PAT_OK;
}
