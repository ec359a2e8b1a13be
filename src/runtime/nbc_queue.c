/* The non-blocking all-gathers' queue and their progress (see nbc_queue.h). */
#include "runtime/nbc_queue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/algorithms.h"
#include "decide/nbc_choice.h"
#include "exec/executor.h"
#include "pat/clock.h"
#include "runtime/channels.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/nbc_stamps.h"
#include "runtime/run.h"
#include "runtime/process.h"
#include "runtime/report.h"
#include "runtime/report_nbc.h"
#include "runtime/round_trace.h"
#include "runtime/timeline.h"
#include "runtime/wait_nap.h"
#include "runtime/wakeup.h"

typedef struct pat_nbc_context nbc_comm;

typedef struct nbc_op {
  struct nbc_op *next; /* in its context's queue, in posting order */
  nbc_comm *ctx;
  int P, rank;   /* its communicator's (the timeline's and the report's, which may come after ctx went) */
  long long seq; /* the call's number on its communicator */
  int alg;
  /* the call's arguments; derived types are duplicates (the application may free its own meanwhile),
   * an all-gatherv's counts and displs a copy (one allocation, counts) */
  pat_call_args u;
  int *counts;
  int64_t *predicted; /* an all-reduce's predicted arrivals, a copy (P), or NULL */
  int64_t *bytes; /* every block's bytes (P) */
  int ahead;      /* its blocks are the previous call's: a run may have started ahead of it (run.h) */
  pat_run *run; /* under nbc_lock; NULL until started (by its posting thread, or the background thread) */
  int run_done;  /* its run finished (its stamps may still be on their way) */
  int finished;  /* its run finished in its posting thread's first step: the pass only completes it */
  /* auto's measured choice (decide/nbc_choice.h): its candidate, its stamps, when it finished here */
  int measured, cand, cls;
  pat_nbc_stamps stamps;
  int64_t t_end;
  /* what the application's request sees */
  MPI_Request greq;
  int rc;   /* set before MPI_Grequest_complete, read by the query function */
  int refs; /* the background thread's and MPI's (free function): the last one frees */
  /* PAT_TIMELINE (tracing) and PAT_REPORT (t_post set): the call's times
   * on the common clock; its op lines, formatted before its executor goes,
   * written with its header by the free function (the application's
   * thread, after its wait) */
  int tracing;
  struct nbc_op *deferred_next; /* in deferred: freed inside the background thread's pass */
  int64_t t_post, t_start, t_done, t_waited;
  long long trace_id, trace_bytes;
  char *trace_ops;
} nbc_op;

/* The non-blocking part of a communicator's one context (comm.h), made at its first call here. */
struct pat_nbc_context {
  pat_comm_state *cs;    /* the context it belongs to: shape, world ranks, node map, lifetime */
  /* Where its messages go (channels.h): this process's channel (-1: none was free), every
   * rank's once agree_req (an all-gather on the communicator, posted with the first call)
   * completed, and the communicator of each rank's channel (the route, with cs->world) */
  int channel;
  int *channels;
  MPI_Request agree_req;
  MPI_Comm *send_comm;
  pat_route route;
  int failed; /* a rank had no channel: every call fails with this error (the same on every rank) */
  int own;       /* the communicator is libpat's own (a persistent call's copy): messages go on it, no channel */
  int free_user; /* ... which the background thread frees once its calls are done (pat_nbc_free_own_comm) */
  long long posted; /* calls posted (the posting threads, under nbc_lock) */
  nbc_op *head, *tail;
  /* the last posted call's algorithm and blocks (sig, P entries; sig_alg -1: none yet), under nbc_lock */
  int sig_alg;
  int64_t *sig;
  int hint_alg;       /* what a measured call's next one will run (measured_done): what to start ahead, -1: the last call's */
  pat_run *pre;       /* a run started ahead of call number `posted`, or NULL */
  pat_run *cancelled; /* runs given up, until MPI lets their requests go */
  /* auto's measured calls (the background thread's, or the posting thread's under nbc_lock): the
   * samples every rank holds alike, per size class, and this rank's time of the last one (-1: none),
   * its candidate and class */
  pat_nbc_choice choice[PAT_NBC_CLASSES];
  int64_t took_ns;
  int took_cand, took_cls;
};

/* A request whose completion is signalled (pat_nbc_watch). */
typedef struct watch {
  struct watch *next;
  MPI_Request request;
  MPI_Comm signal_comm;
  int tag;
  pat_round_trace *trace; /* PAT_TIMELINE: the persistent start's, or NULL */
  const char *what;
} watch;

static pthread_mutex_t nbc_lock = PTHREAD_MUTEX_INITIALIZER;
static watch *watches;     /* under nbc_lock */
static int watching;       /* atomic: watches is not empty (the pass's end skips the lock while 0) */
static long long queued, completed, completed_by[PAT_ALG_COUNT]; /* atomic */
static long long ahead_started, ahead_adopted;                   /* atomic */
static long long signalled;                                      /* atomic: persistent starts signalled */
static long long traced_calls;      /* atomic: the calls' numbers in the timeline */
/* A pass holds nbc_lock: a free function it causes (its MPI_Test of a
 * watched request) leaves the timeline write to the end of the pass, in
 * deferred (the passing thread's: the background thread's, or a blocking
 * call's, pat_nbc_wait). */
static _Thread_local int in_locked_pass;
static _Thread_local nbc_op *deferred;

long long pat_nbc_queued_calls(void) { return __atomic_load_n(&queued, __ATOMIC_RELAXED); }
long long pat_nbc_completed_calls(void) { return __atomic_load_n(&completed, __ATOMIC_RELAXED); }
long long pat_nbc_signalled(void) { return __atomic_load_n(&signalled, __ATOMIC_RELAXED); }
void pat_nbc_count_signal(void) { __atomic_fetch_add(&signalled, 1, __ATOMIC_RELAXED); }
long long pat_nbc_ahead_started(void) { return __atomic_load_n(&ahead_started, __ATOMIC_RELAXED); }
long long pat_nbc_ahead_adopted(void) { return __atomic_load_n(&ahead_adopted, __ATOMIC_RELAXED); }
long long pat_nbc_completed_by(int alg) {
  return alg >= 0 && alg < PAT_ALG_COUNT ? __atomic_load_n(&completed_by[alg], __ATOMIC_RELAXED) : 0;
}

int pat_nbc_runs_mpi_own(void) { return !pat_proc.background || pat_proc.alg == PAT_ALG_NATIVE; }

/* ---- MPI's callbacks: no lock ---- */

static void op_release(nbc_op *op) {
  if (__atomic_sub_fetch(&op->refs, 1, __ATOMIC_ACQ_REL) == 0) free(op);
}

static int query_fn(void *extra, MPI_Status *status) {
  nbc_op *op = extra;
  if (op->trace_ops && !op->t_waited) op->t_waited = pat_clock_global_ns(); /* the application's wait or test */
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return __atomic_load_n(&op->rc, __ATOMIC_ACQUIRE);
}

/* The call's timeline, complete: header and op lines (one record). */
static void write_trace(nbc_op *op) {
  pat_timeline_record r;
  FILE *f = pat_timeline_begin(&r);
  if (f) {
    fprintf(f, "nbc %lld alg %s rank %d P %d bytes %lld post %lld start %lld done %lld waited %lld\n", op->trace_id,
            pat_run_alg_name(op->alg), op->rank, op->P, op->trace_bytes, (long long)op->t_post,
            (long long)op->t_start, (long long)op->t_done, (long long)op->t_waited);
    fputs(op->trace_ops, f);
    pat_timeline_end(&r);
  }
  free(op->trace_ops);
  op->trace_ops = NULL;
}

static int free_fn(void *extra) {
  nbc_op *op = extra;
  if (op->trace_ops && in_locked_pass) { /* MPI's reference kept until then */
    op->deferred_next = deferred;
    deferred = op;
    return MPI_SUCCESS;
  }
  if (op->trace_ops) write_trace(op); /* set before MPI_Grequest_complete, which came before this */
  op_release(extra);
  return MPI_SUCCESS;
}

/* MPI lets no collective be cancelled (erroneous): the call goes on, and
 * MPI_Cancel returns the error, raised on MPI_COMM_WORLD's handler by MPI
 * itself, as MPI's own non-blocking all-gather answers (Open MPI 4.1). */
static int cancel_fn(void *extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_ERR_REQUEST;
}

/* ---- the posting thread ---- */

static int is_named(MPI_Datatype t) {
  int ni, na, nt, combiner;
  return MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

int pat_nbc_keep_type(MPI_Datatype t, MPI_Datatype *kept) {
  if (t == MPI_DATATYPE_NULL || is_named(t)) {
    *kept = t;
    return MPI_SUCCESS;
  }
  return MPI_Type_dup(t, kept);
}

void pat_nbc_drop_type(MPI_Datatype *t) {
  if (*t != MPI_DATATYPE_NULL && !is_named(*t)) MPI_Type_free(t);
  *t = MPI_DATATYPE_NULL;
}

static void free_context(nbc_comm *ctx) {
  pat_channel_give(ctx->channel);
  free(ctx->channels);
  free(ctx->send_comm);
  free(ctx->sig);
  free(ctx);
}

/* No call comes any more: the application freed the communicator, or
 * libpat frees its own (pat_nbc_free_own_comm). */
static int closed(const nbc_comm *ctx) { return ctx->free_user || atomic_load(&ctx->cs->freed); }

/* The non-blocking part of cs, made at its first call: no communicator is
 * made (channels.h); the channel numbers go round in an all-gather posted
 * here, in the application's call, so in the order MPI requires of every
 * collective on the communicator, whatever the application has outstanding
 * on it.  Under nbc_lock. */
static int make_context(pat_comm_state *cs, int own, nbc_comm **out) {
  int P = cs->base.P;
  nbc_comm *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return MPI_ERR_NO_MEM;
  ctx->cs = cs;
  ctx->channel = -1;
  ctx->agree_req = MPI_REQUEST_NULL;
  ctx->sig_alg = ctx->hint_alg = -1;
  ctx->own = own;
  for (int c = 0; c < PAT_NBC_CLASSES; c++) pat_nbc_choice_init(&ctx->choice[c]);
  ctx->took_ns = -1;
  ctx->took_cand = ctx->took_cls = -1;
  int rc = MPI_SUCCESS;
  if (!(ctx->sig = malloc((size_t)P * sizeof *ctx->sig)) ||
      !(ctx->channels = malloc((size_t)P * sizeof *ctx->channels)) ||
      !(ctx->send_comm = malloc((size_t)P * sizeof *ctx->send_comm)))
    rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && !own && cs->outside) rc = MPI_ERR_COMM; /* pat_nbc_alg chose MPI's own */
  if (rc == MPI_SUCCESS && !own) {
    ctx->channel = pat_channel_take(); /* -1 goes round too: the context fails on every rank */
    /* PMPI: under libpat_mpi, MPI_Iallgather is libpat's */
    rc = PMPI_Iallgather(&ctx->channel, 1, MPI_INT, ctx->channels, 1, MPI_INT, cs->base.user, &ctx->agree_req);
  }
  if (rc != MPI_SUCCESS) {
    free_context(ctx);
    return rc;
  }
  atomic_store(&cs->nbc, ctx); /* the background thread's pass visits it from now on (comm.h) */
  *out = ctx;
  return MPI_SUCCESS;
}

/* comm's non-blocking part, made at its first call (its context too, where
 * it has none). */
static int context_of(MPI_Comm comm, int own, nbc_comm **out) {
  pat_comm_state *cs;
  int rc = pat_comm_posted(comm, &cs);
  if (rc != MPI_SUCCESS) return rc;
  pthread_mutex_lock(&nbc_lock);
  *out = atomic_load(&cs->nbc);
  if (!*out) rc = make_context(cs, own, out);
  pthread_mutex_unlock(&nbc_lock);
  if (rc == MPI_SUCCESS) pat_wakeup_ring(); /* the agreement to complete */
  return rc;
}

int pat_nbc_own_comm(MPI_Comm comm) {
  nbc_comm *ctx;
  return context_of(comm, 1, &ctx);
}

void pat_nbc_free_own_comm(MPI_Comm *comm) {
  pat_comm_state *cs = pat_comm_find(*comm);
  pthread_mutex_lock(&nbc_lock);
  nbc_comm *ctx = cs ? atomic_load(&cs->nbc) : NULL;
  if (ctx) ctx->free_user = 1; /* no call comes any more: the background thread frees it once done */
  pthread_mutex_unlock(&nbc_lock);
  if (!ctx) {
    MPI_Comm_free(comm);
    return;
  }
  *comm = MPI_COMM_NULL;
  pat_wakeup_ring();
}

int pat_nbc_routable(MPI_Comm comm, int P) {
  pat_comm_state *cs = pat_comm_find(comm);
  if (cs) return !cs->outside;
  int *world = malloc((size_t)P * sizeof *world);
  int ok = world && pat_comm_world_ranks(comm, P, world) == MPI_SUCCESS;
  for (int r = 0; ok && r < P; r++) ok = world[r] != MPI_UNDEFINED;
  free(world);
  return ok;
}

int pat_nbc_node_count(MPI_Comm comm) {
  pat_comm_state *cs = pat_comm_find(comm);
  if (!cs) return pat_comm_node_count(comm);
  return cs->node ? cs->nodes.H : 0; /* as pat_comm_node_count: 0 without a node map */
}

static void free_op_args(nbc_op *op) {
  pat_nbc_drop_type(&op->u.sendtype);
  pat_nbc_drop_type(&op->u.recvtype);
  free(op->counts);
  op->counts = NULL;
  op->u.counts = op->u.displs = NULL;
  free(op->bytes);
  op->bytes = NULL;
  free(op->predicted);
  op->predicted = NULL;
  op->u.predicted = NULL;
}

static int copy_args(nbc_op *op, const pat_nbc_call *c) {
  op->u = c->u;
  op->u.sendtype = op->u.recvtype = MPI_DATATYPE_NULL;
  op->u.counts = op->u.displs = NULL;
  int rc = c->u.sendbuf == MPI_IN_PLACE ? MPI_SUCCESS : pat_nbc_keep_type(c->u.sendtype, &op->u.sendtype);
  if (rc == MPI_SUCCESS) rc = pat_nbc_keep_type(c->u.recvtype, &op->u.recvtype);
  if (rc == MPI_SUCCESS && c->u.counts) {
    op->counts = malloc(2 * (size_t)c->P * sizeof *op->counts);
    if (!op->counts) rc = MPI_ERR_NO_MEM;
    else {
      memcpy(op->counts, c->u.counts, (size_t)c->P * sizeof *op->counts);
      memcpy(op->counts + c->P, c->u.displs, (size_t)c->P * sizeof *op->counts);
      op->u.counts = op->counts;
      op->u.displs = op->counts + c->P;
    }
  }
  if (rc == MPI_SUCCESS && c->u.predicted) {
    if (!(op->predicted = malloc((size_t)c->P * sizeof *op->predicted))) rc = MPI_ERR_NO_MEM;
    else memcpy(op->predicted, c->u.predicted, (size_t)c->P * sizeof *op->predicted);
    op->u.predicted = op->predicted;
  }
  if (rc == MPI_SUCCESS && !(op->bytes = malloc((size_t)c->P * sizeof *op->bytes))) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = pat_run_block_bytes(&op->u, c->P, op->bytes);
  if (rc != MPI_SUCCESS) free_op_args(op);
  return rc;
}

/* Call op, next on its communicator: can a run have started ahead of it?
 * Where its algorithm runs ahead and its blocks are the last call's
 * (MPI: the same on every rank, so every rank answers alike).  Under nbc_lock. */
static void take_number(nbc_comm *ctx, nbc_op *op) {
  op->seq = ctx->posted++;
  size_t sig_bytes = (size_t)ctx->cs->base.P * sizeof *ctx->sig;
  op->ahead = pat_run_plans_ahead(op->alg) && ctx->sig_alg == op->alg && !memcmp(ctx->sig, op->bytes, sig_bytes);
  ctx->sig_alg = op->alg;
  memcpy(ctx->sig, op->bytes, sig_bytes);
  if (!op->measured) ctx->hint_alg = -1; /* a measured call's choice is for measured calls */
}

static void start_op(nbc_op *op);
static int step_op(nbc_op *op);

int pat_nbc_post(const pat_nbc_call *c, MPI_Request *request) {
  nbc_op *op = calloc(1, sizeof *op);
  if (!op) return pat_fail(MPI_ERR_NO_MEM, "out of memory");
  op->refs = 2;
  op->alg = c->alg;
  op->measured = c->measured;
  op->tracing = pat_timeline_on();
  if (op->tracing || pat_report_on || op->measured) op->t_post = pat_clock_global_ns();
  int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &op->greq);
  if (rc != MPI_SUCCESS) {
    free(op);
    return pat_fail(rc, "cannot start a generalized request");
  }
  *request = op->greq;
  if (!c->moves_data) { /* every rank has nothing to move: done, and no call number taken (all ranks skip it) */
    MPI_Grequest_complete(op->greq);
    op_release(op);
    return MPI_SUCCESS;
  }
  nbc_comm *ctx = NULL;
  rc = copy_args(op, c);
  if (rc == MPI_SUCCESS) rc = context_of(c->u.comm, 0, &ctx);
  if (rc != MPI_SUCCESS) {
    free_op_args(op);
    op->rc = rc;
    MPI_Grequest_complete(op->greq); /* the request exists: the application waits for it and frees it */
    op_release(op);
    return pat_fail(rc, "cannot queue the call");
  }
  op->ctx = ctx;
  op->P = ctx->cs->base.P;
  op->rank = ctx->cs->base.rank;
  if (op->tracing) op->trace_id = __atomic_fetch_add(&traced_calls, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&nbc_lock);
  take_number(ctx, op);
  if (ctx->tail)
    ctx->tail->next = op;
  else
    ctx->head = op;
  ctx->tail = op;
  /* nothing before it: its run starts here and posts its first messages now, as MPI's own call
   * would, rather than at the background thread's next pass (on a loaded node, a wake-up later) */
  if (ctx->head == op && ctx->agree_req == MPI_REQUEST_NULL && !ctx->failed) {
    start_op(op);
    op->finished = step_op(op);
  }
  pthread_mutex_unlock(&nbc_lock);
  __atomic_add_fetch(&queued, 1, __ATOMIC_RELAXED);
  pat_wakeup_ring();
  return MPI_SUCCESS;
}

int pat_nbc_post_mpi_own(const pat_call_args *c, MPI_Request *request) {
  /* PMPI: under libpat_mpi, MPI_Iallgather(v) is libpat's */
  return c->gatherv ? PMPI_Iallgatherv(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->counts, c->displs,
                                       c->recvtype, c->comm, request)
                    : PMPI_Iallgather(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype,
                                      c->comm, request);
}

int pat_nbc_watch(MPI_Request request, MPI_Comm signal_comm, int tag, pat_round_trace *trace, const char *what) {
  watch *w = malloc(sizeof *w);
  if (!w) {
    free(trace);
    return MPI_ERR_NO_MEM;
  }
  *w = (watch){.request = request, .signal_comm = signal_comm, .tag = tag, .trace = trace, .what = what};
  pthread_mutex_lock(&nbc_lock);
  w->next = watches;
  watches = w;
  __atomic_store_n(&watching, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&nbc_lock);
  pat_wakeup_ring();
  return MPI_SUCCESS;
}

/* comm's context, where it has one (under nbc_lock). */
static nbc_comm *context_found(MPI_Comm comm) {
  pat_comm_state *cs = pat_comm_find(comm);
  return cs ? atomic_load(&cs->nbc) : NULL;
}

int pat_nbc_held(MPI_Comm own) {
  pthread_mutex_lock(&nbc_lock);
  nbc_comm *ctx = context_found(own);
  int held = ctx && ctx->pre && ctx->pre->have_exec ? pat_exec_blocks_received(&ctx->pre->exec) : 0;
  pthread_mutex_unlock(&nbc_lock);
  return held;
}

/* ---- the background thread ---- */

/* Signal the watched requests that completed; 1 while some are left.
 * They go to *traced, their traces to be written with no lock held. */
static int progress_watches(watch **traced) {
  for (watch **link = &watches; *link;) {
    watch *w = *link;
    int flag = 0;
    /* a failed call completes too: its error is not carried by the signal (docs/usage.md) */
    if (MPI_Test(&w->request, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) flag = 1;
    if (!flag) {
      link = &w->next;
      continue;
    }
    if (w->trace) w->trace->done = pat_clock_global_ns();
    MPI_Request sent;
    static const char nothing = 0;
    int self = 0;
    MPI_Comm_rank(w->signal_comm, &self);
    pat_nbc_count_signal(); /* before the signal, as completed (below) */
    if (MPI_Isend(&nothing, 0, MPI_BYTE, self, w->tag, w->signal_comm, &sent) == MPI_SUCCESS)
      PMPI_Request_free(&sent); /* PMPI: libpat_mpi takes MPI_Request_free over; to oneself, empty: it goes at once */
    *link = w->next;
    if (w->trace) {
      w->trace->signal = pat_clock_global_ns();
      pat_report_nbc_add("persistent", w->what, w->trace->P, w->trace->bytes, w->trace->done - w->trace->start);
    }
    w->next = *traced;
    *traced = w;
  }
  return watches != NULL;
}

/* The timelines of calls freed during a locked pass (free_fn). */
static void write_deferred(void) {
  while (deferred) {
    nbc_op *op = deferred;
    deferred = op->deferred_next;
    write_trace(op);
    op_release(op);
  }
}

/* One pass over the watched requests; 1 while some are left. */
static int pass_watches(void) {
  watch *traced = NULL;
  pthread_mutex_lock(&nbc_lock);
  in_locked_pass = 1;
  int busy = watches && progress_watches(&traced);
  if (!watches) __atomic_store_n(&watching, 0, __ATOMIC_RELEASE);
  in_locked_pass = 0;
  pthread_mutex_unlock(&nbc_lock);
  write_deferred();
  while (traced) { /* a persistent start's line: one write per round, after its signal */
    watch *w = traced;
    traced = w->next;
    if (w->trace && pat_timeline_on()) pat_round_trace_write(w->trace, w->what);
    free(w->trace);
    free(w);
  }
  return busy;
}

/* Every rank's channel is known (the route is set), or the context failed. */
static int channels_agreed(nbc_comm *ctx) {
  if (ctx->agree_req == MPI_REQUEST_NULL) return 1;
  int flag = 0, rc = MPI_Test(&ctx->agree_req, &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    ctx->failed = rc;
    ctx->agree_req = MPI_REQUEST_NULL;
    return 1;
  }
  if (!flag) return 0;
  for (int r = 0; r < ctx->cs->base.P; r++) {
    ctx->send_comm[r] = pat_channel_comm(ctx->channels[r]);
    if (ctx->send_comm[r] == MPI_COMM_NULL) ctx->failed = MPI_ERR_OTHER;
  }
  /* printed whatever PAT_VERBOSE says: the calls' error alone would not tell the application why */
  if (ctx->failed && ctx->cs->base.rank == 0)
    fprintf(stderr, "libpat: a rank of a communicator holds all of its channels (%d here: one per communicator with "
            "libpat's non-blocking calls, kept until the communicator is freed; PAT_CHANNELS): that communicator's "
            "non-blocking all-gathers fail\n", pat_channels_count());
  ctx->route = (pat_route){.rank = ctx->cs->world, .comm = ctx->send_comm};
  return 1;
}

/* The run started ahead is not wanted: its requests cancelled (no rank
 * sends into it), freed once MPI lets them go. */
static void give_up_ahead(nbc_comm *ctx) {
  pat_run_abandon(ctx->pre, MPI_ERR_OTHER);
  ctx->pre->next = ctx->cancelled;
  ctx->cancelled = ctx->pre;
  ctx->pre = NULL;
}

/* Call s's tag generation: s mod NBC_GENS, and the generations above for a
 * call that can run ahead (run.h), so that a run given up shares no tag
 * with the call it was for. */
#define NBC_GENS (PAT_TAG_GENS / 2)
static int tag_gen(long long seq, int ahead) { return (int)(seq % NBC_GENS) + (ahead ? NBC_GENS : 0); }

static pat_run_where where(const nbc_comm *ctx, long long seq, int ahead, int alg) {
  const pat_comm_base *b = &ctx->cs->base;
  return (pat_run_where){.comm = ctx->own ? b->user : pat_channel_comm(ctx->channel),
                         .route = ctx->own ? NULL : &ctx->route,
                         .tag_gen = tag_gen(seq, ahead),
                         .P = b->P,
                         .rank = b->rank,
                         .node = b->node,
                         .nodes = b->nodes,
                         .seq = seq,
                         .alg = alg,
                         /* a persistent call's rounds forward at once, as its prefetching schedule did: paced,
                          * its RELAY rounds were 5% slower at P = 8, 1M floats, starts spread over 100 ms */
                         .unpaced = ctx->own};
}

/* Start op's run: the one started ahead for it, where there is one and
 * its blocks are that run's; else a run of its own, on the communicator
 * for calls that can run ahead where it is one (the other ranks may have
 * started theirs ahead), and a run started ahead for it is given up (its
 * blocks differ, on every rank alike: no rank sends into it). */
static void start_op(nbc_op *op) {
  nbc_comm *ctx = op->ctx;
  if (op->measured) { /* every earlier call of ctx is done here: its samples are in (progress_context) */
    long long total = 0;
    for (int r = 0; r < op->P; r++) total += op->bytes[r];
    op->cls = pat_size_class(total, PAT_NBC_CLASSES);
    op->cand = pat_nbc_choice_take(&ctx->choice[op->cls]);
    op->alg = op->cand == PAT_NBC_AWARE ? PAT_ALG_RELAY : PAT_ALG_DIRECT;
    op->ahead = op->ahead && pat_run_plans_ahead(op->alg);
  }
  pat_run_where w = where(ctx, op->seq, op->ahead, op->alg); /* the run's (a run started ahead had it too) */
  if (op->ahead && ctx->pre && ctx->pre->seq == op->seq) {
    op->run = ctx->pre;
    ctx->pre = NULL;
    pat_run_adopt(op->run, &op->u);
    __atomic_add_fetch(&ahead_adopted, 1, __ATOMIC_RELAXED);
  } else {
    if (ctx->pre && ctx->pre->seq <= op->seq) give_up_ahead(ctx);
    op->run = calloc(1, sizeof *op->run);
    if (!op->run) {
      op->rc = MPI_ERR_NO_MEM;
      return;
    }
    pat_run_start(op->run, &w, op->bytes, &op->u);
  }
  if (op->measured) {
    int rc = pat_nbc_stamps_post(&op->stamps, &w, op->t_post, ctx->took_ns);
    if (rc != MPI_SUCCESS && op->rc == MPI_SUCCESS) op->rc = rc;
  }
  if (op->t_post) {
    op->t_start = pat_clock_global_ns();
    op->trace_bytes = (long long)op->bytes[ctx->cs->base.rank]; /* its run records its ops (run.h) */
  }
}

/* Progress one call; 1 once it is finished (op->rc its result). */
static int step_op(nbc_op *op) {
  if (op->finished || !op->run) return 1; /* no memory for its run: op->rc says so */
  if (!op->run_done) {
    if (!pat_run_step(op->run)) return 0;
    op->run_done = 1;
    if (op->rc == MPI_SUCCESS) op->rc = op->run->rc;
  }
  if (op->measured && !pat_nbc_stamps_test(&op->stamps, &op->rc)) return 0;
  if (op->measured) op->t_end = pat_clock_global_ns();
  return 1;
}

/* A measured call finished here: the samples it brought (every rank's time
 * of the measured call before it) go to the choice, alike on every rank,
 * and what the next one will run decides whether a run starts ahead of it. */
static void measured_done(nbc_comm *ctx, nbc_op *op) {
  double took = pat_nbc_stamps_took(&op->stamps);
  if (took >= 0 && ctx->took_cand >= 0) pat_nbc_choice_add(&ctx->choice[ctx->took_cls], ctx->took_cand, took);
  int64_t last_post = pat_nbc_stamps_last_post(&op->stamps);
  ctx->took_ns = op->t_end > last_post ? op->t_end - last_post : 0;
  ctx->took_cand = op->cand;
  ctx->took_cls = op->cls;
  /* the next call's blocks, where a run started ahead serves it, are this one's */
  ctx->hint_alg = pat_nbc_choice_peek(&ctx->choice[op->cls]) == PAT_NBC_AWARE ? PAT_ALG_RELAY : PAT_ALG_DIRECT;
  pat_nbc_stamps_free(&op->stamps);
}

/* The finished call's op lines, kept for free_fn (no memory: no timeline). */
static void trace_ops(nbc_op *op) {
  size_t len = 0;
  char *text = NULL;
  FILE *f = open_memstream(&text, &len);
  if (!f) return;
  pat_timeline_ops(f, "nbcop", op->P, &op->run->exec);
  if (fclose(f) == 0) op->trace_ops = text;
  else free(text);
}

/* Everything but the op itself and its request's result. */
static void release_run(nbc_op *op) {
  if (op->run) {
    pat_run_release(op->run);
    free(op->run);
    op->run = NULL;
  }
  pat_nbc_stamps_free(&op->stamps);
  free_op_args(op);
}

/* Start a run ahead of the next call where the last one's algorithm (or
 * the one a measured call's next one will run: measured_done) runs
 * ahead, nothing is in flight (so the next call's tags are free: call s
 * - NBC_GENS is done) and the application's communicator lives. */
static void maybe_start_ahead(nbc_comm *ctx) {
  int alg = ctx->hint_alg >= 0 ? ctx->hint_alg : ctx->sig_alg;
  if (ctx->failed || ctx->head || ctx->pre || !pat_run_plans_ahead(alg) || closed(ctx)) return;
  pat_run *r = calloc(1, sizeof *r);
  if (!r) return;
  pat_run_where w = where(ctx, ctx->posted, 1, alg);
  pat_run_start_ahead(r, &w, ctx->sig);
  __atomic_add_fetch(&ahead_started, 1, __ATOMIC_RELAXED);
  ctx->pre = r; /* a failed one too: the call it was for gets its error (the other ranks' may be under way) */
}

/* Runs given up: freed once MPI lets their requests go; 1 while some are left. */
static int progress_cancelled(nbc_comm *ctx) {
  for (pat_run **link = &ctx->cancelled; *link;) {
    pat_run *r = *link;
    if (!pat_run_step(r)) {
      link = &r->next;
      continue;
    }
    *link = r->next;
    pat_run_release(r);
    free(r);
  }
  return ctx->cancelled != NULL;
}

/* Progress ctx's calls in order; finished ones go to *done. */
static void progress_context(nbc_comm *ctx, nbc_op **done) {
  if (ctx->pre) pat_run_step(ctx->pre); /* its receives and relays; it ends with its call */
  nbc_op *prev = NULL;
  for (nbc_op *op = ctx->head; op;) {
    nbc_op *next = op->next;
    if (!op->run && op->rc == MPI_SUCCESS && ctx->failed) op->rc = ctx->failed;
    if (!op->run && op->rc == MPI_SUCCESS) {
      /* call s shares its tags with call s - NBC_GENS: that one must be done here; a measured call's
       * choice needs the samples of every call before it */
      if (op->seq >= ctx->head->seq + NBC_GENS || (op->measured && op != ctx->head)) break;
      start_op(op);
    }
    if (step_op(op)) {
      if (op->measured && op->rc == MPI_SUCCESS) measured_done(ctx, op);
      if (prev)
        prev->next = next;
      else
        ctx->head = next;
      if (ctx->tail == op) ctx->tail = prev;
      op->next = *done;
      *done = op;
    } else {
      prev = op;
    }
    op = next;
  }
  maybe_start_ahead(ctx);
}

int pat_nbc_progress_comm(pat_comm_state *cs, pat_nbc_pass *pass) {
  int busy = 0;
  pthread_mutex_lock(&nbc_lock);
  in_locked_pass = 1;
  nbc_comm *ctx = atomic_load(&cs->nbc);
  if (ctx && !channels_agreed(ctx)) {
    busy = 1;
  } else if (ctx) {
    int open = !closed(ctx);
    if (open || ctx->head) progress_context(ctx, &pass->done); /* freed with calls in flight: they finish */
    if (!ctx->head && !open && ctx->pre) give_up_ahead(ctx);
    if (ctx->cancelled) progress_cancelled(ctx);
    if (ctx->head || ctx->pre || ctx->cancelled) busy = 1;
    if (pass->may_free && !ctx->head && !ctx->cancelled && !open && (!ctx->free_user || pass->nfree < 16)) {
      if (ctx->free_user) pass->to_free[pass->nfree++] = cs->base.user; /* its state retires when it is freed */
      free_context(ctx); /* its channel back: no message of its calls is left to arrive */
      atomic_store(&cs->nbc, NULL); /* from now on the state may go (comm.c) */
    }
  }
  in_locked_pass = 0;
  pthread_mutex_unlock(&nbc_lock);
  return busy;
}

int pat_nbc_end_pass(pat_nbc_pass *pass, int signal) {
  for (int i = 0; i < pass->nfree; i++) MPI_Comm_free(&pass->to_free[i]);
  pass->nfree = 0;
  write_deferred();
  while (pass->done) {
    nbc_op *op = pass->done;
    pass->done = op->next;
    if (op->t_post) {
      op->t_done = pat_clock_global_ns();
      pat_report_nbc_add(op->u.reduce ? "all-reduce" : "non-blocking", pat_run_alg_name(op->alg), op->P, op->trace_bytes,
                         op->t_done - op->t_post);
    }
    if (op->tracing && op->run && op->run->have_exec) trace_ops(op);
    release_run(op);
    MPI_Request greq = op->greq;
    int alg = op->alg; /* op may go with its request */
    __atomic_store_n(&op->rc, op->rc, __ATOMIC_RELEASE);
    /* counted before the request completes: a count that moved says its data are in place, and a
     * thread that saw the request complete sees the count moved */
    __atomic_add_fetch(&completed, 1, __ATOMIC_RELAXED);
    if (alg < PAT_ALG_COUNT) __atomic_add_fetch(&completed_by[alg], 1, __ATOMIC_RELAXED);
    MPI_Grequest_complete(greq);
    op_release(op);
  }
  /* after the completions: a persistent round whose call completed in this pass is signalled now */
  return signal && __atomic_load_n(&watching, __ATOMIC_ACQUIRE) && pass_watches();
}

int pat_nbc_wait(pat_comm_state *cs, MPI_Request *request) {
  for (;;) {
    pat_nbc_pass pass = {0}; /* its contexts are the background thread's to free */
    pat_nbc_progress_comm(cs, &pass);
    pat_nbc_end_pass(&pass, 0);
    int done = 0, rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    /* as MPI's own blocking calls do, it spins; where the node has more ranks than CPUs a spinning
     * thread takes the CPU of a rank with work, and it naps (wait_nap.h) */
    int64_t nap_ns = pat_wait_nap_plain_ns();
    if (nap_ns > 0) {
      struct timespec nap = {(time_t)(nap_ns / 1000000000), (long)(nap_ns % 1000000000)};
      nanosleep(&nap, NULL);
    }
  }
}

/* One communicator's part of the shutdown (pat_comm_each). */
static void stop_context(pat_comm_state *cs, void *arg) {
  (void)arg;
  nbc_comm *ctx = atomic_load(&cs->nbc);
  if (!ctx) return;
  /* every rank posted it with the communicator's first call, which came before this collective shutdown */
  if (ctx->agree_req != MPI_REQUEST_NULL) MPI_Wait(&ctx->agree_req, MPI_STATUS_IGNORE);
  while (ctx->head) {
    nbc_op *op = ctx->head;
    ctx->head = op->next;
    if (op->run) pat_run_abandon(op->run, MPI_ERR_OTHER);
    if (op->rc == MPI_SUCCESS) op->rc = MPI_ERR_OTHER;
    release_run(op); /* a stage still under MPI's requests is left to MPI_Finalize */
    MPI_Grequest_complete(op->greq);
    op_release(op);
  }
  if (ctx->pre) give_up_ahead(ctx);
  while (ctx->cancelled) {
    pat_run *r = ctx->cancelled;
    ctx->cancelled = r->next;
    pat_run_release(r);
    free(r);
  }
  MPI_Comm own = ctx->free_user ? cs->base.user : MPI_COMM_NULL;
  free_context(ctx);
  atomic_store(&cs->nbc, NULL);
  if (own != MPI_COMM_NULL) MPI_Comm_free(&own); /* its state retires (comm.c) */
}

/* With the background thread stopped: calls still queued belong to a
 * program that finalizes with requests active (erroneous); they complete
 * with an error, and their contexts are freed. */
void pat_nbc_stop(void) {
  pthread_mutex_lock(&nbc_lock);
  while (watches) { /* requests of persistent calls still in flight: erroneous at finalize, left to MPI */
    watch *w = watches;
    watches = w->next;
    free(w->trace);
    free(w); /* its request is left to MPI_Finalize */
  }
  __atomic_store_n(&watching, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&nbc_lock);
  pat_comm_each(stop_context, NULL);
}
