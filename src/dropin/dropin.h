/*
 * The drop-in's entry points, shared by its C definitions of MPI_Init*,
 * MPI_Query_thread, MPI_Finalize, MPI_Allgather, MPI_Allgatherv, MPI_Iallgather, MPI_Iallgatherv,
 * MPI_Allreduce, MPI_Iallreduce,
 * the persistent forms (all-gathers and all-reduce), MPI_Start, MPI_Startall, MPI_Request_free and MPI_Cancel (pat_mpi.c) and by its Fortran
 * bindings (fortran_mpif.c, fortran_f08.c).
 * The Fortran bindings call these rather than the C names MPI_* so that a
 * Fortran call takes the same path whatever else is preloaded, and never
 * passes through the MPI library's own C entry points twice.
 */
#ifndef PAT_DROPIN_H
#define PAT_DROPIN_H

#include <mpi.h>

#define DROPIN_INTERNAL __attribute__((visibility("hidden")))

DROPIN_INTERNAL int dropin_init_thread(int *argc, char ***argv, int required, int *provided);
DROPIN_INTERNAL int dropin_query_thread(int *provided);
DROPIN_INTERNAL int dropin_finalize(void);
DROPIN_INTERNAL int dropin_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
DROPIN_INTERNAL int dropin_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm);
DROPIN_INTERNAL int dropin_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
DROPIN_INTERNAL int dropin_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request);
DROPIN_INTERNAL int dropin_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm);
DROPIN_INTERNAL int dropin_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPI_Request *request);
/* MPI_Allgather(v)_init and MPI_Allreduce_init (MPIX_ in Open MPI 4.1) */
DROPIN_INTERNAL int dropin_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request);
DROPIN_INTERNAL int dropin_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info, MPI_Request *request);
DROPIN_INTERNAL int dropin_allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
/* libpat's persistent requests are libpat's to start, free and refuse to cancel; others MPI's own */
DROPIN_INTERNAL int dropin_start(MPI_Request *request);
DROPIN_INTERNAL int dropin_startall(int count, MPI_Request requests[]);
DROPIN_INTERNAL int dropin_request_free(MPI_Request *request);
DROPIN_INTERNAL int dropin_cancel(MPI_Request *request);

#endif
