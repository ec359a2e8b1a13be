/* One run of a non-blocking all-gather's schedule (see nbc_run.h). */
#include "runtime/nbc_run.h"

#include <stdlib.h>
#include <string.h>

#include "model/build_args.h"
#include "pat/shape.h"
#include "runtime/errors.h"
#include "runtime/netparams.h"
#include "runtime/process.h"

int pat_nbc_run_plans_ahead(int alg) {
  return alg >= 0 && alg < PAT_ALG_COUNT && (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD);
}

const char *pat_nbc_alg_name(int alg) {
  if (alg >= PAT_ARED_ALG_BASE && alg < PAT_ARED_ALG_BASE + PAT_ARED_COUNT)
    return pat_allreduce_algorithms[alg - PAT_ARED_ALG_BASE].name;
  return alg >= 0 && alg < PAT_ALG_COUNT ? pat_algorithms[alg].name : "?";
}

int pat_nbc_block_bytes(const pat_call_args *u, int P, int64_t *bytes) {
  MPI_Count size = 0;
  int rc = MPI_Type_size_x(u->recvtype, &size);
  for (int r = 0; r < P; r++)
    bytes[r] = rc == MPI_SUCCESS ? (int64_t)size * (u->counts && !u->reduce ? u->counts[r] : u->recvcount) : 0;
  return rc;
}

static int all_equal(int P, const int64_t *bytes) {
  for (int r = 1; r < P; r++)
    if (bytes[r] != bytes[0]) return 0;
  return 1;
}

/* The schedule, for balanced arrivals; unequal blocks are cut by their own
 * sizes (RELAY); an arrival-aware all-reduce's for the call's predicted last
 * rank (late1 - 1; 0: none). */
static int build(pat_nbc_run *r, const pat_nbc_where *w, const int64_t *bytes, int late1) {
  r->seq = w->seq;
  r->alg = w->alg;
  if (w->alg >= PAT_ARED_ALG_BASE) { /* an all-reduce's: its segments are the blocks, bytes[] the vector's */
    pat_build_args args = {
        .P = w->P, .self = w->rank, .block_bytes = bytes[0] / w->P, .node = w->node, .nodes = w->nodes};
    int64_t *late = late1 > 0 && late1 <= w->P ? calloc((size_t)w->P, sizeof *late) : NULL;
    if (late) late[late1 - 1] = 1;
    args.arrival = late;
    int rc = pat_build_allreduce(w->alg - PAT_ARED_ALG_BASE, &r->sched, &args);
    free(late);
    if (rc != PAT_OK) return pat_mpi_error(rc);
    r->have_sched = 1;
    return MPI_SUCCESS;
  }
  int equal = all_equal(w->P, bytes);
  double block = equal ? (double)bytes[0] : (double)pat_shape_mean(w->P, bytes);
  pat_build_args args = pat_call_build_args(pat_netparams(), w->alg, w->P, w->node, w->rank, NULL, block, 0);
  args.nodes = w->nodes;
  args.block_sizes = equal ? NULL : bytes;
  int rc = pat_build(w->alg, &r->sched, &args);
  if (rc != PAT_OK) return pat_mpi_error(rc);
  r->have_sched = 1;
  if (pat_proc.settings.send_window >= 0) r->sched.send_window = pat_proc.settings.send_window;
  return MPI_SUCCESS;
}

/* Schedules of pieces, and the arrival-aware ones, run on packed bytes (as the blocking calls run them). */
static int runs_packed(const pat_nbc_run *r) { return (r->sched.flags & (PAT_SCHED_PIECES | PAT_SCHED_ARRIVAL)) != 0; }

/* The packed view's stage for blocks of bytes[P], before the call's buffers are known. */
static int make_stage(pat_nbc_run *r, const pat_nbc_where *w, const int64_t *bytes) {
  size_t total = 0;
  int rc = pat_buffers_packed_shape(&r->buf, w->comm, w->P, w->rank, (size_t)bytes[0],
                                    all_equal(w->P, bytes) ? NULL : bytes, &total);
  r->have_buf = 1;
  r->buf.route = w->route;
  r->buf.node = w->node;
  if (rc != MPI_SUCCESS) return rc;
  if (!(r->stage = malloc(total + 1))) return MPI_ERR_NO_MEM;
  r->buf.stage = r->stage;
  return MPI_SUCCESS;
}

/* The call's side of the buffers: where the blocks end up. */
static void user_view(pat_buffers *b, const pat_call_args *u) {
  pat_buffers_set_user(b, u->recvbuf, u->recvcount, u->recvtype, u->counts, u->displs);
}

static int init_exec(pat_nbc_run *r, const pat_nbc_where *w, int own_held) {
  int rc = pat_exec_init(&r->exec, &r->sched, w->rank, &r->buf);
  if (rc != MPI_SUCCESS) return rc;
  r->have_exec = 1;
  r->exec.tag_gen = w->tag_gen;
  r->exec.own_held = own_held;
  return MPI_SUCCESS;
}

static int failed(pat_nbc_run *r, int rc) {
  if (rc != MPI_SUCCESS && r->rc == MPI_SUCCESS) r->rc = rc;
  return rc;
}

int pat_nbc_run_start(pat_nbc_run *r, const pat_nbc_where *w, const int64_t *bytes, const pat_call_args *u) {
  int rc = build(r, w, bytes, u->late1);
  if (rc == MPI_SUCCESS && u->reduce) { /* the vector in recvbuf is the accumulator (exec/reduce.h) */
    r->have_red = 1;
    rc = pat_reduce_init(&r->red, &r->buf, w->comm, w->P, w->rank, u->recvbuf, u->recvcount, u->recvtype, u->op);
    r->buf.route = w->route;
    r->buf.node = w->node;
    if (rc == MPI_SUCCESS) rc = pat_reduce_put_own(&r->red, &r->buf, u->sendbuf);
    if (rc == MPI_SUCCESS) rc = init_exec(r, w, 1);
    return failed(r, rc);
  }
  if (rc == MPI_SUCCESS && runs_packed(r)) {
    rc = make_stage(r, w, bytes);
    user_view(&r->buf, u);
  } else if (rc == MPI_SUCCESS) {
    rc = u->counts ? pat_buffers_typed_v(&r->buf, w->comm, w->P, w->rank, u->recvbuf, u->counts, u->displs, u->recvtype)
                   : pat_buffers_typed(&r->buf, w->comm, w->P, w->rank, u->recvbuf, u->recvcount, u->recvtype);
    r->have_buf = 1;
    r->buf.route = w->route;
    r->buf.node = w->node;
  }
  r->in_place = u->sendbuf == MPI_IN_PLACE;
  if (rc == MPI_SUCCESS) rc = pat_buffers_put_own(&r->buf, u->sendbuf, u->sendcount, u->sendtype);
  if (rc == MPI_SUCCESS) rc = init_exec(r, w, 1); /* own block in place before the first step */
  return failed(r, rc);
}

int pat_nbc_run_start_ahead(pat_nbc_run *r, const pat_nbc_where *w, const int64_t *bytes) {
  int rc = build(r, w, bytes, 0);
  if (rc == MPI_SUCCESS) rc = make_stage(r, w, bytes);
  if (rc == MPI_SUCCESS) rc = init_exec(r, w, 0);
  r->awaiting_call = 1;
  return failed(r, rc);
}

int pat_nbc_run_adopt(pat_nbc_run *r, const pat_call_args *u) {
  r->awaiting_call = 0;
  if (r->rc != MPI_SUCCESS) return r->rc;
  user_view(&r->buf, u);
  r->in_place = u->sendbuf == MPI_IN_PLACE;
  int rc = pat_buffers_put_own(&r->buf, u->sendbuf, u->sendcount, u->sendtype);
  r->exec.own_held = 1; /* its sends may go from the next progress on */
  return failed(r, rc);
}

void pat_nbc_run_abandon(pat_nbc_run *r, int rc) {
  failed(r, rc);
  if (!r->have_exec) return;
  pat_exec_cancel(&r->exec);
  if (pat_exec_take_pending(&r->exec, &r->pending, &r->npending) != MPI_SUCCESS) {
    r->npending = 0; /* no memory to keep them: pat_exec_free waits for them */
    r->pending = NULL;
  }
}

int pat_nbc_run_step(pat_nbc_run *r) {
  if (r->npending > 0) {
    int flag = 0;
    MPI_Testall(r->npending, r->pending, &flag, MPI_STATUSES_IGNORE);
    if (!flag) return 0;
    r->npending = 0;
    return 1;
  }
  if (r->rc != MPI_SUCCESS) return 1;
  pat_exec *e = &r->exec;
  for (;;) {
    if (e->error != MPI_SUCCESS) {
      pat_nbc_run_abandon(r, e->error);
      return r->npending == 0;
    }
    if (pat_exec_done(e) && !r->awaiting_call) {
      r->rc = e->data_error;
      if (r->rc == MPI_SUCCESS && r->buf.packed) r->rc = pat_buffers_unpack(&r->buf, r->in_place);
      return 1;
    }
    int rc = MPI_SUCCESS, done = 0;
    if (e->window == 0 && !e->inflight) rc = pat_exec_post(e);
    if (rc == MPI_SUCCESS) rc = pat_exec_test(e, &done);
    if (rc != MPI_SUCCESS) {
      pat_nbc_run_abandon(r, rc);
      return r->npending == 0;
    }
    if (!done || r->awaiting_call) return 0;
  }
}

void pat_nbc_run_release(pat_nbc_run *r) {
  if (r->npending > 0) r->stage = NULL; /* still under MPI's requests */
  free(r->pending);
  r->pending = NULL;
  r->npending = 0;
  if (r->have_exec) pat_exec_free(&r->exec);
  if (r->have_red) pat_reduce_release(&r->red, &r->buf);
  if (r->have_buf) pat_buffers_release(&r->buf);
  free(r->stage);
  r->stage = NULL;
  if (r->have_sched) pat_sched_free(&r->sched);
  r->have_exec = r->have_buf = r->have_sched = r->have_red = 0;
}
