/* Hooks for the test suite (see debug.h). */
#include "runtime/debug.h"

#include <string.h>

#include "algorithms/allreduce.h"
#include "runtime/comm.h"
#include "runtime/process.h"

int64_t (*pat_test_prediction_hook)(int rank, int P, int64_t seq, int64_t predicted);

int pat_debug_last_plan(MPI_Comm comm, uint64_t *digest, int *alg, int64_t *arrivals) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  if (!cs) return MPI_ERR_ARG;
  pthread_mutex_lock(&cs->lock);
  *digest = cs->planner.last_digest;
  *alg = cs->planner.plan.choice.alg;
  if (arrivals && cs->planner.plan.arrival)
    memcpy(arrivals, cs->planner.plan.arrival, (size_t)cs->base.P * sizeof *arrivals);
  pat_comm_unlock(cs); /* the background thread may have skipped cs meanwhile */
  return MPI_SUCCESS;
}

int pat_debug_engine_made(MPI_Comm comm) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  if (!cs) return -1;
  pthread_mutex_lock(&cs->lock);
  int made = cs->engine_ready;
  pat_comm_unlock(cs);
  return made;
}

int pat_debug_on_channels(MPI_Comm comm) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  return cs ? !cs->own_dups : -1; /* fixed at the state's making: no lock */
}

int pat_debug_context_forms(MPI_Comm comm) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  if (!cs) return 0;
  return PAT_DEBUG_CONTEXT | (cs->blocking_ready ? PAT_DEBUG_CONTEXT_BLOCKING : 0) |
         (atomic_load(&cs->nbc) ? PAT_DEBUG_CONTEXT_NONBLOCKING : 0);
}

int pat_debug_allreduce_choice(MPI_Comm comm, long long bytes) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  int k = pat_ared_choice_class(bytes);
  if (!cs || k < 0 || cs->ared_eligible != 1) return -2;
  return cs->ared.cls[k].decided ? cs->ared.cls[k].choice : -1;
}

int pat_debug_allreduce_late(MPI_Comm comm) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  if (!cs || !cs->ared_stamps) return -1;
  return pat_allreduce_late_rank(&(pat_build_args){.P = cs->base.P, .arrival = cs->ared_stamps});
}

int pat_debug_allreduce_order(MPI_Comm comm, int *order) {
  pat_comm_state *cs = pat_proc.initialized ? pat_comm_find(comm) : NULL;
  return cs && cs->ared_stamps && pat_arrival_order(cs->base.P, cs->ared_stamps, 0, order) == PAT_OK;
}
