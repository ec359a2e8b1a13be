/*
 * Plans: from the exchanged records to the algorithm, its schedule and the
 * executor state that the background thread starts and the foreground
 * finishes.  Every function here runs with cs->lock held.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

void pat_plan_decide(pat_comm_state *cs, int setting, int64_t bytes, int64_t bg_start_ns, int replanned) {
  pat_plan *p = &cs->plan;
  if (!p->arrival) p->arrival = malloc((size_t)cs->P * sizeof *p->arrival);
  for (int i = 0; i < cs->P; i++) p->arrival[i] = cs->x.all[i].arrival_ns;
  p->setting = setting;
  p->bytes = bytes;
  p->replanned = replanned;
  p->alg = pat_choose(cs, p->arrival, bytes, bg_start_ns, setting, &p->root);
  p->tau_ns = pat_tau_ns(p->alg, bytes); /* the tau the selection built this algorithm with */
  p->decided = 1;
  cs->last_plan_hash = pat_plan_digest(cs);
}

int pat_plan_prepare_exec(pat_comm_state *cs) {
  pat_plan *p = &cs->plan;
  if (p->has_exec) return MPI_SUCCESS;
  /* alpha as the selection passed it, so the schedule run is the one predicted */
  int64_t alpha = pat_quantise_ns(pat_model_link(&pat_rt.model, p->alg)->inter.alpha);
  pat_build_args args = {cs->P, cs->rank, p->arrival, p->tau_ns, p->root, alpha};
  int rc = pat_build(p->alg, &p->sched, &args);
  if (rc != PAT_OK)
    return pat_fail(rc == PAT_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_UNSUPPORTED_OPERATION,
                    "cannot build the %s schedule", pat_algorithms[p->alg].name);
  memset(&p->buf, 0, sizeof p->buf);
  p->buf.P = cs->P;
  p->buf.self = cs->rank;
  p->buf.comm = cs->data_aa;
  p->buf.packed = 1;
  p->buf.block_type = MPI_DATATYPE_NULL;
  p->buf.block_bytes = (size_t)p->bytes;
  p->buf.stage = malloc((size_t)p->bytes * (size_t)cs->P + 1);
  if (!p->buf.stage) {
    pat_sched_free(&p->sched);
    return pat_fail(MPI_ERR_NO_MEM, "cannot allocate %lld bytes", (long long)p->bytes * cs->P);
  }
  rc = pat_exec_init(&p->exec, &p->sched, cs->rank, &p->buf);
  if (rc != MPI_SUCCESS) {
    free(p->buf.stage);
    pat_sched_free(&p->sched);
    return pat_fail(rc, "cannot prepare the executor");
  }
  /* Plans of the last PAT_TAG_GENS/2 exchanges, replanned or not, never
   * share tags, so a stale background receive can never catch another plan's
   * message, and a stale message (a dropped plan's background signal) can
   * never satisfy this plan's receive; leftovers are drained here. */
  int exchange_gen = (int)(cs->x.seq % (PAT_TAG_GENS / 2)) * 2;
  p->exec.tag_gen = exchange_gen + (p->replanned ? 1 : 0);
  pat_drain_stale(cs->data_aa, exchange_gen, exchange_gen + 1);
  p->has_exec = 1;
  return MPI_SUCCESS;
}

int pat_plan_progress(pat_comm_state *cs, int *busy) {
  pat_exec *e = &cs->plan.exec;
  for (;;) {
    if (e->inflight) {
      int done, rc = pat_exec_test(e, &done);
      if (rc != MPI_SUCCESS) return rc;
      if (!done) {
        *busy = 1;
        return MPI_SUCCESS;
      }
    }
    /* the background stops where this rank's own data is needed */
    if (pat_exec_done(e) || pat_exec_next_needs_own(e)) return MPI_SUCCESS;
    int rc = pat_exec_post(e);
    if (rc != MPI_SUCCESS) return rc;
  }
}

void pat_plan_drop(pat_comm_state *cs) {
  pat_plan *p = &cs->plan;
  if (p->has_exec) {
    pat_exec_cancel(&p->exec);
    pat_exec_free(&p->exec);
    pat_buffers_release(&p->buf);
    free(p->buf.stage);
    p->buf.stage = NULL;
    pat_sched_free(&p->sched);
    p->has_exec = 0;
  }
  p->decided = 0;
}
