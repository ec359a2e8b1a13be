/* A stand-in for MPICH's test/mpi/include/mpicolltest.h as coll/icallreduce.c
 * uses it: the collective, blocking or as its non-blocking form followed
 * by MPI_Wait (the test's -nonblocking argument). */
#ifndef PAT_PEER_MPICOLLTEST_H
#define PAT_PEER_MPICOLLTEST_H
#include <mpi.h>

static inline int MTest_Allreduce(int is_blocking, const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (is_blocking) return MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

#endif
