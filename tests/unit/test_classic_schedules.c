/* Every classic algorithm yields a valid schedule for P = 1..64, and the
 * per-rank builds are exactly the slices of the all-ranks build. */
#include <stdio.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "testutil.h"

static int same_ops(const pat_op *a, const pat_op *b, size_t n) { return n == 0 || memcmp(a, b, n * sizeof *a) == 0; }

int main(void) {
  const int algs[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC, PAT_ALG_DIRECT};
  int checked = 0;
  for (size_t ai = 0; ai < sizeof algs / sizeof algs[0]; ai++) {
    int alg = algs[ai];
    for (int P = 1; P <= 64; P++) {
      for (int root = 0; root < P; root += (alg == PAT_ALG_LNBC ? 5 : P)) {
        pat_build_args args = {P, PAT_ALL_RANKS, NULL, 1000, root, 0, 0, NULL, NULL, NULL};
        pat_sched all;
        CHECK(pat_build(alg, &all, &args) == PAT_OK, "%s P=%d: build failed", pat_algorithms[alg].name, P);
        char err[256];
        unsigned rules = PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND;
        CHECK(pat_sched_check(&all, rules, err, sizeof err) == 0, "%s P=%d root=%d: %s", pat_algorithms[alg].name, P,
              root, err);
        /* a per-rank build is the same as that rank's slice of the whole */
        for (int r = 0; r < P; r++) {
          pat_sched one;
          args.self = r;
          CHECK(pat_build(alg, &one, &args) == PAT_OK, "build self=%d", r);
          size_t n1, n2;
          const pat_op *o1 = pat_sched_rank_ops(&one, r, &n1), *o2 = pat_sched_rank_ops(&all, r, &n2);
          CHECK(n1 == n2 && same_ops(o1, o2, n1), "%s P=%d rank %d: per-rank build differs", pat_algorithms[alg].name,
                P, r);
          pat_sched_free(&one);
        }
        args.self = PAT_ALL_RANKS;
        pat_sched_free(&all);
        checked++;
      }
    }
  }
  /* step counts the cost formulas promise */
  struct { int alg, P, steps; } expect[] = {
      {PAT_ALG_RING, 8, 7}, {PAT_ALG_NEX, 8, 4}, {PAT_ALG_NEX, 7, 6}, {PAT_ALG_RDB, 8, 3},
      {PAT_ALG_RDB, 6, 4},  {PAT_ALG_BRUCK, 8, 3}, {PAT_ALG_BRUCK, 5, 3}, {PAT_ALG_LNBC, 8, 4},
      {PAT_ALG_DIRECT, 9, 1}, {PAT_ALG_DIRECT, 10, 2}, {PAT_ALG_DIRECT, 64, 8},
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    pat_build_args args = {expect[i].P, PAT_ALL_RANKS, NULL, 1000, 0, 0, 0, NULL, NULL, NULL};
    pat_sched s;
    CHECK(pat_build(expect[i].alg, &s, &args) == PAT_OK, "build");
    CHECK(s.nsteps == expect[i].steps, "%s P=%d: %d steps, expected %d", pat_algorithms[expect[i].alg].name,
          expect[i].P, s.nsteps, expect[i].steps);
    pat_sched_free(&s);
  }
  printf("%d classic schedules valid\n", checked);
  return TEST_RESULT();
}
