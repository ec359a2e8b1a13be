/* The schedule executor (see executor.h). */
#include "exec/executor.h"
#include "exec/reduce.h"

#include <stdlib.h>
#include <string.h>

/* Is generation g older than the current pair (cur, cur + 1)?  Plan
 * generations are cyclic: the half of the cycle behind cur is the past. */
static int older_plan(int g, int cur) {
  if (g >= PAT_TAG_PLAN_GENS || g == cur || g == cur + 1) return 0;
  int behind = (cur - g + PAT_TAG_PLAN_GENS) % PAT_TAG_PLAN_GENS;
  return behind >= 1 && behind <= PAT_TAG_PLAN_GENS / 2;
}

int pat_drain_stale(MPI_Comm comm, int P, const int *peer, int plan_gen) {
  int discarded = 0;
  for (int r = 0; r < P; r++)
    for (int src = peer ? peer[r] : r;;) {
      int flag = 0;
      MPI_Status st;
      if (MPI_Iprobe(src, MPI_ANY_TAG, comm, &flag, &st) != MPI_SUCCESS || !flag) break;
      if (!older_plan(pat_tag_generation(st.MPI_TAG), plan_gen)) break;
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      char *junk = malloc(bytes > 0 ? (size_t)bytes : 1);
      if (!junk) break;
      MPI_Recv(junk, bytes, MPI_BYTE, src, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
      if (pat_exec_tracing())
        pat_exec_trace("comm %p DRAIN src %d tag %d bytes %d (current %d, %d)", (void *)comm, src, st.MPI_TAG, bytes,
              plan_gen, plan_gen + 1);
      free(junk);
      discarded++;
    }
  return discarded;
}

int pat_exec_init(pat_exec *e, const pat_sched *s, int self, pat_buffers *b) {
  memset(e, 0, sizeof *e);
  e->ops = pat_sched_rank_ops(s, self, &e->nops);
  e->P = s->P;
  e->self = self;
  e->buf = b;
  /* a reduction only on buffers that say how (in data flow too: flow.c keeps lockstep's order) */
  if (!(s->flags & PAT_SCHED_REDUCE) != !b->reduce) return MPI_ERR_INTERN;
  if (s->send_window > 0) {
    int rc = pat_exec_flow_init(e, s->send_window);
    if (rc != MPI_SUCCESS) pat_exec_free(e);
    return rc;
  }
  int cur = 0;
  for (size_t i = 0; i < e->nops; i++) {
    cur = (i > 0 && e->ops[i].step == e->ops[i - 1].step) ? cur + 1 : 1;
    if (cur > e->max_step_ops) e->max_step_ops = cur;
  }
  if (e->max_step_ops > 0) {
    e->reqs = malloc((size_t)e->max_step_ops * sizeof *e->reqs);
    e->statuses = malloc((size_t)e->max_step_ops * sizeof *e->statuses);
    e->types = malloc((size_t)e->max_step_ops * sizeof *e->types);
    e->want_count = malloc((size_t)e->max_step_ops * sizeof *e->want_count);
    e->want_type = malloc((size_t)e->max_step_ops * sizeof *e->want_type);
    if (!e->reqs || !e->statuses || !e->types || !e->want_count || !e->want_type) {
      pat_exec_free(e);
      return MPI_ERR_NO_MEM;
    }
  }
  return MPI_SUCCESS;
}

static void free_step_types(pat_exec *e) {
  for (int i = 0; i < e->ntypes; i++) MPI_Type_free(&e->types[i]); /* MPI keeps those pending messages use */
  e->ntypes = 0;
}

void pat_exec_free(pat_exec *e) {
  /* the caller did not take them: its buffers are about to go, so wait */
  if (e->npending > 0) MPI_Waitall(e->npending, e->reqs, MPI_STATUSES_IGNORE);
  e->npending = 0;
  free_step_types(e);
  free(e->reqs);
  free(e->statuses);
  free(e->types);
  free(e->want_count);
  free(e->want_type);
  pat_exec_flow_free(e);
  free(e->t_post);
  free(e->t_done);
  free(e->t_fg);
  e->t_post = e->t_done = NULL;
  e->t_fg = NULL;
  e->reqs = NULL;
  e->statuses = NULL;
  e->types = NULL;
  e->want_count = NULL;
  e->want_type = NULL;
}

int pat_exec_next_needs_own(const pat_exec *e) {
  if (e->window > 0 || e->next >= e->nops) return 0;
  int step = e->ops[e->next].step;
  for (size_t i = e->next; i < e->nops && e->ops[i].step == step; i++)
    if (e->buf->reduce && e->ops[i].nspans > 0) return 1; /* every byte of a reduction holds the rank's own */
  for (size_t i = e->next; i < e->nops && e->ops[i].step == step; i++)
    if (e->ops[i].kind == PAT_OP_SEND && pat_spans_touch_block(e->P, e->ops[i].nspans, e->ops[i].span, e->self))
      return 1;
  return 0;
}

/* ---- abandoning a step ---- */

/* Cancel the posted step's requests and keep those that stay active (see
 * executor.h); no step is posted after it. */
static void abandon_step(pat_exec *e, int error) {
  if (pat_exec_tracing()) pat_exec_trace("comm %p CANCEL gen %d step %d", (void *)e->buf->comm, e->tag_gen, e->inflight_step);
  for (int i = 0; i < e->nreq; i++)
    if (e->reqs[i] != MPI_REQUEST_NULL) PMPI_Cancel(&e->reqs[i]);
  e->npending = pat_exec_keep_active(e->reqs, e->nreq);
  e->nreq = 0;
  e->inflight = 0;
  free_step_types(e);
  if (e->error == MPI_SUCCESS) e->error = error;
}

/* A failed step: abandoned, and its error returned. */
static int fail_step(pat_exec *e, int rc) {
  abandon_step(e, rc);
  return rc;
}

/* The error of a failed Waitall or Testall: the first request's own error
 * when MPI says only that it is in the statuses. */
static int step_error(const pat_exec *e, int rc) {
  if (rc != MPI_ERR_IN_STATUS) return rc;
  for (int i = 0; i < e->nreq; i++)
    if (e->statuses[i].MPI_ERROR != MPI_SUCCESS && e->statuses[i].MPI_ERROR != MPI_ERR_PENDING)
      return e->statuses[i].MPI_ERROR;
  return rc;
}

static void finish_step(pat_exec *e) {
  e->inflight = 0;
  e->steps_done++;
  free_step_types(e);
}

/* Waitall or Testall said rc and every request of the step completed.  An
 * error then belongs to the data (a message of another size than expected:
 * an erroneous program whose ranks passed different counts), not to the
 * schedule: it is kept, the step finishes, and later steps still run, so
 * the peers that wait for them are not left hanging.  A receive that brought
 * fewer elements than it expected is such an error too. */
static void finish_completed_step(pat_exec *e, int rc) {
  int err = rc == MPI_SUCCESS ? MPI_SUCCESS : step_error(e, rc);
  for (int i = 0; i < e->nreq && err == MPI_SUCCESS; i++) {
    if (e->want_count[i] < 0) continue;
    int got = 0;
    MPI_Get_count(&e->statuses[i], e->want_type[i], &got);
    if (got != e->want_count[i]) err = MPI_ERR_TRUNCATE;
  }
  /* a reduction's receives are combined now that the step's sends no longer read the vector */
  for (int i = 0; i < e->nreq && err == MPI_SUCCESS && e->buf->reduce; i++) {
    const pat_op *op = &e->ops[e->next - (size_t)e->nreq + (size_t)i];
    if (op->kind == PAT_OP_RECV && (op->flags & PAT_OPF_REDUCE)) err = pat_reduce_combine(e->buf, op);
  }
  if (err != MPI_SUCCESS && e->data_error == MPI_SUCCESS) e->data_error = err;
  finish_step(e);
}

/* Did every request of a failed Waitall or Testall complete? */
static int all_completed(const pat_exec *e, int rc) {
  if (rc != MPI_ERR_IN_STATUS) return 0;
  for (int i = 0; i < e->nreq; i++)
    if (e->statuses[i].MPI_ERROR == MPI_ERR_PENDING) return 0;
  return 1;
}

/* ---- stepping ---- */

/* Post one op of the step being posted. */
static int post_op(pat_exec *e, const pat_op *op, int tag) {
  pat_msg m;
  int rc = pat_exec_describe(e, op, &m);
  if (rc != MPI_SUCCESS) return rc;
  if (m.tmp != MPI_DATATYPE_NULL) e->types[e->ntypes++] = m.tmp;
  int recv = op->kind == PAT_OP_RECV || op->kind == PAT_OP_SIGNAL_RECV;
  e->want_count[e->nreq] = recv ? pat_exec_expected_count(e, &m) : -1;
  e->want_type[e->nreq] = m.type;
  MPI_Request *req = &e->reqs[e->nreq++];
  *req = MPI_REQUEST_NULL; /* stays so if posting fails */
  pat_exec_stamp(e, (size_t)(op - e->ops), 0);
  if (pat_exec_tracing())
    pat_exec_trace("comm %p %s peer %d tag %d gen %d step %d count %d", (void *)e->buf->comm, recv ? "RECV" : "SEND", op->peer,
          tag, e->tag_gen, op->step, m.count);
  int peer = pat_buffers_peer(e->buf, op->peer);
  if (recv) return MPI_Irecv(m.addr, m.count, m.type, peer, tag, e->buf->comm, req);
  return MPI_Isend(m.addr, m.count, m.type, peer, tag, pat_buffers_send_comm(e->buf, op->peer), req);
}

int pat_exec_post(pat_exec *e) {
  if (e->window > 0) return MPI_ERR_INTERN; /* data flow posts by itself */
  if (e->inflight) return MPI_ERR_INTERN;
  if (e->error != MPI_SUCCESS) return e->error;
  if (e->next >= e->nops) return MPI_SUCCESS;
  int step = e->ops[e->next].step;
  int tag = pat_tag(e->tag_gen, step);
  e->nreq = 0;
  e->inflight = 1;
  e->inflight_step = step;
  for (; e->next < e->nops && e->ops[e->next].step == step; e->next++) {
    int rc = post_op(e, &e->ops[e->next], tag);
    if (rc != MPI_SUCCESS) return fail_step(e, rc);
  }
  return MPI_SUCCESS;
}

int pat_exec_test(pat_exec *e, int *done) {
  if (e->window > 0) {
    int busy = 0, rc = pat_exec_flow_progress(e, &busy);
    *done = !busy;
    return rc;
  }
  *done = 1;
  if (!e->inflight) return e->error;
  int rc = MPI_Testall(e->nreq, e->reqs, done, e->statuses);
  if (rc == MPI_SUCCESS && !*done) return MPI_SUCCESS;
  *done = 1; /* nothing is in flight any more */
  for (int i = 0; i < e->nreq; i++) pat_exec_stamp(e, e->next - (size_t)e->nreq + (size_t)i, 1);
  if (rc == MPI_SUCCESS || all_completed(e, rc)) {
    finish_completed_step(e, rc);
    return MPI_SUCCESS;
  }
  return fail_step(e, step_error(e, rc));
}

/* MPI_Wait, or with e->nap_ns tests and naps in between */
static int wait_one(pat_exec *e, int i) {
  if (e->nap_ns <= 0) return MPI_Wait(&e->reqs[i], &e->statuses[i]);
  for (;;) {
    int flag = 0, rc = MPI_Test(&e->reqs[i], &flag, &e->statuses[i]);
    if (rc != MPI_SUCCESS || flag) return rc;
    pat_exec_nap(e->nap_ns);
  }
}

/* MPI_Waitall, one request at a time: Open MPI 4.1's MPI_Waitall, under
 * MPI_THREAD_MULTIPLE, can spin forever when one of the requests completes
 * in error (a truncated receive), while MPI_Wait returns (see
 * tests/mpi/test_lifecycle mismatch).  Statuses and the return code are as
 * MPI_Waitall gives them. */
static int wait_each(pat_exec *e) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < e->nreq; i++) {
    int rci = wait_one(e, i);
    pat_exec_stamp(e, e->next - (size_t)e->nreq + (size_t)i, 1);
    e->statuses[i].MPI_ERROR = rci;
    if (rci != MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
  }
  return rc;
}

int pat_exec_wait(pat_exec *e) {
  if (e->window > 0) return MPI_ERR_INTERN; /* pat_exec_run completes data flow */
  if (!e->inflight) return e->error;
  int rc = wait_each(e);
  if (rc != MPI_SUCCESS && !all_completed(e, rc)) return fail_step(e, step_error(e, rc));
  finish_completed_step(e, rc);
  return MPI_SUCCESS;
}

int pat_exec_cancel(pat_exec *e) {
  if (e->window > 0) pat_exec_flow_abandon(e, MPI_ERR_OTHER);
  if (e->inflight) abandon_step(e, MPI_ERR_OTHER);
  if (e->error == MPI_SUCCESS) e->error = MPI_ERR_OTHER; /* no step after a cancel */
  return MPI_SUCCESS;
}

int pat_exec_run(pat_exec *e) {
  e->in_foreground = 1;
  e->own_held = 1;
  if (e->window > 0) return pat_exec_flow_run(e);
  int rc = pat_exec_wait(e);
  while (rc == MPI_SUCCESS && e->next < e->nops) {
    rc = pat_exec_post(e);
    if (rc == MPI_SUCCESS) rc = pat_exec_wait(e);
  }
  return rc != MPI_SUCCESS ? rc : e->data_error;
}

int pat_exec_pending(const pat_exec *e) { return e->npending; }

int pat_exec_take_pending(pat_exec *e, MPI_Request **reqs, int *n) {
  *reqs = NULL;
  *n = 0;
  if (e->npending == 0) return MPI_SUCCESS;
  *reqs = malloc((size_t)e->npending * sizeof **reqs);
  if (!*reqs) return MPI_ERR_NO_MEM;
  memcpy(*reqs, e->reqs, (size_t)e->npending * sizeof **reqs);
  *n = e->npending;
  e->npending = 0;
  return MPI_SUCCESS;
}
