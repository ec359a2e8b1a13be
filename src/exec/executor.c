/* The schedule executor (see executor.h). */
#include "exec/executor.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tags tell steps and plan generations apart on the private communicator;
 * MPI guarantees tags up to 32767, Open MPI offers far more. */
static int tag_span = 32768 / PAT_TAG_GENS;

/* PAT_TRACE=1 prints every message the executor posts, cancels or drains
 * (for debugging a schedule on a real machine). */
static int trace_on;

void pat_exec_set_trace(int on) { trace_on = on; }

static void trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void trace(const char *fmt, ...) {
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
        trace("comm %p DRAIN src %d tag %d bytes %d (current %d, %d)", (void *)comm, src, st.MPI_TAG, bytes,
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

/* Buffer, count and datatype that describe an op's spans.  A temporary
 * datatype, if one is needed, is returned in *tmp (else MPI_DATATYPE_NULL). */
static int describe(pat_exec *e, const pat_op *op, void **addr, int *count, MPI_Datatype *type, MPI_Datatype *tmp) {
  pat_buffers *b = e->buf;
  *tmp = MPI_DATATYPE_NULL;
  if (op->nspans == 0) { /* signal */
    *addr = NULL;
    *count = 0;
    *type = MPI_BYTE;
    return MPI_SUCCESS;
  }
  run runs[2 * PAT_MAX_SPANS];
  MPI_Aint displ[2 * PAT_MAX_SPANS];
  int lens[2 * PAT_MAX_SPANS], n = 0;

  if (b->packed) {
    size_t B = b->block_bytes;
    for (int i = 0; i < op->nspans; i++) {
      const pat_span *sp = &op->span[i];
      if (sp->lo != 0 || sp->hi != PAT_FRAC_ONE) {
        size_t lo = (size_t)((unsigned long long)B * sp->lo / PAT_FRAC_ONE);
        size_t hi = (size_t)((unsigned long long)B * sp->hi / PAT_FRAC_ONE);
        displ[n] = (MPI_Aint)((size_t)sp->first * B + lo);
        if (hi - lo > INT_MAX) return MPI_ERR_COUNT;
        lens[n++] = (int)(hi - lo);
        continue;
      }
      int k = span_runs(e->P, sp, runs);
      for (int j = 0; j < k; j++) {
        if ((size_t)runs[j].count * B > INT_MAX) return MPI_ERR_COUNT;
        displ[n] = (MPI_Aint)((size_t)runs[j].first * B);
        lens[n++] = (int)((size_t)runs[j].count * B);
      }
    }
    if (n == 1) {
      *addr = b->stage + displ[0];
      *count = lens[0];
      *type = MPI_BYTE;
      return MPI_SUCCESS;
    }
    int rc = MPI_Type_create_hindexed(n, lens, displ, MPI_BYTE, tmp);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(tmp);
    *addr = b->stage;
    *count = 1;
    *type = *tmp;
    return rc;
  }

  for (int i = 0; i < op->nspans; i++) {
    if (op->span[i].lo != 0 || op->span[i].hi != PAT_FRAC_ONE) return MPI_ERR_INTERN; /* pieces need packed mode */
    int k = span_runs(e->P, &op->span[i], runs);
    for (int j = 0; j < k; j++) {
      displ[n] = (MPI_Aint)runs[j].first * b->block_extent;
      lens[n++] = runs[j].count;
    }
  }
  if (n == 1 && (long long)lens[0] * b->recvcount <= INT_MAX) {
    *addr = (char *)b->recvbuf + displ[0];
    *count = lens[0] * b->recvcount;
    *type = b->recvtype;
    return MPI_SUCCESS;
  }
  if (b->block_type == MPI_DATATYPE_NULL) {
    int rc = MPI_Type_contiguous(b->recvcount, b->recvtype, &b->block_type);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&b->block_type);
    if (rc != MPI_SUCCESS) return rc;
  }
  int rc = MPI_Type_create_hindexed(n, lens, displ, b->block_type, tmp);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(tmp);
  *addr = b->recvbuf;
  *count = 1;
  *type = *tmp;
  return rc;
}

int pat_exec_init(pat_exec *e, const pat_sched *s, int self, pat_buffers *b) {
  memset(e, 0, sizeof *e);
  e->ops = pat_sched_rank_ops(s, self, &e->nops);
  e->P = s->P;
  e->self = self;
  e->buf = b;
  int cur = 0;
  for (size_t i = 0; i < e->nops; i++) {
    cur = (i > 0 && e->ops[i].step == e->ops[i - 1].step) ? cur + 1 : 1;
    if (cur > e->max_step_ops) e->max_step_ops = cur;
  }
  if (e->max_step_ops > 0) {
    e->reqs = malloc((size_t)e->max_step_ops * sizeof *e->reqs);
    e->types = malloc((size_t)e->max_step_ops * sizeof *e->types);
    if (!e->reqs || !e->types) {
      pat_exec_free(e);
      return MPI_ERR_NO_MEM;
    }
  }
  return MPI_SUCCESS;
}

static void free_step_types(pat_exec *e) {
  for (int i = 0; i < e->ntypes; i++) MPI_Type_free(&e->types[i]);
  e->ntypes = 0;
}

void pat_exec_free(pat_exec *e) {
  free_step_types(e);
  free(e->reqs);
  free(e->types);
  e->reqs = NULL;
  e->types = NULL;
}

int pat_exec_next_needs_own(const pat_exec *e) {
  if (e->next >= e->nops) return 0;
  int step = e->ops[e->next].step;
  for (size_t i = e->next; i < e->nops && e->ops[i].step == step; i++)
    if (e->ops[i].kind == PAT_OP_SEND && pat_spans_touch_block(e->P, e->ops[i].nspans, e->ops[i].span, e->self))
      return 1;
  return 0;
}

int pat_exec_post(pat_exec *e) {
  if (e->inflight) return MPI_ERR_INTERN;
  if (e->next >= e->nops) return MPI_SUCCESS;
  int step = e->ops[e->next].step;
  int tag = pat_tag(e->tag_gen, step);
  e->nreq = 0;
  e->inflight = 1;
  e->inflight_step = step;
  for (; e->next < e->nops && e->ops[e->next].step == step; e->next++) {
    const pat_op *op = &e->ops[e->next];
    void *addr;
    int count, rc;
    MPI_Datatype type, tmp;
    rc = describe(e, op, &addr, &count, &type, &tmp);
    if (rc != MPI_SUCCESS) return rc;
    if (tmp != MPI_DATATYPE_NULL) e->types[e->ntypes++] = tmp;
    MPI_Request *req = &e->reqs[e->nreq++];
    if (trace_on)
      trace("comm %p %s peer %d tag %d gen %d step %d count %d", (void *)e->buf->comm,
            op->kind == PAT_OP_RECV || op->kind == PAT_OP_SIGNAL_RECV ? "RECV" : "SEND", op->peer, tag, e->tag_gen,
            step, count);
    if (op->kind == PAT_OP_RECV || op->kind == PAT_OP_SIGNAL_RECV)
      rc = MPI_Irecv(addr, count, type, op->peer, tag, e->buf->comm, req);
    else
      rc = MPI_Isend(addr, count, type, op->peer, tag, e->buf->comm, req);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int pat_exec_test(pat_exec *e, int *done) {
  *done = 1;
  if (!e->inflight) return MPI_SUCCESS;
  int rc = MPI_Testall(e->nreq, e->reqs, done, MPI_STATUSES_IGNORE);
  if (rc == MPI_SUCCESS && *done) {
    e->inflight = 0;
    e->steps_done++;
    free_step_types(e);
  }
  return rc;
}

int pat_exec_wait(pat_exec *e) {
  if (!e->inflight) return MPI_SUCCESS;
  int rc = MPI_Waitall(e->nreq, e->reqs, MPI_STATUSES_IGNORE);
  e->inflight = 0;
  e->steps_done++;
  free_step_types(e);
  return rc;
}

int pat_exec_cancel(pat_exec *e) {
  if (!e->inflight) return MPI_SUCCESS;
  if (trace_on) trace("comm %p CANCEL gen %d step %d", (void *)e->buf->comm, e->tag_gen, e->inflight_step);
  for (int i = 0; i < e->nreq; i++)
    if (e->reqs[i] != MPI_REQUEST_NULL) MPI_Cancel(&e->reqs[i]);
  int rc = MPI_Waitall(e->nreq, e->reqs, MPI_STATUSES_IGNORE);
  e->inflight = 0;
  free_step_types(e);
  return rc;
}

int pat_exec_run(pat_exec *e) {
  int rc = pat_exec_wait(e);
  while (rc == MPI_SUCCESS && e->next < e->nops) {
    rc = pat_exec_post(e);
    if (rc == MPI_SUCCESS) rc = pat_exec_wait(e);
  }
  return rc;
}
