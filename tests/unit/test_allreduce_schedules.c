/* The all-reduce schedules: each algorithm's schedule of every rank at
 * P = 1..17 (powers of two, one either side of them, and the folds between)
 * proves every rank ends with every contribution exactly once in every byte,
 * in rank order where the registry says the algorithm keeps it (and the
 * checker refuses the order of those that do not, from P = 2 on); each
 * rank's own build is exactly its slice of the whole; the step counts are
 * the cost formulas'. */
#include <string.h>

#include "algorithms/allreduce.h"
#include "testutil.h"

static int log2_floor(int P) {
  int k = 0;
  while ((2 << k) <= P) k++;
  return k;
}

/* Each rank's build is its slice of the all-ranks build. */
static int slices_match(int id, int P, const pat_sched *all) {
  for (int r = 0; r < P; r++) {
    pat_build_args a = {.P = P, .self = r};
    pat_sched one;
    if (pat_build_allreduce(id, &one, &a)) return 0;
    size_t n1, n2;
    const pat_op *o1 = pat_sched_rank_ops(&one, r, &n1), *o2 = pat_sched_rank_ops(all, r, &n2);
    int same = n1 == n2 && (n1 == 0 || memcmp(o1, o2, n1 * sizeof *o1) == 0) && one.flags == all->flags &&
               one.alg == all->alg;
    pat_sched_free(&one);
    if (!same) return 0;
  }
  return 1;
}

static int expected_steps(int id, int P) {
  int L = log2_floor(P), fold = (P & (P - 1)) ? 2 : 0;
  if (P == 1) return 0;
  switch (id) {
  case PAT_ARED_RDB: return L + fold;
  case PAT_ARED_RING: return 2 * (P - 1);
  default: return 2 * L + fold;
  }
}

int main(void) {
  char err[256];
  CHECK(pat_allreduce_by_name("RDB") == PAT_ARED_RDB && pat_allreduce_by_name("ring") == PAT_ARED_RING &&
            pat_allreduce_by_name("rabenseifner") == PAT_ARED_RABENSEIFNER &&
            pat_allreduce_by_name("relay") == PAT_ALG_UNKNOWN,
        "names");
  for (int id = 0; id < PAT_ARED_COUNT; id++) {
    const pat_allreduce_info *info = &pat_allreduce_algorithms[id];
    int ordered = (info->flags & PAT_AREDF_ORDERED) != 0;
    for (int P = 1; P <= 17; P++) {
      pat_build_args a = {.P = P, .self = PAT_ALL_RANKS};
      pat_sched s;
      int rc = pat_build_allreduce(id, &s, &a);
      CHECK(rc == PAT_OK, "%s P=%d: build failed (%d)", info->name, P, rc);
      if (rc) continue;
      CHECK(s.flags & PAT_SCHED_REDUCE, "%s P=%d: not marked a reduction", info->name, P);
      CHECK(s.alg == PAT_ARED_ALG_BASE + id, "%s P=%d: alg %d", info->name, P, s.alg);
      CHECK(s.send_window == 0, "%s P=%d: not lockstep", info->name, P);
      CHECK(pat_sched_check(&s, PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND, err, sizeof err) == 0,
            "%s P=%d commutative: %s", info->name, P, err);
      int in_order = pat_sched_check(&s, PAT_CHECK_RANK_ORDER, err, sizeof err) == 0;
      if (ordered)
        CHECK(in_order, "%s P=%d non-commutative: %s", info->name, P, err);
      else if (P > 1)
        CHECK(!in_order && strstr(err, "rank order"), "%s P=%d: passes as ordered (%s)", info->name, P, err);
      CHECK(s.nsteps == expected_steps(id, P), "%s P=%d: %d steps, expected %d", info->name, P, s.nsteps,
            expected_steps(id, P));
      CHECK(slices_match(id, P, &s), "%s P=%d: a rank's own build differs from its slice", info->name, P);
      pat_sched_free(&s);
    }
  }
  pat_build_args bad = {.P = 4, .self = 4};
  pat_sched s;
  CHECK(pat_build_allreduce(PAT_ARED_RDB, &s, &bad) == PAT_EINVAL, "self out of range accepted");
  CHECK(pat_build_allreduce(PAT_ARED_COUNT, &s, &(pat_build_args){.P = 4, .self = PAT_ALL_RANKS}) == PAT_EINVAL,
        "unknown id accepted");
  return TEST_RESULT();
}
