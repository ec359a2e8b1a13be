/*
 * PAT_Allgather_init, PAT_Allgatherv_init, PAT_Start, PAT_Persistent_free:
 * an all-gather(v) set up once and started many times.  The arguments are
 * kept (derived datatypes as duplicates, an all-gatherv's arrays copied), and
 * each start posts them as PAT_Iallgather(v) would (nbc.c), on the user's
 * buffers, giving a new request that MPI's own completion calls complete.
 * A generalized request cannot be restarted with MPI_Start, hence PAT_Start
 * instead, and a new request per start (docs/usage.md).
 */
#include <stdlib.h>
#include <string.h>

#include "pat.h"
#include "runtime/errors.h"
#include "runtime/process.h"

struct PAT_Persistent_s {
  const void *sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void *recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  int *counts, *displs; /* an all-gatherv's (one allocation), NULL for an all-gather */
  MPI_Comm comm;        /* libpat's duplicate of the application's, for MPI_Comm_free's sake */
};

static int is_named(MPI_Datatype t) {
  int ni, na, nt, combiner;
  return MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

static int keep_type(MPI_Datatype t, MPI_Datatype *kept) {
  if (t == MPI_DATATYPE_NULL || is_named(t)) {
    *kept = t;
    return MPI_SUCCESS;
  }
  return MPI_Type_dup(t, kept);
}

static void drop_type(MPI_Datatype *t) {
  if (*t != MPI_DATATYPE_NULL && !is_named(*t)) MPI_Type_free(t);
  *t = MPI_DATATYPE_NULL;
}

static void release(PAT_Persistent p) {
  drop_type(&p->sendtype);
  drop_type(&p->recvtype);
  if (p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
  free(p->counts);
  free(p);
}

/* The checks PAT_Iallgather(v) make come at every start; here what the set-up needs. */
static int make(const char *name, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, const int *counts, const int *displs, MPI_Comm comm,
                PAT_Persistent *out) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "%s: call PAT_Init first", name);
  if (!out) return pat_fail(MPI_ERR_ARG, "%s: the persistent call's handle is NULL", name);
  *out = NULL;
  if (comm == MPI_COMM_NULL) return pat_fail(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", name);
  int inter = 0, P = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return pat_fail(MPI_ERR_COMM, "%s: invalid communicator", name);
  if (inter) return pat_fail(MPI_ERR_COMM, "%s: an inter-communicator is not supported", name);
  if (counts && (!displs)) return pat_fail(MPI_ERR_ARG, "%s: displs is NULL", name);
  MPI_Comm_size(comm, &P);
  PAT_Persistent p = calloc(1, sizeof *p);
  if (!p) return pat_fail(MPI_ERR_NO_MEM, "%s: out of memory", name);
  p->sendbuf = sendbuf;
  p->sendcount = sendcount;
  p->recvbuf = recvbuf;
  p->recvcount = recvcount;
  p->sendtype = p->recvtype = MPI_DATATYPE_NULL;
  p->comm = MPI_COMM_NULL;
  int rc = sendbuf == MPI_IN_PLACE ? MPI_SUCCESS : keep_type(sendtype, &p->sendtype);
  if (rc == MPI_SUCCESS) rc = keep_type(recvtype, &p->recvtype);
  if (rc == MPI_SUCCESS && counts) {
    p->counts = malloc(2 * (size_t)P * sizeof *p->counts);
    if (!p->counts) rc = MPI_ERR_NO_MEM;
    else {
      p->displs = p->counts + P;
      memcpy(p->counts, counts, (size_t)P * sizeof *p->counts);
      memcpy(p->displs, displs, (size_t)P * sizeof *p->displs);
    }
  }
  /* the application may free its communicator while the persistent call lives (MPI allows it) */
  if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(comm, &p->comm);
  if (rc != MPI_SUCCESS) {
    release(p);
    return pat_fail(rc, "%s: cannot keep the arguments", name);
  }
  *out = p;
  return MPI_SUCCESS;
}

int PAT_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, PAT_Persistent *call) {
  (void)info;
  return make("PAT_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL, NULL, comm,
              call);
}

int PAT_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, PAT_Persistent *call) {
  (void)info;
  if (!recvcounts) return pat_fail(MPI_ERR_ARG, "PAT_Allgatherv_init: recvcounts is NULL");
  return make("PAT_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, recvcounts, displs, comm,
              call);
}

int PAT_Start(PAT_Persistent call, MPI_Request *request) {
  if (!call) return pat_fail(MPI_ERR_REQUEST, "PAT_Start: the persistent call is NULL");
  if (call->counts)
    return PAT_Iallgatherv(call->sendbuf, call->sendcount, call->sendtype, call->recvbuf, call->counts,
                           call->displs, call->recvtype, call->comm, request);
  return PAT_Iallgather(call->sendbuf, call->sendcount, call->sendtype, call->recvbuf, call->recvcount,
                        call->recvtype, call->comm, request);
}

int PAT_Persistent_free(PAT_Persistent *call) {
  if (!call || !*call) return pat_fail(MPI_ERR_REQUEST, "PAT_Persistent_free: no persistent call");
  release(*call);
  *call = NULL;
  return MPI_SUCCESS;
}
