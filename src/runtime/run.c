/* One run of a schedule, every call form's (see run.h). */
#include "runtime/run.h"

#include <stdlib.h>
#include <string.h>

#include "model/build_args.h"
#include "pat/shape.h"
#include "runtime/errors.h"
#include "runtime/netparams.h"
#include "runtime/process.h"
#include "runtime/timeline.h"

int pat_run_plans_ahead(int alg) {
  return alg >= 0 && alg < PAT_ALG_COUNT && (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD);
}

const char *pat_run_alg_name(int alg) {
  if (alg >= PAT_ARED_ALG_BASE && alg < PAT_ARED_ALG_BASE + PAT_ARED_COUNT)
    return pat_allreduce_algorithms[alg - PAT_ARED_ALG_BASE].name;
  return alg >= 0 && alg < PAT_ALG_COUNT ? pat_algorithms[alg].name : "?";
}

pat_run_where pat_run_where_of(const pat_comm_base *b, int tag_gen, int alg) {
  return (pat_run_where){.comm = b->priv,
                         .route = b->route,
                         .tag_gen = tag_gen,
                         .P = b->P,
                         .rank = b->rank,
                         .node = b->node,
                         .nodes = b->nodes,
                         .alg = alg};
}

/* The size beyond which a stage is returned after each call. */
#define PAT_STAGE_KEEP ((size_t)64 << 20)

void *pat_kept_stage_get(pat_kept_stage *k, size_t need) {
  if (k->cap < need) {
    pat_kept_stage_free(k);
    k->mem = malloc(need);
    k->cap = k->mem ? need : 0;
  }
  return k->mem;
}

void pat_kept_stage_done(pat_kept_stage *k) {
  if (k->cap > PAT_STAGE_KEEP) pat_kept_stage_free(k);
}

void pat_kept_stage_free(pat_kept_stage *k) {
  free(k->mem);
  k->mem = NULL;
  k->cap = 0;
}

int pat_run_block_bytes(const pat_call_args *u, int P, int64_t *bytes) {
  MPI_Count size = 0;
  int rc = MPI_Type_size_x(u->recvtype, &size);
  for (int r = 0; r < P; r++)
    bytes[r] = rc == MPI_SUCCESS ? (int64_t)size * (u->counts && !u->reduce ? u->counts[r] : u->recvcount) : 0;
  return rc;
}

/* bytes[P] where its blocks differ, else NULL. */
static const int64_t *unequal(int P, const int64_t *bytes) {
  for (int r = 1; r < P; r++)
    if (bytes[r] != bytes[0]) return bytes;
  return NULL;
}

static int failed(pat_run *r, int rc) {
  if (rc != MPI_SUCCESS && r->rc == MPI_SUCCESS) r->rc = rc;
  return rc;
}

int pat_run_build_from(pat_run *r, int alg, const pat_build_args *args) {
  r->alg = alg;
  int rc = alg >= PAT_ARED_ALG_BASE ? pat_build_allreduce(alg - PAT_ARED_ALG_BASE, &r->sched, args)
                                    : pat_build(alg, &r->sched, args);
  if (rc != PAT_OK)
    return failed(r, pat_fail(pat_mpi_error(rc), "cannot build the %s schedule: %s", pat_run_alg_name(alg),
                              pat_status_string(rc)));
  r->have_sched = 1;
  r->s = &r->sched;
  /* PAT_SEND_WINDOW: how every all-gather runs, whatever its algorithm says (a JOB setting) */
  if (alg < PAT_ARED_ALG_BASE && pat_proc.settings.send_window >= 0)
    r->sched.send_window = pat_proc.settings.send_window;
  return MPI_SUCCESS;
}

int pat_run_build_balanced(pat_run *r, const pat_run_where *w, double block, const int64_t *sizes) {
  pat_build_args args = pat_call_build_args(pat_netparams(), w->alg, w->P, w->node, w->rank, NULL, block, 0);
  args.nodes = w->nodes;
  args.block_sizes = sizes;
  return pat_run_build_from(r, w->alg, &args);
}

/* A queued call's schedule for blocks of bytes[P]: an all-reduce's
 * segments are its blocks (bytes[]: the vector's), cut for the call's
 * predicted arrivals (P stamps; NULL: none); unequal all-gather blocks by
 * their own sizes (RELAY). */
static int build(pat_run *r, const pat_run_where *w, const int64_t *bytes, const int64_t *predicted) {
  r->seq = w->seq;
  if (w->alg >= PAT_ARED_ALG_BASE) {
    pat_build_args args = {.P = w->P,
                           .self = w->rank,
                           .arrival = predicted,
                           .block_bytes = bytes[0] / w->P,
                           .node = w->node,
                           .nodes = w->nodes};
    return pat_run_build_from(r, w->alg, &args);
  }
  const int64_t *sizes = unequal(w->P, bytes);
  return pat_run_build_balanced(r, w, sizes ? (double)pat_shape_mean(w->P, bytes) : (double)bytes[0], sizes);
}

void pat_run_borrow(pat_run *r, int alg, const pat_sched *s) {
  r->alg = alg;
  r->s = s;
}

int pat_run_packed_view(const pat_run *r) { return (r->s->flags & (PAT_SCHED_PIECES | PAT_SCHED_ARRIVAL)) != 0; }

/* The route and node map go with every set-up, before the own block is put
 * (its copy to this rank goes through the route). */
static void place(pat_run *r, const pat_run_where *w) {
  r->have_buf = 1;
  r->buf.route = w->route;
  r->buf.node = w->node;
}

int pat_run_typed(pat_run *r, const pat_run_where *w, const pat_call_args *u) {
  int rc = u->counts ? pat_buffers_typed_v(&r->buf, w->comm, w->P, w->rank, u->recvbuf, u->counts, u->displs,
                                           u->recvtype)
                     : pat_buffers_typed(&r->buf, w->comm, w->P, w->rank, u->recvbuf, u->recvcount, u->recvtype);
  place(r, w);
  return failed(r, rc);
}

int pat_run_packed(pat_run *r, const pat_run_where *w, int64_t block, const int64_t *shape, pat_kept_stage *kept,
                   const pat_call_args *u) {
  size_t total = 0;
  int rc = pat_buffers_packed_shape(&r->buf, w->comm, w->P, w->rank, (size_t)block, shape, &total);
  place(r, w);
  if (rc != MPI_SUCCESS) return failed(r, pat_fail(rc, "cannot set up the packed blocks"));
  char *stage = kept ? pat_kept_stage_get(kept, total + 1) : (r->stage = malloc(total + 1));
  if (!stage) return failed(r, pat_fail(MPI_ERR_NO_MEM, "cannot allocate %zu bytes", total));
  r->buf.stage = stage;
  if (u) rc = pat_buffers_set_user(&r->buf, u->recvbuf, u->recvcount, u->recvtype, u->counts, u->displs);
  return failed(r, rc);
}

int pat_run_exec(pat_run *r, const pat_run_where *w, int own_held, int64_t nap_ns) {
  int rc = pat_exec_init(&r->exec, r->s, w->rank, &r->buf);
  if (rc != MPI_SUCCESS) return failed(r, rc);
  r->have_exec = 1;
  r->exec.tag_gen = w->tag_gen;
  r->exec.own_held = own_held;
  r->exec.nap_ns = nap_ns;
  r->exec.unpaced = w->unpaced;
  if (pat_timeline_on()) rc = pat_exec_record(&r->exec); /* its ops' times from their posts on */
  return failed(r, rc);
}

int pat_run_put_own(pat_run *r, const pat_call_args *u) {
  r->in_place = u->sendbuf == MPI_IN_PLACE;
  int rc = u->reduce ? pat_reduce_put_own(&r->red, &r->buf, u->sendbuf)
                     : pat_buffers_put_own(&r->buf, u->sendbuf, u->sendcount, u->sendtype);
  if (r->have_exec) r->exec.own_held = 1; /* its sends may go from the next step on */
  return failed(r, rc);
}

int pat_run_finish(pat_run *r) {
  int rc = r->s->nops > 0 ? pat_exec_run(&r->exec) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && r->buf.packed) rc = pat_buffers_unpack(&r->buf, r->in_place);
  return failed(r, rc);
}

int pat_run_start(pat_run *r, const pat_run_where *w, const int64_t *bytes, const pat_call_args *u) {
  int rc = build(r, w, bytes, u->predicted);
  if (rc == MPI_SUCCESS && u->reduce) { /* the vector in recvbuf is the accumulator (exec/reduce.h) */
    r->have_red = 1;
    rc = pat_reduce_init(&r->red, &r->buf, w->comm, w->P, w->rank, u->recvbuf, u->recvcount, u->recvtype, u->op);
    place(r, w);
  } else if (rc == MPI_SUCCESS) {
    rc = pat_run_packed_view(r) ? pat_run_packed(r, w, bytes[0], unequal(w->P, bytes), NULL, u) : pat_run_typed(r, w, u);
  }
  if (rc == MPI_SUCCESS) rc = pat_run_put_own(r, u); /* own block in place before the first step */
  if (rc == MPI_SUCCESS) rc = pat_run_exec(r, w, 1, 0);
  return failed(r, rc);
}

int pat_run_start_ahead(pat_run *r, const pat_run_where *w, const int64_t *bytes) {
  int rc = build(r, w, bytes, 0);
  if (rc == MPI_SUCCESS) rc = pat_run_packed(r, w, bytes[0], unequal(w->P, bytes), NULL, NULL);
  if (rc == MPI_SUCCESS) rc = pat_run_exec(r, w, 0, 0);
  r->awaiting_call = 1;
  return failed(r, rc);
}

int pat_run_adopt(pat_run *r, const pat_call_args *u) {
  r->awaiting_call = 0;
  if (r->rc != MPI_SUCCESS) return r->rc;
  int rc = pat_buffers_set_user(&r->buf, u->recvbuf, u->recvcount, u->recvtype, u->counts, u->displs);
  if (rc == MPI_SUCCESS) rc = pat_run_put_own(r, u);
  return failed(r, rc);
}

void pat_run_abandon(pat_run *r, int rc) {
  failed(r, rc);
  if (!r->have_exec) return;
  pat_exec_cancel(&r->exec);
  if (pat_exec_take_pending(&r->exec, &r->pending, &r->npending) != MPI_SUCCESS) {
    r->npending = 0; /* no memory to keep them: pat_exec_free waits for them */
    r->pending = NULL;
  }
}

int pat_run_step(pat_run *r) {
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
      pat_run_abandon(r, e->error);
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
      pat_run_abandon(r, rc);
      return r->npending == 0;
    }
    if (!done || r->awaiting_call) return 0;
  }
}

void pat_run_release(pat_run *r) {
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
