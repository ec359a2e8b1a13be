/* Running a call's schedule, every variant (see run.h). */
#include "runtime/run.h"

#include "pat/clock.h"
#include "runtime/errors.h"
#include "runtime/netparams.h"
#include "runtime/timeline.h"
#include "runtime/wait_nap.h"

/* PAT_TIMELINE's record of a call that ran, when it is on, with its exit
 * now (predicted: the plan's arrivals, NULL without a plan; handover: when
 * the foreground took over). */
static void record(const pat_comm_base *b, int alg, const pat_sched *s, const pat_exec *e, const int64_t *predicted,
                   const pat_call_args *c, int64_t handover) {
  if (pat_timeline_on())
    pat_timeline_write(b->P, b->rank, alg, c->bytes, s, e, predicted, c->arrival, handover, pat_clock_global_ns());
}

/* Schedule s on buffers b, for a call without an exchange: the classic
 * tags and a nap of nap_ns while it waits (runtime/wait_nap.h). */
static int run_unplanned(const pat_comm_base *b, int alg, const pat_sched *s, pat_buffers *buf, int64_t nap_ns,
                         const pat_call_args *c) {
  int64_t handover = pat_timeline_on() ? pat_clock_global_ns() : 0; /* no clock read unless recording */
  pat_exec e;
  int rc = pat_exec_init(&e, s, b->rank, buf);
  e.tag_gen = PAT_TAG_GEN_CLASSIC;
  e.nap_ns = nap_ns;
  if (rc == MPI_SUCCESS && pat_timeline_on()) rc = pat_exec_record(&e);
  if (rc == MPI_SUCCESS) rc = pat_exec_run(&e);
  if (rc == MPI_SUCCESS) record(b, alg, s, &e, NULL, c, handover);
  pat_exec_free(&e); /* waits for anything still pending: nothing uses the buffers after it */
  return rc;
}

int pat_run_classic(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c) {
  const pat_sched *s;
  int rc = pat_plan_classic(pl, b, alg, &s);
  if (rc != MPI_SUCCESS) return rc;
  pat_buffers buf;
  rc = c->displs ? pat_buffers_typed_v(&buf, b->priv, b->P, b->rank, c->recvbuf, c->counts, c->displs, c->recvtype)
                 : pat_buffers_typed(&buf, b->priv, b->P, b->rank, c->recvbuf, c->recvcount, c->recvtype);
  buf.route = b->route;
  buf.node = b->node;
  if (rc == MPI_SUCCESS) rc = pat_buffers_put_own(&buf, c->sendbuf, c->sendcount, c->sendtype);
  if (rc == MPI_SUCCESS && s->nops > 0)
    rc = run_unplanned(b, alg, s, &buf, pat_plan_classic_nap_ns(pl, alg, c->bytes), c);
  pat_buffers_release(&buf);
  return rc;
}

int pat_run_balanced(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c) {
  pat_sched s;
  int rc = pat_plan_balanced(b, alg, (double)c->bytes, c->shape, &s);
  if (rc != MPI_SUCCESS) return rc;
  pat_buffers buf;
  size_t stage_bytes = 0;
  char *stage = NULL;
  rc = pat_buffers_packed_v(&buf, b->priv, b->P, b->rank, c->recvbuf, c->counts, c->displs, c->recvtype,
                            &stage_bytes);
  buf.route = b->route;
  buf.node = b->node;
  if (rc == MPI_SUCCESS) {
    stage = pat_planner_stage(pl, stage_bytes + 1);
    if (!stage) rc = pat_fail(MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes", c->name, stage_bytes);
  }
  buf.stage = stage;
  if (rc == MPI_SUCCESS) rc = pat_buffers_put_own(&buf, c->sendbuf, c->sendcount, c->sendtype);
  if (rc == MPI_SUCCESS && s.nops > 0)
    rc = run_unplanned(b, alg, &s, &buf,
                       pat_wait_nap_ns(pat_wait_smallest_blocks(&s, b->rank), alg, (double)c->bytes, pat_netparams()),
                       c);
  if (rc == MPI_SUCCESS) rc = pat_buffers_unpack(&buf, c->sendbuf == MPI_IN_PLACE);
  pat_planner_stage_done(pl);
  pat_buffers_release(&buf);
  pat_sched_free(&s);
  return rc;
}

int pat_run_planned(pat_planner *pl, const pat_comm_base *b, int64_t exchange_seq, const pat_call_args *c,
                    long long *bg_steps, long long *fg_steps) {
  int rc = pat_plan_prepare_exec(pl, b, exchange_seq);
  if (rc != MPI_SUCCESS) return rc;
  pat_plan *plan = &pl->plan;
  /* unequal blocks: the plan's offsets (prepare_exec) are of these counts (call.c's plan_for) */
  pat_buffers *buf = pat_plan_user_buffer(pl, c->recvbuf, c->recvcount, c->recvtype, c->counts, c->displs);
  *bg_steps = plan->exec.steps_done;
  int64_t handover = pat_timeline_on() ? pat_clock_global_ns() : 0; /* no clock read unless recording */
  rc = pat_buffers_put_own(buf, c->sendbuf, c->sendcount, c->sendtype);
  if (rc == MPI_SUCCESS) rc = pat_exec_run(&plan->exec);
  if (rc == MPI_SUCCESS) rc = pat_buffers_unpack(buf, c->sendbuf == MPI_IN_PLACE);
  if (rc == MPI_SUCCESS) record(b, plan->choice.alg, &plan->sched, &plan->exec, plan->arrival, c, handover);
  *fg_steps = plan->exec.steps_done - *bg_steps;
  return rc;
}
