/* Shared checks of the arrival-aware schedule tests: a schedule of every rank
 * is valid, and every per-rank build is exactly that rank's slice of it. */
#ifndef PAT_SCHEDTEST_H
#define PAT_SCHEDTEST_H
#include <stdio.h>
#include <string.h>

#include "algorithms/algorithms.h"

/* Build alg for every rank into *all (finalized) and check it with `rules`;
 * then build for ranks alone and compare with their slices: every rank if
 * `slices` is 1, else the ranks r0 and r1 (-1: none).  Returns 0 when all is
 * well, else 1 with a message in err. */
static inline int sched_build_checked2(int alg, pat_build_args args, unsigned rules, int slices, int r0, int r1,
                                pat_sched *all, char *err, size_t errlen) {
  args.self = PAT_ALL_RANKS;
  int rc = pat_build(alg, all, &args);
  if (rc) {
    snprintf(err, errlen, "build failed (%d)", rc);
    return 1;
  }
  if (pat_sched_check(all, rules, err, errlen)) return 1;
  for (int r = 0; r < args.P; r++) {
    if (!slices && r != r0 && r != r1) continue;
    pat_sched one;
    args.self = r;
    if ((rc = pat_build(alg, &one, &args))) {
      snprintf(err, errlen, "build for rank %d failed (%d)", r, rc);
      return 1;
    }
    size_t n1, n2;
    const pat_op *o1 = pat_sched_rank_ops(&one, r, &n1), *o2 = pat_sched_rank_ops(all, r, &n2);
    int same = n1 == n2 && (n1 == 0 || memcmp(o1, o2, n1 * sizeof *o1) == 0) && one.flags == all->flags;
    pat_sched_free(&one);
    if (!same) {
      snprintf(err, errlen, "rank %d: per-rank build differs from the all-ranks slice (%zu vs %zu ops)", r, n1, n2);
      return 1;
    }
  }
  return 0;
}

static inline int sched_build_checked(int alg, pat_build_args args, unsigned rules, int slices, pat_sched *all, char *err,
                               size_t errlen) {
  return sched_build_checked2(alg, args, rules, slices, -1, -1, all, err, errlen);
}
#endif
