/* The schedule executor (see executor.h). */
#include "exec/executor.h"

#include "exec/exec_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Tags tell steps and plan generations apart on the private communicator;
 * MPI guarantees tags up to 32767, Open MPI offers far more. */
static int tag_span = 32768 / PAT_TAG_GENS;

/* PAT_TRACE=1 prints every message the executor posts, cancels or drains
 * (for debugging a schedule on a real machine). */
static int trace_on;

void pat_exec_set_trace(int on) { trace_on = on; }
int pat_exec_tracing(void) { return trace_on; }

/* The timeline's clock: the runtime's common clock, handed in (this layer
 * reads no clock of its own). */
static int64_t (*clock_now)(void);
void pat_exec_set_clock(int64_t (*now)(void)) { clock_now = now; }

void pat_exec_stamp(pat_exec *e, size_t op, int done) {
  if (!e->t_post || !clock_now) return;
  int64_t t = clock_now();
  if (done) e->t_done[op] = t;
  else e->t_post[op] = t;
  if (e->in_foreground) e->t_fg[op] |= (unsigned char)(done ? 2 : 1);
}

int pat_exec_record(pat_exec *e) {
  if (e->nops == 0) return MPI_SUCCESS;
  e->t_post = calloc(e->nops, sizeof *e->t_post);
  e->t_done = calloc(e->nops, sizeof *e->t_done);
  e->t_fg = calloc(e->nops, sizeof *e->t_fg);
  if (e->t_post && e->t_done && e->t_fg) return MPI_SUCCESS;
  free(e->t_post);
  free(e->t_done);
  free(e->t_fg);
  e->t_post = e->t_done = NULL;
  e->t_fg = NULL;
  return MPI_ERR_NO_MEM;
}

void pat_exec_trace(const char *fmt, ...) {
  int world_rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "TRACE w%d %s\n", world_rank, line);
}

void pat_exec_set_tag_ub(int tag_ub) {
  long long span = ((long long)tag_ub + 1) / PAT_TAG_GENS;
  tag_span = span >= 1024 ? (int)(span > (1 << 24) ? (1 << 24) : span) : 32768 / PAT_TAG_GENS;
}

int pat_tag(int gen, int step) { return gen * tag_span + step % tag_span; }
int pat_tag_generation(int tag) { return tag / tag_span; }
int pat_tag_plan_gen(long long seq) { return (int)(seq % (PAT_TAG_PLAN_GENS / 2)) * 2; }

/* Is generation g older than the current pair (cur, cur + 1)?  Plan
 * generations are cyclic: the half of the cycle behind cur is the past. */
static int older_plan(int g, int cur) {
  if (g >= PAT_TAG_PLAN_GENS || g == cur || g == cur + 1) return 0;
  int behind = (cur - g + PAT_TAG_PLAN_GENS) % PAT_TAG_PLAN_GENS;
  return behind >= 1 && behind <= PAT_TAG_PLAN_GENS / 2;
}

int pat_drain_stale(MPI_Comm comm, int P, int plan_gen) {
  int discarded = 0;
  for (int src = 0; src < P; src++)
    for (;;) {
      int flag = 0;
      MPI_Status st;
      if (MPI_Iprobe(src, MPI_ANY_TAG, comm, &flag, &st) != MPI_SUCCESS || !flag) break;
      if (!older_plan(pat_tag_generation(st.MPI_TAG), plan_gen)) break;
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      char *junk = malloc(bytes > 0 ? (size_t)bytes : 1);
      if (!junk) break;
      MPI_Recv(junk, bytes, MPI_BYTE, src, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
      if (trace_on)
        pat_exec_trace("comm %p DRAIN src %d tag %d bytes %d (current %d, %d)", (void *)comm, src, st.MPI_TAG, bytes,
              plan_gen, plan_gen + 1);
      free(junk);
      discarded++;
    }
  return discarded;
}

/* A span as at most two runs of consecutive blocks that do not wrap. */
typedef struct run {
  int first, count;
} run;

static int span_runs(int P, const pat_span *sp, run *out) {
  int end = sp->first + sp->count;
  if (end <= P) {
    out[0].first = sp->first;
    out[0].count = sp->count;
    return 1;
  }
  out[0].first = sp->first;
  out[0].count = P - sp->first;
  out[1].first = 0;
  out[1].count = end - P;
  return 2;
}

/* Packed view: the spans' byte ranges of the stage. */
static int describe_packed(const pat_exec *e, const pat_op *op, pat_msg *m) {
  pat_range r[PAT_MAX_RANGES];
  int n = 0;
  for (int i = 0; i < op->nspans; i++) n += pat_span_ranges(e->P, &op->span[i], e->buf->block_bytes, e->buf->offsets, r + n);
  return pat_bytes_message(e->buf->stage, r, n, MPI_BYTE, m);
}

/* Typed view of unequal blocks: one block is its count of recvtype at its
 * place; several, one entry each of a derived type, wherever they are. */
static int describe_typed_v(pat_exec *e, const pat_op *op, pat_msg *m) {
  pat_buffers *b = e->buf;
  if (op->nspans == 1 && op->span[0].count == 1) {
    int block = op->span[0].first;
    *m = (pat_msg){pat_buffers_block(b, block), b->counts[block], b->recvtype, MPI_DATATYPE_NULL};
    return MPI_SUCCESS;
  }
  int n = 0;
  for (int i = 0; i < op->nspans; i++) n += op->span[i].count;
  int *lens = malloc((size_t)n * sizeof *lens);
  MPI_Aint *displ = malloc((size_t)n * sizeof *displ);
  int rc = lens && displ ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  for (int i = 0, k = 0; i < op->nspans && rc == MPI_SUCCESS; i++)
    for (int j = 0; j < op->span[i].count; j++, k++) {
      int block = (op->span[i].first + j) % e->P;
      lens[k] = b->counts[block];
      displ[k] = (MPI_Aint)b->displs[block] * b->type_extent;
    }
  *m = (pat_msg){b->recvbuf, 1, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_hindexed(n, lens, displ, b->recvtype, &m->tmp);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&m->tmp);
  m->type = m->tmp;
  free(lens);
  free(displ);
  return rc;
}

/* Typed view: the spans' blocks of recvbuf, in the user's datatype (MPI
 * moves them in type-map order); counts are of elements or of blocks. */
static int describe_typed(pat_exec *e, const pat_op *op, pat_msg *m) {
  pat_buffers *b = e->buf;
  for (int i = 0; i < op->nspans; i++)
    if (op->span[i].lo != 0 || op->span[i].hi != PAT_FRAC_ONE) return MPI_ERR_INTERN; /* pieces need packed mode */
  if (b->counts) return describe_typed_v(e, op, m);
  run runs[2 * PAT_MAX_SPANS];
  MPI_Aint displ[2 * PAT_MAX_SPANS];
  int lens[2 * PAT_MAX_SPANS], n = 0;
  for (int i = 0; i < op->nspans; i++) {
    int k = span_runs(e->P, &op->span[i], runs);
    for (int j = 0; j < k; j++) {
      displ[n] = (MPI_Aint)runs[j].first * b->block_extent;
      lens[n++] = runs[j].count;
    }
  }
  *m = (pat_msg){b->recvbuf, 1, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  if (n == 1 && (long long)lens[0] * b->recvcount <= INT_MAX) {
    m->addr = (char *)b->recvbuf + displ[0];
    m->count = lens[0] * b->recvcount;
    m->type = b->recvtype;
    return MPI_SUCCESS;
  }
  if (b->block_type == MPI_DATATYPE_NULL) {
    int rc = MPI_Type_contiguous(b->recvcount, b->recvtype, &b->block_type);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&b->block_type);
    if (rc != MPI_SUCCESS) return rc;
  }
  int rc = MPI_Type_create_hindexed(n, lens, displ, b->block_type, &m->tmp);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&m->tmp);
  m->type = m->tmp;
  return rc;
}

/* What MPI_Get_count says of a receive of m that arrived whole: its count,
 * or 0 for a type of size 0 (an all-gatherv's blocks of count 0 in one
 * derived type, or a user type of size 0). */
int pat_exec_expected_count(const pat_exec *e, const pat_msg *m) {
  if (!e->buf->counts || e->buf->packed || m->count == 0) return m->count;
  MPI_Count size = 0;
  MPI_Type_size_x(m->type, &size);
  return size == 0 ? 0 : m->count;
}

/* The message of an op: a signal is empty. */
int pat_exec_describe(pat_exec *e, const pat_op *op, pat_msg *m) {
  if (op->nspans == 0) {
    *m = (pat_msg){NULL, 0, MPI_BYTE, MPI_DATATYPE_NULL};
    return MPI_SUCCESS;
  }
  return e->buf->packed ? describe_packed(e, op, m) : describe_typed(e, op, m);
}

int pat_exec_init(pat_exec *e, const pat_sched *s, int self, pat_buffers *b) {
  memset(e, 0, sizeof *e);
  e->ops = pat_sched_rank_ops(s, self, &e->nops);
  e->P = s->P;
  e->self = self;
  e->buf = b;
  if (s->send_window > 0) return pat_exec_flow_init(e, s->send_window);
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
    if (e->ops[i].kind == PAT_OP_SEND && pat_spans_touch_block(e->P, e->ops[i].nspans, e->ops[i].span, e->self))
      return 1;
  return 0;
}

/* ---- abandoning a step ---- */

/* Complete, without blocking, those of reqs[0..n) that are done (freeing
 * the ones MPI leaves allocated because they failed) and move the others,
 * still active, to the front.  Returns how many are still active. */
int pat_exec_keep_active(MPI_Request *reqs, int n) {
  int active = 0;
  for (int i = 0; i < n; i++) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    int done = 0;
    MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE); /* if Test itself fails, done stays 0: kept, to be safe */
    if (done && reqs[i] != MPI_REQUEST_NULL) MPI_Request_free(&reqs[i]);
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    MPI_Request still = reqs[i];
    reqs[i] = MPI_REQUEST_NULL;
    reqs[active++] = still;
  }
  return active;
}

/* Cancel the posted step's requests and keep those that stay active (see
 * executor.h); no step is posted after it. */
static void abandon_step(pat_exec *e, int error) {
  if (trace_on) pat_exec_trace("comm %p CANCEL gen %d step %d", (void *)e->buf->comm, e->tag_gen, e->inflight_step);
  for (int i = 0; i < e->nreq; i++)
    if (e->reqs[i] != MPI_REQUEST_NULL) MPI_Cancel(&e->reqs[i]);
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
  if (trace_on)
    pat_exec_trace("comm %p %s peer %d tag %d gen %d step %d count %d", (void *)e->buf->comm, recv ? "RECV" : "SEND", op->peer,
          tag, e->tag_gen, op->step, m.count);
  if (recv) return MPI_Irecv(m.addr, m.count, m.type, op->peer, tag, e->buf->comm, req);
  return MPI_Isend(m.addr, m.count, m.type, op->peer, tag, e->buf->comm, req);
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

/* MPI_Waitall, one request at a time: Open MPI 4.1's MPI_Waitall, under
 * MPI_THREAD_MULTIPLE, can spin forever when one of the requests completes
 * in error (a truncated receive), while MPI_Wait returns (see
 * tests/mpi/test_lifecycle mismatch).  Statuses and the return code are as
 * MPI_Waitall gives them. */
void pat_exec_nap(int64_t ns) {
  struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  nanosleep(&t, NULL); /* woken early by a signal: the caller tests again */
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
