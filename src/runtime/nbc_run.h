/*
 * One run of a non-blocking all-gather's schedule (nbc_queue.c owns the
 * calls and their requests; a run is the background thread's only).  The
 * schedule is built for balanced arrivals: a rank's post is its arrival,
 * unknown to the ranks that post before it, and every rank must build the
 * same.  Classic schedules run on the user's buffers (typed view);
 * arrival-aware ones, as the blocking calls run them, on a stage of the
 * run's own (packed view), unpacked into recvbuf when the run is done.
 *
 * A schedule planned ahead (PAT_ALGF_PLAN_AHEAD: RELAY, HRELAY) may start
 * before its call is posted, from the blocks of the call before
 * (pat_nbc_run_start_ahead): it posts its receives and relays the other
 * ranks' pieces into its stage while this rank still computes, which is
 * what lets a late rank's block go out once and be spread by the others;
 * the call, when it comes with the same blocks, gives it its buffers and
 * its own block (pat_nbc_run_adopt).  Its messages have tag generations
 * of their own (nbc_queue.c), so that a run given up (the call's blocks
 * differed) leaves nothing the call could match.
 */
#ifndef PAT_NBC_RUN_H
#define PAT_NBC_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "algorithms/algorithms.h"
#include "algorithms/allreduce.h"
#include "exec/executor.h"
#include "exec/reduce.h"
#include "runtime/args.h"


/* Where a run goes: the communicator its messages arrive on (a channel of
 * libpat's), the route to every rank, its shape, the call's number and its
 * messages' tag generation. */
typedef struct pat_nbc_where {
  MPI_Comm comm;
  const pat_route *route;
  int tag_gen;
  int P, rank;
  const int *node;        /* node ids, or NULL: every rank alone */
  const pat_nodes *nodes; /* their map, or NULL */
  long long seq;
  int alg;
} pat_nbc_where;

typedef struct pat_nbc_run {
  long long seq;
  int alg; /* an all-gather's id, or PAT_ARED_ALG_BASE + an all-reduce's */
  pat_sched sched;
  pat_buffers buf;
  pat_reduce red; /* an all-reduce's side of buf (exec/reduce.h) */
  int have_red;
  char *stage; /* the packed view's */
  pat_exec exec;
  int have_sched, have_buf, have_exec;
  int awaiting_call; /* started ahead: buffers and own block come with the call */
  int in_place;      /* the call's own block is in recvbuf already */
  MPI_Request *pending; /* an abandoned run's requests that MPI would not let go */
  int npending;
  int rc;
  struct pat_nbc_run *next; /* the owner's lists */
} pat_nbc_run;

/* Does algorithm alg run ahead of its call? */
int pat_nbc_run_plans_ahead(int alg);
/* The name of alg (an all-gather's or an all-reduce's, as above). */
const char *pat_nbc_alg_name(int alg);

/* The bytes of every block of a call of P ranks into bytes[P] (an
 * all-reduce's: the whole vector for every rank). */
int pat_nbc_block_bytes(const pat_call_args *u, int P, int64_t *bytes);

/* Start a run of the call (r zeroed by the caller): schedule, buffers, own
 * block in place.  On failure r keeps the error (r->rc) and what it holds
 * for pat_nbc_run_release.  Returns an MPI error code. */
int pat_nbc_run_start(pat_nbc_run *r, const pat_nbc_where *w, const int64_t *bytes, const pat_call_args *u);
/* Start a run ahead of its call, for blocks of bytes[P]: receives and relays
 * go, sends of the own block wait for pat_nbc_run_adopt. */
int pat_nbc_run_start_ahead(pat_nbc_run *r, const pat_nbc_where *w, const int64_t *bytes);
/* The call a run was started ahead for came, with the same blocks. */
int pat_nbc_run_adopt(pat_nbc_run *r, const pat_call_args *u);

/* Progress without blocking; 1 once finished (done, or given up with
 * nothing of MPI's pending); r->rc is then the result. */
int pat_nbc_run_step(pat_nbc_run *r);
/* Give the run up: its requests cancelled, those MPI keeps pending until
 * pat_nbc_run_step says it is finished. */
void pat_nbc_run_abandon(pat_nbc_run *r, int rc);
/* Free what the run holds (not r).  A run given up at the shutdown may
 * still have requests pending: its stage is then left to MPI_Finalize. */
void pat_nbc_run_release(pat_nbc_run *r);

#endif
