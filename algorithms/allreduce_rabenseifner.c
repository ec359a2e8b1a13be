/*
 * RABENSEIFNER all-reduce: a reduce-scatter by recursive halving, then an
 * all-gather by recursive doubling (Rabenseifner 2004; Thakur, Rabenseifner
 * and Gropp 2005).
 *
 * After the fold (allreduce_fold.c) the p2 ranks left, numbered v, hold the
 * whole vector, P segments.  In step k = 0 .. log2(p2)-1, v and v XOR 2^k
 * hold the same run of segments; it is halved, the lower half going to the
 * partner with bit k clear: each sends the other's half and combines the
 * half it keeps.  The distance doubles, so each kept half holds an aligned
 * group of v, a run of consecutive ranks, and the lower partner's goes on
 * the left: rank order holds (a non-commutative op is fine).  Then the
 * steps in reverse: partners swap their complete runs and keep them, and
 * the folded ranks get the result.  Each segment's result is combined at one
 * rank and copied to the others, so all hold the same bits.
 *
 * Segments are whole (the halves of an odd run differ by one segment);
 * P >= p2 keeps every run at least one segment.
 *
 * Cost (vector of n bytes; P a power of two):
 *   2*log2(P)*alpha + 2*(P-1)/P * n*beta + (P-1)/P * n*gamma
 * otherwise the fold's two steps more:  + 2*(alpha + n*beta) + n*gamma
 */
#include "algorithms/allreduce.h"

/* The run of segments v holds after `level` halvings of [0, P). */
static pat_span run_at(int P, int v, int level) {
  int lo = 0, cnt = P;
  for (int k = 0; k < level; k++) {
    int half = cnt / 2;
    if ((v >> k) & 1) {
      lo += half;
      cnt -= half;
    } else {
      cnt = half;
    }
  }
  return pat_blocks(P, lo, cnt);
}

int pat_allreduce_rabenseifner(pat_sched *s, const pat_build_args *a) {
  const int P = a->P, p2 = pat_allreduce_pow2(P);
  int levels = 0, step;
  while ((1 << levels) < p2) levels++;
  if (pat_allreduce_fold(s, P, 0, &step)) return PAT_ENOMEM;
  for (int k = 0; k < levels; k++, step++)
    for (int v = 0; v < p2; v++) {
      int w = v ^ (1 << k), from = pat_allreduce_rank_of(P, p2, w), to = pat_allreduce_rank_of(P, p2, v);
      if (!pat_sched_keeps(s, from) && !pat_sched_keeps(s, to)) continue;
      pat_span kept = run_at(P, v, k + 1);
      if (pat_sched_reduce(s, step, from, to, 1, &kept, w > v)) return PAT_ENOMEM;
    }
  for (int k = levels - 1; k >= 0; k--, step++)
    for (int v = 0; v < p2; v++) {
      int w = v ^ (1 << k), from = pat_allreduce_rank_of(P, p2, w), to = pat_allreduce_rank_of(P, p2, v);
      if (!pat_sched_keeps(s, from) && !pat_sched_keeps(s, to)) continue;
      pat_span theirs = run_at(P, w, k + 1);
      if (pat_sched_transfer(s, step, from, to, 1, &theirs, 0)) return PAT_ENOMEM;
    }
  return pat_allreduce_unfold(s, P, step);
}
