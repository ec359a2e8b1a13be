/*
 * PAT_Allreduce and PAT_Iallreduce: MPI_Allreduce and MPI_Iallreduce with
 * their semantics, on the queue every posted call takes (nbc_queue.h): the
 * call's arguments, its schedule (algorithms/allreduce.h), buffers and
 * executor are one queued operation on the communicator's one context;
 * non-blocking = post, completed by the background thread; blocking = post
 * and wait, the caller progressing the queue itself (pat_nbc_wait), so the
 * same run serves both forms.
 *
 * Which algorithm runs (the same on every rank): PAT_ALLREDUCE's schedule
 * for a predefined op on an intra-communicator of several processes with
 * the background thread; the MPI library's own otherwise, and under auto
 * and native (no arrival-aware all-reduce yet).  A user-defined op is
 * always MPI's own: MPI lets the application free it while a non-blocking
 * call that uses it is pending, and libpat cannot keep a copy of it.
 */
#include "algorithms/allreduce.h"
#include "pat.h"
#include "runtime/args.h"
#include "runtime/errors.h"
#include "runtime/nbc_queue.h"
#include "runtime/process.h"
#include "runtime/through.h"

/* The predefined ops (MPI_REPLACE and MPI_NO_OP are for one-sided calls). */
static int predefined(MPI_Op op) {
  static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                               MPI_LOR,  MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (op == ops[i]) return 1;
  return 0;
}

int pat_allreduce_through(MPI_Op op) {
  return pat_proc.settings.allreduce < 0 || !pat_proc.initialized || !pat_proc.background || !predefined(op);
}

/* libpat's algorithm for the call (PAT_ARED_ALG_BASE + id), or -1 for MPI's own. */
static int choose(MPI_Comm comm, MPI_Op op) {
  int inter = 0, P = 1;
  if (pat_allreduce_through(op) || comm == MPI_COMM_NULL ||
      MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter || MPI_Comm_size(comm, &P) != MPI_SUCCESS || P < 2 ||
      !pat_nbc_routable(comm, P))
    return -1;
  return PAT_ARED_ALG_BASE + pat_proc.settings.allreduce;
}

/* What MPI checks of an all-reduce's arguments, for libpat's own run. */
static int check(const char *name, const void *sendbuf, const void *recvbuf, int count, MPI_Datatype type,
                 long long *bytes) {
  if (count < 0) return pat_fail(MPI_ERR_COUNT, "%s: count %d < 0", name, count);
  if (type == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "%s: datatype is MPI_DATATYPE_NULL", name);
  MPI_Count size;
  if (pat_type_size(type, &size)) return pat_fail(MPI_ERR_TYPE, "%s: bad datatype", name);
  *bytes = (long long)size * count;
  if (recvbuf == MPI_IN_PLACE) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf may not be MPI_IN_PLACE", name);
  if (*bytes > 0 && pat_null_buffer(recvbuf, type)) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf is NULL", name);
  if (sendbuf == MPI_IN_PLACE || *bytes == 0) return MPI_SUCCESS;
  if (pat_null_buffer(sendbuf, type)) return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf is NULL", name);
  if (sendbuf == recvbuf) return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf aliases recvbuf (use MPI_IN_PLACE)", name);
  return MPI_SUCCESS;
}

/* Post the call on the queue (alg: libpat's). */
static int post(const char *name, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, int alg, MPI_Request *request) {
  long long bytes = 0;
  int rc = check(name, sendbuf, recvbuf, count, type, &bytes), P;
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_size(comm, &P);
  pat_nbc_call c = {.u = {.sendbuf = sendbuf,
                          .sendtype = type,
                          .recvbuf = recvbuf,
                          .recvcount = count,
                          .recvtype = type,
                          .reduce = 1,
                          .op = op},
                    .comm = comm,
                    .P = P,
                    .alg = alg,
                    .moves_data = bytes > 0};
  return pat_nbc_post(&c, request);
}

int PAT_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  static const char name[] = "PAT_Iallreduce";
  int alg = choose(comm, op);
  if (alg < 0) return pat_mpi_own_result(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), name);
  if (!request) return pat_fail(MPI_ERR_REQUEST, "%s: request is NULL", name);
  return post(name, sendbuf, recvbuf, count, datatype, op, comm, alg, request);
}

int PAT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static const char name[] = "PAT_Allreduce";
  int alg = choose(comm, op);
  if (alg < 0) return pat_mpi_own_result(PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm), name);
  MPI_Request request;
  int rc = post(name, sendbuf, recvbuf, count, datatype, op, comm, alg, &request);
  if (rc != MPI_SUCCESS) return rc;
  rc = pat_nbc_wait(&request);
  return rc == MPI_SUCCESS ? rc : pat_fail(rc, "%s: the call failed", name);
}
