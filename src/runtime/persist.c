/*
 * PAT_Allgather_init, PAT_Allgatherv_init, PAT_Allreduce_init,
 * PAT_Start(all), PAT_Request_free, PAT_Cancel: an all-gather(v) or an
 * all-reduce set up once and started many times.
 *
 * A generalized request cannot be restarted, so the application's handle is
 * a persistent request of MPI's own: an empty receive from this process on
 * a duplicate of MPI_COMM_WORLD private to libpat (made by PAT_Init, which
 * is collective), with a tag of its own (MPI_Recv_init).  PAT_Start starts
 * that receive and posts the call as PAT_Iallgather(v) would (nbc.c) on the
 * kept arguments (derived datatypes as duplicates, an all-gatherv's arrays
 * copied, the communicator copied: pat_private_dup, one copy per persistent
 * call); when the call completes, the
 * background thread sends the empty message to this process
 * (nbc_queue.h: pat_nbc_watch), which completes the receive.  So MPI's own
 * MPI_Wait, MPI_Test... complete it, and it stays allocated and inactive
 * afterwards, as a persistent request does.  The handles are known by their
 * values (a registry under persist_lock, a leaf).
 *
 * Rounds chosen from the starts (pat_persist_rounds_apply): under an
 * arrival-aware setting with the background thread, and under auto on a
 * communicator with one rank a node, each start also sends the others its
 * start time (8 bytes on the signals' communicator, with a tag the call's
 * ranks agreed at its set-up), and the round's request completes once the
 * other ranks' times came too; from the last round's times every rank
 * derives the same algorithm for the next round:
 *  - where those starts spread over (P - 1)·tau or more (tau: the largest
 *    block's time between two ranks, from the model's parameters), RELAY,
 *    whose run starts ahead of the start (run.h): a run of it is started as
 *    soon as the round before completed here (pat_nbc_hint), so the other
 *    ranks' blocks come into libpat's stage while this rank computes, and
 *    every rank relays its block through the others: the last rank holds
 *    every other block at its start and ends once its pieces left it,
 *      T_last ~ a_last + alpha + m_last·beta (the bound: model.h,
 *      pat_lower_bound_persistent);
 *  - otherwise DIRECT (whole blocks, sent at the start, as MPI's own
 *    all-gather moves them), or MPI's own non-blocking all-gather under
 *    auto: pieces sent at every start paid only where the starts spread
 *    over more than a few block times (BENCHMARKS.md, Persistent
 *    all-gathers).
 * The first round, and every round at P <= 2, is the second kind.  The
 * application's recvbuf is written only after its start (RELAY's run
 * started ahead receives into its stage).  Every other persistent call
 * posts each start as PAT_Iallgather(v) would.
 *
 * A persistent all-reduce takes what PAT_Iallreduce would run at its
 * set-up (allreduce.h: under auto, a size class's choice that the blocking
 * calls on the communicator made before it), and keeps it: the set-up is a
 * collective call in MPI's order on the application's communicator, so
 * every rank takes the same, where a start's view of the communicator's
 * choices could differ.  Each start posts it on the copy as PAT_Iallreduce
 * would (its schedule on the queue, or MPI's own non-blocking all-reduce,
 * watched as above); a user-defined op is always MPI's own.
 *
 * Why not a duplicate of MPI_COMM_SELF: MPICH 4.0 (ch4) matches a message
 * on a one-process communicator inside the sender's call and marks the
 * receive complete without counting it as progress, and its MPI_Wait
 * (Waitall, Waitany, Waitsome) spins until its progress count moves: a
 * receive completed so by another thread is never noticed, and the wait
 * hangs (MPI_Test sees it).  On a communicator of two processes or more the
 * message takes the device's path, whose completion counts.  With a world
 * of one process every call completes in PAT_Start (one process), but on a
 * communicator made from dynamic processes (docs/usage.md, Limits).
 * MPICH's own persistent all-gathers are no way out: MPICH 4.0.2's gave
 * wrong blocks and crashed once the application freed the datatype after
 * the set-up (as MPI allows), as Open MPI 4.1's MPIX_Allgather_init crashed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "algorithms/allreduce.h"
#include "pat.h"
#include "decide/explore.h"
#include "model/model.h"
#include "pat/clock.h"
#include "runtime/allreduce.h"
#include "runtime/call.h"
#include "runtime/channels.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/netparams.h"
#include "runtime/nbc_queue.h"
#include "runtime/persist.h"
#include "runtime/process.h"
#include "runtime/report.h"
#include "runtime/report_nbc.h"
#include "runtime/round_trace.h"
#include "runtime/timeline.h"

typedef struct persistent persistent;

/* A persistent all-gather's rounds chosen from its starts (above), shared
 * by the call and its round in flight (refs, alive: under persist_lock): a
 * call freed while active still completes its round. */
typedef struct rounds {
  int refs, alive;
  MPI_Comm comm;   /* the call's copy */
  int P, me;
  int *world;      /* every rank's in signal_comm */
  int use_own;     /* auto: a round out of spread is MPI's own */
  double tau_s;    /* the largest block's time between two ranks */
  int64_t *bytes;  /* every block's */
  int moves;       /* a block has bytes (else every round completes at its post, on every rank) */
  int64_t *starts; /* every rank's start of the last round: complete once its request completed */
  int64_t mine;    /* this round's start (the stamps' send buffer) */
  MPI_Request *reqs; /* a round's: its data's, the others' starts, this one's to them */
} rounds;

struct persistent {
  pat_call_args u;        /* the datatypes kept as duplicates; counts and displs copied into arrays; an
                            all-reduce's (u.reduce) datatype in recvtype, count in recvcount */
  int *arrays;           /* an all-gatherv's counts and displs (one allocation), NULL for an all-gather */
  int reduce_alg;        /* an all-reduce's, for every start: PAT_ARED_ALG_BASE + id, -1 MPI's own */
  MPI_Comm comm;        /* libpat's duplicate of the application's, for MPI_Comm_free's sake */
  MPI_Request handle;   /* the application's: the empty receive */
  int tag;
  char signal;          /* the empty receive's buffer */
  rounds *rounds;         /* rounds chosen from the starts, NULL: each start posts PAT_Iallgather(v) */
  long long trace_id, starts; /* PAT_TIMELINE: its number, its starts so far */
  struct persistent *next; /* in the registry */
};

static pthread_mutex_t persist_lock = PTHREAD_MUTEX_INITIALIZER;
static persistent *registry; /* under persist_lock */
static MPI_Comm signal_comm = MPI_COMM_NULL; /* the signals' (pat_persist_start) */
static int signal_rank;                     /* this process's in signal_comm */
static int next_tag;
static long long traced_calls; /* under persist_lock */
static long long rounds_done, spread_starts, own_starts; /* atomic */

long long pat_persist_rounds(void) { return __atomic_load_n(&rounds_done, __ATOMIC_RELAXED); }
long long pat_persist_spread_starts(void) { return __atomic_load_n(&spread_starts, __ATOMIC_RELAXED); }
long long pat_persist_own_starts(void) { return __atomic_load_n(&own_starts, __ATOMIC_RELAXED); }

int pat_persist_rounds_apply(int P) {
  if (P < 2 || !pat_proc.background) return 0;
  int setting = pat_proc.alg;
  return setting == PAT_ALG_AUTO ||
         (setting >= 0 && setting < PAT_ALG_COUNT && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL));
}

static void rounds_drop(rounds *st) { /* under persist_lock */
  if (--st->refs > 0) return;
  free(st->world);
  free(st->bytes);
  free(st->starts);
  free(st->reqs);
  free(st);
}

/* Do the last round's starts spread over (P - 1)·tau or more?  The same on every rank. */
static int spread_of(const rounds *st) {
  return st->P > 2 && st->tau_s > 0 &&
         pat_regime(st->P, st->starts, (st->P - 1) * st->tau_s) == PAT_REGIME_IMBALANCED;
}

/* A round completed here (the background thread, no lock held): a run of
 * the next round's RELAY may start ahead of it. */
static void round_done(void *arg) {
  rounds *st = arg;
  __atomic_add_fetch(&rounds_done, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&persist_lock);
  if (st->alive) pat_nbc_hint(st->comm, spread_of(st) ? PAT_ALG_RELAY : -1); /* persist_lock, then nbc_lock */
  rounds_drop(st);
  pthread_mutex_unlock(&persist_lock);
}

/* Set p's rounds up on its copy (a collective over it: the stamps' tag is agreed). */
static int rounds_make(persistent *p, int P) {
  rounds *st = calloc(1, sizeof *st);
  if (!st) return MPI_ERR_NO_MEM;
  st->refs = st->alive = 1;
  st->comm = p->comm;
  st->P = P;
  st->use_own = pat_proc.alg == PAT_ALG_AUTO;
  MPI_Comm_rank(p->comm, &st->me);
  st->world = malloc((size_t)P * sizeof *st->world);
  st->bytes = malloc((size_t)P * sizeof *st->bytes);
  st->starts = calloc((size_t)P, sizeof *st->starts);
  st->reqs = malloc(2 * (size_t)P * sizeof *st->reqs);
  int ok = st->world && st->bytes && st->starts && st->reqs, rc = MPI_SUCCESS;
  if (ok) rc = pat_comm_world_ranks(p->comm, P, st->world);
  if (ok && rc == MPI_SUCCESS) rc = pat_run_block_bytes(&p->u, P, st->bytes);
  int64_t largest = 0;
  for (int r = 0; ok && rc == MPI_SUCCESS && r < P; r++) largest = st->bytes[r] > largest ? st->bytes[r] : largest;
  st->moves = largest > 0;
  st->tau_s = pat_model_cost(pat_netparams()->dflt.inter, (double)largest, 1.0);
  /* a tag of this call's on every rank: the largest of their next ones (every rank fails alike) */
  pthread_mutex_lock(&persist_lock);
  int mine[2] = {next_tag, !ok || rc != MPI_SUCCESS}, all[2];
  pthread_mutex_unlock(&persist_lock);
  int arc = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, p->comm);
  if (arc == MPI_SUCCESS && all[1] == 0) {
    pthread_mutex_lock(&persist_lock);
    p->tag = all[0];
    if (next_tag <= p->tag) next_tag = p->tag == 32767 ? 0 : p->tag + 1;
    pthread_mutex_unlock(&persist_lock);
    p->rounds = st;
    return MPI_SUCCESS;
  }
  pthread_mutex_lock(&persist_lock);
  rounds_drop(st);
  pthread_mutex_unlock(&persist_lock);
  return arc != MPI_SUCCESS ? arc : rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
}


/* The persistent call whose handle is request, unlinked from the registry if unlink. */
static persistent *find(MPI_Request request, int unlink) {
  pthread_mutex_lock(&persist_lock);
  persistent **link = &registry;
  while (*link && (*link)->handle != request) link = &(*link)->next;
  persistent *p = *link;
  if (p && unlink) *link = p->next;
  pthread_mutex_unlock(&persist_lock);
  return p;
}

static void release(persistent *p) {
  if (p->rounds) { /* a round in flight keeps them until it completed */
    pthread_mutex_lock(&persist_lock);
    p->rounds->alive = 0;
    rounds_drop(p->rounds);
    pthread_mutex_unlock(&persist_lock);
  }
  if (p->handle != MPI_REQUEST_NULL) PMPI_Request_free(&p->handle); /* an active one goes once its signal came */
  pat_nbc_drop_type(&p->u.sendtype);
  pat_nbc_drop_type(&p->u.recvtype);
  if (p->comm != MPI_COMM_NULL) pat_nbc_free_own_comm(&p->comm); /* once a start in flight is done */
  free(p->arrays);
  free(p);
}

/* The checks PAT_Iallgather(v) and PAT_Iallreduce make come at every
 * start; here what the set-up needs.  args: the call's (an all-reduce's
 * sendtype MPI_DATATYPE_NULL, its datatype as recvtype). */
static int make(const pat_call_args *args, MPI_Request *request) {
  const char *name = args->name;
  MPI_Comm comm = args->comm;
  pat_comm_state *cs;
  int inter = 0, P = 0;
  int rc = pat_call_enter(name, comm, request, 1, &cs, &inter);
  if (rc != MPI_SUCCESS) return rc;
  if (inter) return pat_fail(MPI_ERR_COMM, "%s: an inter-communicator is not supported", name);
  const int *counts = args->counts, *displs = args->displs;
  if (counts && (!displs)) return pat_fail(MPI_ERR_ARG, "%s: displs is NULL", name);
  MPI_Comm_size(comm, &P);
  persistent *p = calloc(1, sizeof *p);
  if (!p) return pat_fail(MPI_ERR_NO_MEM, "%s: out of memory", name);
  p->u = *args;
  p->u.comm = MPI_COMM_NULL; /* the application may free its own: the starts go on p->comm */
  p->u.counts = p->u.displs = NULL;
  p->u.sendtype = p->u.recvtype = MPI_DATATYPE_NULL;
  p->comm = MPI_COMM_NULL;
  /* on the application's communicator, before anything of libpat's is made: the same on every rank */
  p->reduce_alg = args->reduce ? pat_allreduce_persistent_alg(comm, args->op, args->recvcount, args->recvtype) : -1;
  rc = args->sendbuf == MPI_IN_PLACE ? MPI_SUCCESS : pat_nbc_keep_type(args->sendtype, &p->u.sendtype);
  if (rc == MPI_SUCCESS) rc = pat_nbc_keep_type(args->recvtype, &p->u.recvtype);
  if (rc == MPI_SUCCESS && counts) {
    p->arrays = malloc(2 * (size_t)P * sizeof *p->arrays);
    if (!p->arrays) rc = MPI_ERR_NO_MEM;
    else {
      memcpy(p->arrays, counts, (size_t)P * sizeof *p->arrays);
      memcpy(p->arrays + P, displs, (size_t)P * sizeof *p->arrays);
      p->u.counts = p->arrays;
      p->u.displs = p->arrays + P;
    }
  }
  /* the application may free its communicator while the persistent call lives (MPI allows it): the
   * call's starts go on a copy of its own, one per persistent call, shared by whichever schedule runs */
  if (rc == MPI_SUCCESS) rc = pat_private_dup(comm, &p->comm);
  pthread_mutex_lock(&persist_lock);
  p->tag = next_tag;
  p->trace_id = traced_calls++;
  next_tag = next_tag == 32767 ? 0 : next_tag + 1; /* a tag per live persistent call (MPI guarantees 32767) */
  pthread_mutex_unlock(&persist_lock);
  p->handle = MPI_REQUEST_NULL;
  /* the same choice on every rank: the setting, the world's node map, the communicator */
  int by_rounds = rc == MPI_SUCCESS && !args->reduce && pat_persist_rounds_apply(P) && pat_nbc_routable(comm, P) &&
                  (pat_proc.alg != PAT_ALG_AUTO || pat_comm_one_rank_per_node(comm));
  if (by_rounds) { /* its arguments cannot change: checked once */
    long long bytes;
    MPI_Count rsize;
    int me = 0;
    MPI_Comm_rank(comm, &me);
    rc = counts ? pat_check_allgatherv(name, args->sendbuf, args->sendcount, args->sendtype, args->recvbuf, counts,
                                       displs, args->recvtype, P, me, &rsize, &bytes)
                : pat_check_allgather(name, args->sendbuf, args->sendcount, args->sendtype, args->recvbuf,
                                      args->recvcount, args->recvtype, &bytes);
    if (rc != MPI_SUCCESS) {
      release(p);
      return rc;
    }
    rc = rounds_make(p, P); /* agrees the tag */
  }
  if (rc == MPI_SUCCESS) rc = MPI_Recv_init(&p->signal, 0, MPI_BYTE, signal_rank, p->tag, signal_comm, &p->handle);
  /* PAT_Iallgather(v)'s and PAT_Iallreduce's context on the copy sends on it directly: no channel taken */
  if (rc == MPI_SUCCESS) rc = pat_nbc_own_comm(p->comm);
  if (rc != MPI_SUCCESS) {
    release(p);
    return pat_fail(rc, "%s: cannot keep the arguments", name);
  }
  pthread_mutex_lock(&persist_lock);
  p->next = registry;
  registry = p;
  pthread_mutex_unlock(&persist_lock);
  *request = p->handle;
  return MPI_SUCCESS;
}

int PAT_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  (void)info;
  pat_call_args args =
      pat_allgather_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "PAT_Allgather_init");
  return make(&args, request);
}

int PAT_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request) {
  (void)info;
  if (!recvcounts) return pat_fail(MPI_ERR_ARG, "PAT_Allgatherv_init: recvcounts is NULL");
  pat_call_args args = pat_allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                           "PAT_Allgatherv_init");
  return make(&args, request);
}

int PAT_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
  (void)info;
  pat_call_args args = {.sendbuf = sendbuf,
                       .sendtype = MPI_DATATYPE_NULL,
                       .recvbuf = recvbuf,
                       .recvcount = count,
                       .recvtype = datatype,
                       .reduce = 1,
                       .op = op,
                       .comm = comm,
                       .name = "PAT_Allreduce_init"};
  return make(&args, request);
}

/* "allreduce-" and each all-reduce's name: what the report and the timeline call its starts. */
static char reduce_names[PAT_ARED_COUNT][48];
static pthread_once_t reduces_named = PTHREAD_ONCE_INIT;
static void name_reduces(void) {
  for (int id = 0; id < PAT_ARED_COUNT; id++)
    snprintf(reduce_names[id], sizeof reduce_names[id], "allreduce-%s", pat_allreduce_algorithms[id].name);
}

/* What a start ran, for the report and the timeline (static: the watch keeps it). */
static const char *ran(const persistent *p) {
  if (p->u.reduce) {
    if (p->reduce_alg < 0) return "allreduce-mpi-own";
    pthread_once(&reduces_named, name_reduces);
    return reduce_names[p->reduce_alg - PAT_ARED_ALG_BASE];
  }
  int alg = pat_nbc_last_alg(); /* what PAT_Iallgather(v) ran, a moment ago */
  return alg == PAT_ALG_NATIVE ? "mpi-own" : pat_algorithms[alg].name;
}

/* p's request completes now: its signal sent here, not by the background
 * thread (the call completed inside PAT_Start, or failed there). */
static void signal_here(const persistent *p) {
  static const char nothing = 0;
  pat_nbc_count_signal();
  MPI_Send(&nothing, 0, MPI_BYTE, signal_rank, p->tag, signal_comm);
}

/* A round chosen from the last one's starts (above): its data (RELAY or
 * DIRECT on the queue, or MPI's own), this rank's start to the others and
 * theirs, all watched; with the background thread only (rounds apply). */
static int start_round(persistent *p, pat_round_trace *trace) {
  rounds *st = p->rounds;
  int spread = p->starts > 0 && spread_of(st);
  int alg = spread ? PAT_ALG_RELAY : st->use_own ? -1 : PAT_ALG_DIRECT;
  p->starts++;
  if (spread) __atomic_add_fetch(&spread_starts, 1, __ATOMIC_RELAXED);
  if (alg < 0) __atomic_add_fetch(&own_starts, 1, __ATOMIC_RELAXED);
  st->mine = pat_clock_global_ns();
  st->starts[st->me] = st->mine;
  pat_nbc_expect(st->comm, alg, st->bytes); /* before the post: whether it runs ahead, alike on every rank */
  MPI_Request *r = st->reqs;
  int n = 1, rc;
  pat_nbc_call q = {.u = p->u, .P = st->P, .alg = alg, .moves_data = st->moves};
  q.u.comm = st->comm;
  rc = alg < 0 ? pat_nbc_post_mpi_own(&q.u, &r[0]) : pat_nbc_post(&q, &r[0]);
  for (int j = 0; j < st->P && rc == MPI_SUCCESS; j++)
    if (j != st->me) rc = MPI_Irecv(&st->starts[j], 1, MPI_INT64_T, st->world[j], p->tag, signal_comm, &r[n++]);
  for (int j = 0; j < st->P && rc == MPI_SUCCESS; j++)
    if (j != st->me) rc = MPI_Isend(&st->mine, 1, MPI_INT64_T, st->world[j], p->tag, signal_comm, &r[n++]);
  if (rc != MPI_SUCCESS) { /* what was posted is left to MPI; the request completes with the error */
    free(trace);
    signal_here(p);
    return pat_fail(rc, "PAT_Start: cannot start the round");
  }
  pthread_mutex_lock(&persist_lock);
  st->refs++; /* the round's */
  pthread_mutex_unlock(&persist_lock);
  rc = pat_nbc_watch(r, n, signal_comm, p->tag, trace, alg < 0 ? "mpi-own" : pat_algorithms[alg].name, round_done, st);
  if (rc != MPI_SUCCESS) { /* no watch: no round_done */
    pthread_mutex_lock(&persist_lock);
    rounds_drop(st);
    pthread_mutex_unlock(&persist_lock);
    signal_here(p);
  }
  return rc;
}

/* Post the call; without the background thread nobody would send the
 * signal, so the call runs to its end here (blocking: docs/usage.md). */
static int start_one(persistent *p) {
  int rc = PMPI_Start(&p->handle);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Start: cannot start the request");
  MPI_Request inner = MPI_REQUEST_NULL;
  /* the timeline's, and the report's start time */
  pat_round_trace *trace = pat_timeline_on() || pat_report_on ? calloc(1, sizeof *trace) : NULL;
  if (trace) {
    trace->start = pat_clock_global_ns();
    trace->id = p->trace_id;
    trace->round = p->starts;
    MPI_Comm_rank(p->comm, &trace->rank);
    MPI_Comm_size(p->comm, &trace->P);
    int type_size = 0;
    MPI_Type_size(p->u.recvtype, &type_size);
    trace->bytes = (long long)type_size * (p->u.counts ? p->u.counts[trace->rank] : p->u.recvcount);
  }
  if (p->rounds) return start_round(p, trace);
  p->starts++;
  const pat_call_args *u = &p->u;
  pat_nbc_starting(1);
  if (u->reduce)
    rc = pat_allreduce_start(u->sendbuf, u->recvbuf, u->recvcount, u->recvtype, u->op, p->comm, p->reduce_alg,
                             &inner);
  else if (u->counts)
    rc = PAT_Iallgatherv(u->sendbuf, u->sendcount, u->sendtype, u->recvbuf, u->counts, u->displs, u->recvtype,
                         p->comm, &inner);
  else
    rc = PAT_Iallgather(u->sendbuf, u->sendcount, u->sendtype, u->recvbuf, u->recvcount, u->recvtype, p->comm,
                        &inner);
  pat_nbc_starting(0);
  /* complete already (one process, nothing to move): signalled here, the thread is not needed */
  int done = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Test(&inner, &done, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && !done && pat_proc.background) {
    rc = pat_nbc_watch(&inner, 1, signal_comm, p->tag, trace, ran(p), NULL, NULL);
    trace = NULL;
  }
  else if (rc == MPI_SUCCESS && !done) rc = MPI_Wait(&inner, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS || done || !pat_proc.background) signal_here(p); /* an error is returned here */
  if (trace && rc == MPI_SUCCESS) { /* complete here (one process, nothing to move) */
    trace->done = trace->signal = pat_clock_global_ns();
    pat_report_nbc_add("persistent", "in-start", trace->P, trace->bytes, trace->done - trace->start);
    if (pat_timeline_on()) pat_round_trace_write(trace, "in-start");
  }
  free(trace); /* handed to the watch, or written */
  return rc;
}

/* MPI_ERR_REQUEST if p's request is active: started, and not yet completed
 * by the application's wait or test.  Its signal may have come already: MPI
 * then gives the handle's status the signal's tag, where an inactive
 * request's is empty (MPI_ANY_TAG).  A second start would post a call
 * that the other ranks may not make, and restart the receive that the
 * first call's signal completes: a later start would complete before its
 * blocks came. */
static int refuse_active(persistent *p, const char *name) {
  int flag = 0;
  MPI_Status st;
  int rc = MPI_Request_get_status(p->handle, &flag, &st);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "%s: cannot read the request's state", name);
  if (!flag || st.MPI_TAG == p->tag)
    return pat_fail(MPI_ERR_REQUEST, "%s: the persistent %s is active", name,
                    p->u.reduce ? "all-reduce" : "all-gather");
  return MPI_SUCCESS;
}

int PAT_Start(MPI_Request *request) {
  if (!request) return pat_fail(MPI_ERR_REQUEST, "PAT_Start: request is NULL");
  persistent *p = pat_proc.initialized ? find(*request, 0) : NULL;
  if (!p) return pat_mpi_own_result(PMPI_Start(request), "MPI_Start"); /* PMPI: under libpat_mpi, MPI_Start is this */
  int rc = refuse_active(p, "PAT_Start");
  return rc == MPI_SUCCESS ? start_one(p) : rc;
}

int PAT_Startall(int count, MPI_Request requests[]) {
  if (count < 0 || (count > 0 && !requests)) return pat_fail(MPI_ERR_ARG, "PAT_Startall: bad arguments");
  int rc = MPI_SUCCESS;
  /* an active one refuses them all, before any starts (a call started on this rank only would never match) */
  for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
    persistent *p = pat_proc.initialized ? find(requests[i], 0) : NULL;
    if (p) rc = refuse_active(p, "PAT_Startall");
  }
  for (int i = 0; i < count && rc == MPI_SUCCESS; i++) rc = PAT_Start(&requests[i]);
  return rc;
}

int PAT_Cancel(MPI_Request *request) {
  if (!request) return pat_fail(MPI_ERR_REQUEST, "PAT_Cancel: request is NULL");
  /* a collective cannot be cancelled, active or not (MPI's own persistent all-gather refuses it so): a
   * cancelled handle would complete while its call goes on, and its signal complete the next start's */
  if (pat_proc.initialized && find(*request, 0))
    return pat_fail(MPI_ERR_REQUEST, "PAT_Cancel: a persistent collective cannot be cancelled");
  return pat_mpi_own_result(PMPI_Cancel(request), "MPI_Cancel"); /* a non-blocking all-gather's: its cancel_fn refuses */
}

int PAT_Request_free(MPI_Request *request) {
  if (!request) return pat_fail(MPI_ERR_REQUEST, "PAT_Request_free: request is NULL");
  persistent *p = pat_proc.initialized ? find(*request, 1) : NULL;
  if (!p) return PMPI_Request_free(request);
  release(p); /* a call in flight keeps its own copies, and completes */
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int PAT_Waited(MPI_Request request) {
  if (!pat_proc.initialized || !pat_timeline_on() || request == MPI_REQUEST_NULL) return MPI_SUCCESS;
  int64_t now = pat_clock_global_ns();
  persistent *p = find(request, 0);
  if (!p) return MPI_SUCCESS;
  /* a start per PAT_Iallgather(v): its line was written by the background thread at its signal */
  pat_timeline_record r;
  FILE *f = pat_timeline_begin(&r);
  if (f) {
    fprintf(f, "waited %lld %lld at %lld\n", p->trace_id, p->starts - 1, (long long)now);
    pat_timeline_end(&r);
  }
  return MPI_SUCCESS;
}

int pat_persist_start(void) {
  int rc = pat_private_dup(MPI_COMM_WORLD, &signal_comm);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(signal_comm, &signal_rank);
  return rc;
}

int pat_persist_is_libpat(MPI_Request request) { return find(request, 0) != NULL; }

int pat_persist_prefetched(MPI_Request request) {
  persistent *p = find(request, 0);
  return p && p->rounds ? pat_nbc_held(p->comm) : -1;
}

void pat_persist_stop(void) {
  pthread_mutex_lock(&persist_lock);
  persistent *all = registry;
  registry = NULL;
  pthread_mutex_unlock(&persist_lock);
  while (all) { /* never freed by the application: MPI frees the receives at MPI_Finalize */
    persistent *p = all;
    all = p->next;
    p->handle = MPI_REQUEST_NULL;
    release(p);
  }
  if (signal_comm != MPI_COMM_NULL) MPI_Comm_free(&signal_comm);
}
