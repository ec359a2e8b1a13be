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
 * Every start is posted as PAT_Iallgather(v) would post it on the kept
 * arguments, so one decision serves both forms (nbc.c): a fixed setting's
 * schedule, where RELAY's (and HRELAY's) run of the next start starts ahead
 * as soon as the start before completed here (run.h): the other ranks'
 * blocks come into libpat's stage while this rank computes, and the last
 * rank, holding every other block at its start, relays its own through the
 * others,
 *   T_last ~ a_last + alpha + m_last·beta (the bound: model.h,
 *   pat_lower_bound_persistent);
 * under auto RELAY measured against DIRECT from the starts' stamps where
 * every rank has a node of its own (decide/nbc_choice.h), HRELAY where ranks
 * share nodes, MPI's own below PAT_NBC_AUTO_MIN_BLOCK.  The application's
 * recvbuf is written only after its start (a run started ahead receives
 * into its stage).
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
#include "pat/clock.h"
#include "runtime/allreduce.h"
#include "runtime/call.h"
#include "runtime/channels.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/nbc_queue.h"
#include "runtime/persist.h"
#include "runtime/process.h"
#include "runtime/report.h"
#include "runtime/report_nbc.h"
#include "runtime/round_trace.h"
#include "runtime/timeline.h"

typedef struct persistent persistent;

struct persistent {
  pat_call_args u;        /* the datatypes kept as duplicates; counts and displs copied into arrays; an
                            all-reduce's (u.reduce) datatype in recvtype, count in recvcount */
  int *arrays;           /* an all-gatherv's counts and displs (one allocation), NULL for an all-gather */
  int reduce_alg;        /* an all-reduce's, for every start: PAT_ARED_ALG_BASE + id, -1 MPI's own */
  MPI_Comm comm;        /* libpat's duplicate of the application's, for MPI_Comm_free's sake */
  MPI_Request handle;   /* the application's: the empty receive */
  int tag;
  char signal;          /* the empty receive's buffer */
  long long trace_id, starts; /* PAT_TIMELINE: its number, its starts so far */
  struct persistent *next; /* in the registry */
};

static pthread_mutex_t persist_lock = PTHREAD_MUTEX_INITIALIZER;
static persistent *registry; /* under persist_lock */
static MPI_Comm signal_comm = MPI_COMM_NULL; /* the signals' (pat_persist_start) */
static int signal_rank;                     /* this process's in signal_comm */
static int next_tag;
static long long traced_calls; /* under persist_lock */

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
    rc = pat_nbc_watch(inner, signal_comm, p->tag, trace, ran(p));
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
  return p ? pat_nbc_held(p->comm) : -1;
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
