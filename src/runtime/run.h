/*
 * One run of a schedule, every call form's: the schedule, its buffers
 * (typed on the user's buffer, or packed on a stage), the executor with its
 * tags and nap, and an all-reduce's accumulator.  It is made in the same
 * steps wherever it runs:
 *  - a blocking call runs it to the end in the foreground
 *    (pat_run_finish): a classic schedule kept by the planner, an
 *    arrival-aware one without an exchange, or a plan (plan.h) whose run
 *    the background thread may have started before the call;
 *  - a queued call (nbc_queue.c: non-blocking, persistent) is stepped by
 *    the background thread (pat_run_step).
 * The schedule is built for balanced arrivals unless the caller gives the
 * build arguments (a plan's predicted arrivals).  Arrival-aware schedules
 * and those of pieces run on packed bytes, classic ones on the user's
 * buffer.
 *
 * A schedule planned ahead (PAT_ALGF_PLAN_AHEAD: RELAY, HRELAY) may start
 * before its call is posted, from the blocks of the call before
 * (pat_run_start_ahead): it posts its receives and relays the other ranks'
 * pieces into its stage while this rank still computes, which is what lets
 * a late rank's block go out once and be spread by the others; the call,
 * when it comes with the same blocks, gives it its buffers and its own
 * block (pat_run_adopt).  Its messages have tag generations of their own
 * (nbc_queue.c), so that a run given up (the call's blocks differed) leaves
 * nothing the call could match.
 */
#ifndef PAT_RUN_H
#define PAT_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "algorithms/algorithms.h"
#include "algorithms/allreduce.h"
#include "exec/executor.h"
#include "exec/reduce.h"
#include "runtime/args.h"
#include "runtime/comm_base.h"

/* Where a run goes: the communicator its messages arrive on (a channel of
 * libpat's), the route to every rank, its shape, the call's number and its
 * messages' tag generation. */
typedef struct pat_run_where {
  MPI_Comm comm;
  const pat_route *route;
  int tag_gen;
  int P, rank;
  const int *node;        /* node ids, or NULL: every rank alone */
  const pat_nodes *nodes; /* their map, or NULL */
  long long seq;
  int alg;
  int unpaced; /* its forwards never held by PAT_PACE (a persistent call's rounds) */
} pat_run_where;

/* A blocking call's: its communicator's base, tag generation and algorithm. */
pat_run_where pat_run_where_of(const pat_comm_base *b, int tag_gen, int alg);

/* Packed bytes kept from call to call, up to PAT_STAGE_KEEP: a fresh stage
 * of several MiB per call came from mmap (or from a heap glibc had just
 * trimmed), and the transfers into its untouched pages paid a page fault
 * each, which shows where the CPU carries the network (BENCHMARKS.md,
 * History, 2026-11-25). */
typedef struct pat_kept_stage {
  void *mem;
  size_t cap;
} pat_kept_stage;
/* At least `need` bytes (NULL when out of memory). */
void *pat_kept_stage_get(pat_kept_stage *k, size_t need);
/* After the call that used it: returned to the system beyond PAT_STAGE_KEEP. */
void pat_kept_stage_done(pat_kept_stage *k);
void pat_kept_stage_free(pat_kept_stage *k);

typedef struct pat_run {
  long long seq;
  int alg; /* an all-gather's id, or PAT_ARED_ALG_BASE + an all-reduce's */
  pat_sched sched;     /* built for the run (have_sched) */
  const pat_sched *s;  /* what runs: &sched, or a schedule its owner keeps (pat_run_borrow) */
  pat_buffers buf;
  pat_reduce red; /* an all-reduce's side of buf (exec/reduce.h) */
  int have_red;
  char *stage; /* the packed view's, where no kept stage lends one */
  pat_exec exec;
  int have_sched, have_buf, have_exec;
  int awaiting_call; /* started ahead: buffers and own block come with the call */
  int in_place;      /* the call's own block is in recvbuf already */
  MPI_Request *pending; /* an abandoned run's requests that MPI would not let go */
  int npending;
  int rc;
  struct pat_run *next; /* the owner's lists */
} pat_run;

/* Does algorithm alg run ahead of its call? */
int pat_run_plans_ahead(int alg);
/* The name of alg (an all-gather's or an all-reduce's, as above). */
const char *pat_run_alg_name(int alg);

/* The bytes of every block of a call of P ranks into bytes[P] (an
 * all-reduce's: the whole vector for every rank). */
int pat_run_block_bytes(const pat_call_args *u, int P, int64_t *bytes);

/* The steps that make a run (r zeroed first; on failure r keeps what it
 * holds for pat_run_release).  Its schedule: built from args, or for
 * balanced arrivals as w->alg's all-gather with blocks of `block` bytes, or
 * of sizes[P] where not NULL (`block` their mean), or one its owner keeps
 * (pat_run_borrow); PAT_SEND_WINDOW applies to the ones built here. */
int pat_run_build_from(pat_run *r, int alg, const pat_build_args *args);
int pat_run_build_balanced(pat_run *r, const pat_run_where *w, double block, const int64_t *sizes);
void pat_run_borrow(pat_run *r, int alg, const pat_sched *s);
/* Does its schedule run on packed bytes? */
int pat_run_packed_view(const pat_run *r);
/* Its buffers: typed on the call's (u), or a packed stage for blocks of
 * `block` bytes, or of shape[P] where not NULL (kept: where the stage's
 * memory comes from, NULL: the run's own), whose user side comes with the
 * call (u; NULL: later, pat_run_adopt or the plan's call). */
int pat_run_typed(pat_run *r, const pat_run_where *w, const pat_call_args *u);
int pat_run_packed(pat_run *r, const pat_run_where *w, int64_t block, const int64_t *shape, pat_kept_stage *kept,
                   const pat_call_args *u);
/* Its executor, with w's tags and the foreground's nap (0: none); own_held:
 * this rank's block is in place; PAT_TIMELINE records its ops. */
int pat_run_exec(pat_run *r, const pat_run_where *w, int own_held, int64_t nap_ns);
/* The call's own block into its place (u: the call's arguments). */
int pat_run_put_own(pat_run *r, const pat_call_args *u);
/* In the foreground: the rest of the schedule, and the packed blocks into
 * the user's buffer. */
int pat_run_finish(pat_run *r);

/* A queued call's run: schedule, buffers, own block in place. */
int pat_run_start(pat_run *r, const pat_run_where *w, const int64_t *bytes, const pat_call_args *u);
/* Start a run ahead of its call, for blocks of bytes[P]: receives and relays
 * go, sends of the own block wait for pat_run_adopt. */
int pat_run_start_ahead(pat_run *r, const pat_run_where *w, const int64_t *bytes);
/* The call a run was started ahead for came, with the same blocks. */
int pat_run_adopt(pat_run *r, const pat_call_args *u);

/* Progress without blocking; 1 once finished (done, or given up with
 * nothing of MPI's pending); r->rc is then the result. */
int pat_run_step(pat_run *r);
/* Give the run up: its requests cancelled, those MPI keeps pending until
 * pat_run_step says it is finished. */
void pat_run_abandon(pat_run *r, int rc);
/* Free what the run holds (not r).  A run given up at the shutdown may
 * still have requests pending: its stage is then left to MPI_Finalize. */
void pat_run_release(pat_run *r);

#endif
