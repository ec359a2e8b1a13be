/*
 * RDB all-reduce: recursive doubling on the whole vector.
 *
 * After the fold (allreduce_fold.c) the p2 ranks left, numbered v, run
 * log2(p2) steps: in step k, v and v XOR 2^k swap everything they hold and
 * each combines what it receives with its own, the lower partner's on the
 * left, so that both compute the same combination of the same two runs of
 * ranks, bit for bit, and in rank order (a non-commutative op is fine).
 * Then the folded ranks get the result.
 *
 * Cost (vector of n bytes; P a power of two):
 *   log2(P) * (alpha + n*beta + n*gamma)
 * otherwise the fold's two steps more:  + 2*(alpha + n*beta) + n*gamma
 */
#include "algorithms/allreduce.h"

int pat_allreduce_rdb(pat_sched *s, const pat_build_args *a) {
  const int P = a->P, p2 = pat_allreduce_pow2(P);
  int step;
  if (pat_allreduce_fold(s, P, 0, &step)) return PAT_ENOMEM;
  pat_span all = pat_blocks(P, 0, P);
  for (int mask = 1; mask < p2; mask *= 2, step++)
    for (int v = 0; v < p2; v++) {
      int w = v ^ mask, from = pat_allreduce_rank_of(P, p2, w), to = pat_allreduce_rank_of(P, p2, v);
      if (!pat_sched_keeps(s, from) && !pat_sched_keeps(s, to)) continue;
      if (pat_sched_reduce(s, step, from, to, 1, &all, w > v)) return PAT_ENOMEM;
    }
  return pat_allreduce_unfold(s, P, step);
}
