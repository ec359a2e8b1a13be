/* Hooks for the test suite (see debug.h). */
#include "runtime/debug.h"

#include <string.h>

#include "runtime/comm.h"
#include "runtime/runtime.h"

int64_t (*pat_test_prediction_hook)(int rank, int P, int64_t seq, int64_t predicted);

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t pat_plan_digest(int P, const pat_plan *p) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < P; i++) h = mix(h, (uint64_t)p->arrival[i]);
  h = mix(h, (uint64_t)p->bytes);
  h = mix(h, (uint64_t)(int64_t)p->setting);
  h = mix(h, (uint64_t)p->args.tau);
  h = mix(h, (uint64_t)p->args.alpha);
  h = mix(h, (uint64_t)p->choice.alg);
  h = mix(h, (uint64_t)p->choice.root);
  return h;
}

int pat_debug_last_plan(MPI_Comm comm, uint64_t *digest, int *alg, int64_t *arrivals) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  if (!cs) return MPI_ERR_ARG;
  pthread_mutex_lock(&cs->lock);
  *digest = cs->planner.last_digest;
  *alg = cs->planner.plan.choice.alg;
  if (arrivals && cs->planner.plan.arrival)
    memcpy(arrivals, cs->planner.plan.arrival, (size_t)cs->P * sizeof *arrivals);
  pat_comm_unlock(cs); /* the background thread may have skipped cs meanwhile */
  return MPI_SUCCESS;
}
