/*
 * PAT_Allgather: argument checking; the arrival exchange and the plan when
 * the setting needs them; then the chosen algorithm's schedule run by the
 * executor (or the MPI library's own all-gather for NATIVE); finally the call
 * site's history, which predicts the next arrival.
 */
#include <stdlib.h>

#include "pat/clock.h"
#include "runtime/report.h"
#include "runtime/runtime.h"

/* Does a (NULL) buffer point at real data?  MPI_BOTTOM with absolute
 * addresses in the datatype is legal; NULL with a datatype starting at 0 is not. */
static int null_buffer(const void *buf, MPI_Datatype type) {
  if (buf != NULL) return 0;
  MPI_Aint tlb, textent;
  MPI_Type_get_true_extent(type, &tlb, &textent);
  return tlb == 0;
}

static int check_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, long long *bytes) {
  if (comm == MPI_COMM_NULL) return pat_fail(MPI_ERR_COMM, "PAT_Allgather: comm is MPI_COMM_NULL");
  if (recvcount < 0) return pat_fail(MPI_ERR_COUNT, "PAT_Allgather: recvcount %d < 0", recvcount);
  if (recvtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: recvtype is MPI_DATATYPE_NULL");
  int rsize, ssize;
  if (MPI_Type_size(recvtype, &rsize) != MPI_SUCCESS) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: bad recvtype");
  *bytes = (long long)rsize * recvcount;
  if (*bytes > 0 && null_buffer(recvbuf, recvtype))
    return pat_fail(MPI_ERR_BUFFER, "PAT_Allgather: recvbuf is NULL");
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  if (sendcount < 0) return pat_fail(MPI_ERR_COUNT, "PAT_Allgather: sendcount %d < 0", sendcount);
  if (sendtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: sendtype is MPI_DATATYPE_NULL");
  if (MPI_Type_size(sendtype, &ssize) != MPI_SUCCESS) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: bad sendtype");
  long long sbytes = (long long)ssize * sendcount;
  if (sbytes != *bytes)
    return pat_fail(MPI_ERR_TRUNCATE, "PAT_Allgather: send size %lld bytes differs from receive size %lld bytes",
                    sbytes, *bytes);
  if (sbytes > 0 && null_buffer(sendbuf, sendtype)) return pat_fail(MPI_ERR_BUFFER, "PAT_Allgather: sendbuf is NULL");
  if (sbytes > 0 && sendbuf == recvbuf)
    return pat_fail(MPI_ERR_BUFFER, "PAT_Allgather: sendbuf aliases recvbuf (use MPI_IN_PLACE)");
  return MPI_SUCCESS;
}

typedef struct call_args {
  const void *sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void *recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  MPI_Comm comm;
  long long bytes;
} call_args;

/* A classic schedule, typed on the user's buffer. */
static int run_classic(pat_comm_state *cs, int alg, const call_args *c) {
  const pat_sched *s;
  int rc = pat_comm_classic(cs, alg, &s);
  if (rc != MPI_SUCCESS) return rc;
  pat_buffers b;
  pat_exec e;
  rc = pat_buffers_typed(&b, cs->data, cs->P, cs->rank, c->recvbuf, c->recvcount, c->recvtype);
  if (rc == MPI_SUCCESS) rc = pat_buffers_put_own(&b, c->sendbuf, c->sendcount, c->sendtype);
  if (rc == MPI_SUCCESS && s->nops > 0) {
    rc = pat_exec_init(&e, s, cs->rank, &b);
    if (rc == MPI_SUCCESS) rc = pat_exec_run(&e);
    pat_exec_free(&e);
  }
  pat_buffers_release(&b);
  return rc;
}

/* The planned arrival-aware schedule: packed on the plan's stage, where the
 * background thread may already have received (and forwarded) blocks. */
static int run_planned(pat_comm_state *cs, const call_args *c, long long *bg_steps, long long *fg_steps) {
  int rc = pat_plan_prepare_exec(cs);
  if (rc != MPI_SUCCESS) return rc;
  pat_buffers *b = &cs->plan.buf;
  b->recvbuf = c->recvbuf;
  b->recvcount = c->recvcount;
  b->recvtype = c->recvtype;
  MPI_Aint lb, extent;
  MPI_Type_get_extent(c->recvtype, &lb, &extent);
  b->block_extent = extent * c->recvcount;
  *bg_steps = cs->plan.exec.steps_done;
  rc = pat_buffers_put_own(b, c->sendbuf, c->sendcount, c->sendtype);
  if (rc == MPI_SUCCESS) rc = pat_exec_run(&cs->plan.exec);
  if (rc == MPI_SUCCESS) rc = pat_buffers_unpack(b, c->sendbuf == MPI_IN_PLACE);
  *fg_steps = cs->plan.exec.steps_done - *bg_steps;
  return rc;
}

static int run_alg(pat_comm_state *cs, int alg, const call_args *c, long long *bg_steps, long long *fg_steps) {
  *bg_steps = *fg_steps = 0;
  if (alg == PAT_ALG_NATIVE) {
    int rc = PMPI_Allgather(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm);
    return rc == MPI_SUCCESS ? rc : pat_fail(rc, "PAT_Allgather: MPI_Allgather failed");
  }
  if (c->bytes == 0) return MPI_SUCCESS; /* every rank moves nothing */
  if (pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) return run_planned(cs, c, bg_steps, fg_steps);
  return run_classic(cs, alg, c);
}

static int find_site(pat_comm_state *cs, int count, MPI_Datatype type) {
  for (int i = 0; i < cs->nsites; i++)
    if (cs->sites[i].count == count && cs->sites[i].type == type) return i;
  int i = cs->nsites < PAT_SITES ? cs->nsites++ : (cs->last_site + 1) % PAT_SITES; /* evict round-robin */
  cs->sites[i].count = count;
  cs->sites[i].type = type;
  cs->sites[i].successor = -1;
  pat_gap_init(&cs->sites[i].gaps);
  return i;
}

/* Learn from this call's gap, and predict the next call (site and gap). */
static void update_history(pat_comm_state *cs, const call_args *c, int64_t arrival, int64_t exit_ns) {
  int site = find_site(cs, c->recvcount, c->recvtype);
  if (cs->calls > 0) {
    pat_gap_add(&cs->sites[site].gaps, arrival - cs->last_exit_ns);
    cs->sites[cs->last_site].successor = site;
  }
  cs->last_site = site;
  cs->last_exit_ns = exit_ns;
  cs->last_bytes = c->bytes;
}

static void contribute_from_history(pat_comm_state *cs) {
  const pat_site *site = &cs->sites[cs->last_site];
  int next = site->successor >= 0 ? site->successor : cs->last_site;
  int64_t gap;
  if (!pat_gap_predict(&cs->sites[next].gaps, &gap)) return;
  int size = 0;
  MPI_Type_size(cs->sites[next].type, &size);
  pat_contribute(cs, cs->last_exit_ns + gap, (int64_t)size * cs->sites[next].count, PAT_XREC_HISTORY);
  pat_background_wake();
}

static void account(pat_comm_state *cs, int alg, double wait_s, int predicted, double pred_err_s, long long bg_steps,
                    long long fg_steps) {
  pthread_mutex_lock(&pat_rt.lock);
  pat_rt.stats.calls++;
  pat_rt.stats.bg_steps += bg_steps;
  pat_rt.stats.fg_steps += fg_steps;
  if (alg >= 0 && alg < (int)(sizeof pat_rt.stats.calls_per_alg / sizeof pat_rt.stats.calls_per_alg[0]))
    pat_rt.stats.calls_per_alg[alg]++;
  pat_rt.stats.exchange_wait_sum += wait_s;
  if (wait_s > pat_rt.stats.exchange_wait_max) pat_rt.stats.exchange_wait_max = wait_s;
  if (predicted) {
    pat_rt.stats.predicted_calls++;
    pat_rt.stats.pred_abs_error_sum += pred_err_s;
    if (pred_err_s > pat_rt.stats.pred_abs_error_max) pat_rt.stats.pred_abs_error_max = pred_err_s;
  }
  pat_rt.current = cs;
  pthread_mutex_unlock(&pat_rt.lock);
}

int PAT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Allgather: call PAT_Init first");
  int64_t arrival = pat_clock_global_ns();
  call_args c = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0};
  int rc = check_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &c.bytes);
  if (rc != MPI_SUCCESS) return rc;
  int inter = 0;
  rc = MPI_Comm_test_inter(comm, &inter);
  if (rc != MPI_SUCCESS) return pat_fail(MPI_ERR_COMM, "PAT_Allgather: invalid communicator");
  if (inter) /* inter-communicator all-gather has other semantics: leave it to MPI */
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);

  pat_comm_state *cs;
  rc = pat_comm_get(comm, &cs);
  if (rc != MPI_SUCCESS) return rc;
  pthread_mutex_lock(&cs->lock);
  int setting = pat_rt.alg, alg, predicted = 0;
  double wait_s = 0, pred_err_s = 0;
  long long bg_steps = 0, fg_steps = 0;
  if (cs->P > 1 && pat_setting_needs_exchange(setting)) {
    rc = pat_contribute(cs, arrival, c.bytes, PAT_XREC_ACTUAL);
    int64_t t0 = pat_clock_local_ns();
    if (rc == MPI_SUCCESS) rc = pat_exchange_wait(&cs->x);
    wait_s = (double)(pat_clock_local_ns() - t0) * 1e-9;
    if (rc != MPI_SUCCESS) {
      pthread_mutex_unlock(&cs->lock);
      return pat_fail(rc, "PAT_Allgather: arrival exchange failed");
    }
    if (cs->x.mine.kind != PAT_XREC_ACTUAL) {
      predicted = 1;
      pred_err_s = (double)llabs(cs->x.mine.arrival_ns - arrival) * 1e-9;
    }
    /* A plan made in the background stands only if it was made for exactly
     * this call; every rank sees the same records and the same call, so all
     * of them keep it or all of them replan. */
    pat_xsummary sum;
    pat_exchange_summary(&cs->x, &sum);
    int as_expected = sum.setting == setting && sum.agreed_bytes == c.bytes;
    if (cs->plan.decided && !(as_expected && cs->plan.setting == setting && cs->plan.bytes == c.bytes))
      pat_plan_drop(cs);
    if (!cs->plan.decided) pat_plan_decide(cs, setting, c.bytes, sum.complete_ns, !as_expected);
    alg = cs->plan.alg;
    rc = run_alg(cs, alg, &c, &bg_steps, &fg_steps);
    pat_plan_drop(cs);
    pat_exchange_consume(&cs->x);
  } else {
    /* a fixed classic setting, or a single process */
    alg = cs->P > 1 && setting >= 0 ? setting : PAT_ALG_RING;
    rc = run_alg(cs, alg, &c, &bg_steps, &fg_steps);
  }
  int64_t exit_ns = pat_clock_global_ns();
  update_history(cs, &c, arrival, exit_ns);
  cs->last_alg = alg;
  cs->calls++;
  pat_report_call(cs, recvcount, recvtype, c.bytes, alg, exit_ns - arrival, predicted, pred_err_s);
  if (rc == MPI_SUCCESS && pat_rt.background && !pat_rt.instrumented && cs->P > 1 &&
      pat_setting_needs_exchange(setting))
    contribute_from_history(cs);
  pthread_mutex_unlock(&cs->lock);
  account(cs, alg, wait_s, predicted, pred_err_s, bg_steps, fg_steps);
  return rc == MPI_SUCCESS ? rc : pat_fail(rc, "PAT_Allgather: %s failed", pat_algorithms[alg].name);
}
