/* The stage the planner lends a call that runs without a plan
 * (pat_planner_stage, src/runtime/plan.h): the plan's own memory, kept from
 * call to call, unless a plan holds it; returned to the system after the
 * call only beyond PAT_STAGE_KEEP (64 MiB). */
#include <string.h>

#include "runtime/plan.h"
#include "testutil.h"

int main(void) {
  pat_planner pl;
  CHECK(pat_planner_init(&pl, 4) == MPI_SUCCESS, "planner init");

  /* no plan: the plan's stage, the same memory call after call */
  char *a = pat_planner_stage(&pl, 1 << 20);
  CHECK(a != NULL && a == pl.plan.stage.mem, "without a plan the call packs on the plan's stage");
  memset(a, 1, 1 << 20);
  pat_planner_stage_done(&pl);
  CHECK(pl.plan.stage.mem == a && pl.plan.stage.cap == 1 << 20, "1 MiB is kept after the call");
  char *b = pat_planner_stage(&pl, 4096);
  CHECK(b == a, "a smaller call reuses it");
  pat_planner_stage_done(&pl);

  /* a plan holds its stage (the background thread may be running it): a second one */
  pl.plan.has_exec = 1;
  char *c = pat_planner_stage(&pl, 1 << 20);
  CHECK(c != NULL && c != a && c == pl.balanced_stage.mem, "with a plan the call packs on a stage of its own");
  pat_planner_stage_done(&pl);
  CHECK(pl.plan.stage.mem == a, "the plan's stage is left alone");
  CHECK(pat_planner_stage(&pl, 1 << 20) == c, "and the second one is kept too");
  pat_planner_stage_done(&pl);
  pl.plan.has_exec = 0; /* nothing to cancel at free: no executor was made */

  /* beyond 64 MiB a stage goes back after the call */
  char *big = pat_planner_stage(&pl, ((size_t)64 << 20) + 1);
  CHECK(big != NULL && pl.plan.stage.cap == ((size_t)64 << 20) + 1, "a 64 MiB + 1 B stage");
  pat_planner_stage_done(&pl);
  CHECK(pl.plan.stage.mem == NULL && pl.plan.stage.cap == 0, "is freed after the call");

  pat_planner_free(&pl);
  return TEST_RESULT();
}
