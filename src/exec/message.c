/* An op's message and what lockstep (executor.c) and data flow (flow.c) share (see message.h). */
#include "exec/message.h"
#include "exec/reduce.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Tags tell steps and plan generations apart on the private communicator;
 * MPI guarantees tags up to 32767, Open MPI offers far more. */
static int tag_span = 32768 / PAT_TAG_GENS;

/* PAT_TRACE=1 prints every message the executor posts, cancels or drains
 * (for debugging a schedule on a real machine). */
int pat_exec_trace_on;

void pat_exec_set_trace(int on) { pat_exec_trace_on = on; }

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

int pat_tag(int gen, int step) { return gen * tag_span + step % (tag_span - 1); }
int pat_tag_stamp(int gen) { return gen * tag_span + tag_span - 1; }
int pat_tag_generation(int tag) { return tag / tag_span; }
int pat_tag_plan_gen(long long seq) { return (int)(seq % (PAT_TAG_PLAN_GENS / 2)) * 2; }

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
  if (e->buf->reduce) return pat_reduce_describe(e->buf, op, m);
  return e->buf->packed ? describe_packed(e, op, m) : describe_typed(e, op, m);
}

/* Complete, without blocking, those of reqs[0..n) that are done (freeing
 * the ones MPI leaves allocated because they failed) and move the others,
 * still active, to the front.  Returns how many are still active. */
int pat_exec_keep_active(MPI_Request *reqs, int n) {
  int active = 0;
  for (int i = 0; i < n; i++) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    int done = 0;
    MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE); /* if Test itself fails, done stays 0: kept, to be safe */
    if (done && reqs[i] != MPI_REQUEST_NULL) PMPI_Request_free(&reqs[i]); /* PMPI: libpat_mpi takes MPI_Request_free over */
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    MPI_Request still = reqs[i];
    reqs[i] = MPI_REQUEST_NULL;
    reqs[active++] = still;
  }
  return active;
}

void pat_exec_nap(int64_t ns) {
  struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  nanosleep(&t, NULL); /* woken early by a signal: the caller tests again */
}
