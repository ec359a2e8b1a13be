/* A stand-in for MPICH's test/mpi/include/mpicolltest.h as coll/icallreduce.c,
 * icallgather.c and icallgatherv.c use it: the collective, blocking or as its
 * non-blocking form followed by MPI_Wait (the test's -nonblocking argument). */
#ifndef PAT_PEER_MPICOLLTEST_H
#define PAT_PEER_MPICOLLTEST_H
#include <mpi.h>

/* The non-blocking form's error, else MPI_Wait's. */
static inline int mtest_waited(int rc, MPI_Request *req) {
  return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE);
}

static inline int MTest_Allreduce(int is_blocking, const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (is_blocking) return MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  MPI_Request req = MPI_REQUEST_NULL;
  return mtest_waited(MPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &req), &req);
}

static inline int MTest_Allgather(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_blocking) return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  MPI_Request req = MPI_REQUEST_NULL;
  return mtest_waited(MPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req), &req);
}

static inline int MTest_Allgatherv(int is_blocking, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                                   MPI_Comm comm) {
  if (is_blocking)
    return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  MPI_Request req = MPI_REQUEST_NULL;
  return mtest_waited(
      MPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &req), &req);
}

#endif
