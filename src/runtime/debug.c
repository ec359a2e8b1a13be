/* Hooks for the test suite: observe decisions, inject predictions. */
#include <string.h>

#include "runtime/runtime.h"

int64_t (*pat_test_prediction_hook)(int rank, int P, int64_t seq, int64_t predicted);

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t pat_plan_digest(const pat_comm_state *cs) {
  const pat_plan *p = &cs->plan;
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < cs->P; i++) h = mix(h, (uint64_t)p->arrival[i]);
  h = mix(h, (uint64_t)p->bytes);
  h = mix(h, (uint64_t)(int64_t)p->setting);
  h = mix(h, (uint64_t)p->tau_ns);
  h = mix(h, (uint64_t)p->alg);
  h = mix(h, (uint64_t)p->root);
  return h;
}

int pat_debug_last_plan(MPI_Comm comm, uint64_t *digest, int *alg, int64_t *arrivals) {
  void *value;
  int found = 0;
  if (!pat_rt.initialized || MPI_Comm_get_attr(comm, pat_rt.keyval, &value, &found) != MPI_SUCCESS || !found)
    return MPI_ERR_ARG;
  pat_comm_state *cs = value;
  pthread_mutex_lock(&cs->lock);
  *digest = cs->last_plan_hash;
  *alg = cs->plan.alg;
  if (arrivals && cs->plan.arrival) memcpy(arrivals, cs->plan.arrival, (size_t)cs->P * sizeof *arrivals);
  pthread_mutex_unlock(&cs->lock);
  return MPI_SUCCESS;
}
