/*
 * The drop-in's bindings for mpif.h and `use mpi` (MPI_INIT, MPI_INIT_THREAD,
 * MPI_QUERY_THREAD, MPI_FINALIZE, MPI_ALLGATHER, MPI_ALLGATHERV, MPI_IALLGATHER,
 * MPI_IALLGATHERV, MPI_ALLREDUCE, MPI_IALLREDUCE, Open MPI 4.1's MPIX_ALLGATHER_INIT,
 * MPIX_ALLGATHERV_INIT and MPIX_ALLREDUCE_INIT, MPI_START, MPI_STARTALL,
 * MPI_REQUEST_FREE, MPI_CANCEL), under the
 * four names a Fortran compiler may give a subroutine: mpi_allgather_
 * (gfortran, Intel), mpi_allgather__ (g77-style -fsecond-underscore),
 * MPI_ALLGATHER (upper case), mpi_allgather (no underscore).
 *
 * Only where the MPI library needs them.  Open MPI's Fortran bindings call
 * PMPI_* directly, so a C wrapper never sees a Fortran call: these take the
 * Fortran names over and run the drop-in's C code (dropin.h).  MPICH's call
 * the C names MPI_* (interposable), so pat_mpi.c already sees them, with
 * handles and sentinels converted by MPICH itself: nothing is defined here.
 */
#include <mpi.h>

#if defined(OPEN_MPI)

#include "dropin/fortran_calls.h"

/* One definition per mangling, all the same subroutine. */
#define FORTRAN_NAMES(lower, upper, params, args) \
  void lower##_ params;                           \
  void lower##__ params;                          \
  void upper params;                              \
  void lower params;                              \
  void lower##_ params { args; }                  \
  void lower##__ params { args; }                 \
  void upper params { args; }                     \
  void lower params { args; }

FORTRAN_NAMES(mpi_init, MPI_INIT, (MPI_Fint * ierror), fcall_init(ierror))
FORTRAN_NAMES(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ierror),
              fcall_init_thread(required, provided, ierror))
FORTRAN_NAMES(mpi_query_thread, MPI_QUERY_THREAD, (MPI_Fint * provided, MPI_Fint *ierror),
              fcall_query_thread(provided, ierror))
FORTRAN_NAMES(mpi_finalize, MPI_FINALIZE, (MPI_Fint * ierror), fcall_finalize(ierror))
FORTRAN_NAMES(mpi_allgather, MPI_ALLGATHER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror),
              fcall_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror))
FORTRAN_NAMES(mpi_allgatherv, MPI_ALLGATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror),
              fcall_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierror))
FORTRAN_NAMES(mpi_iallgather, MPI_IALLGATHER,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror),
              fcall_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierror))
FORTRAN_NAMES(mpi_iallgatherv, MPI_IALLGATHERV,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror),
              fcall_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                                ierror))
FORTRAN_NAMES(mpi_allreduce, MPI_ALLREDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierror),
              fcall_allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror))
FORTRAN_NAMES(mpi_iallreduce, MPI_IALLREDUCE,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *request, MPI_Fint *ierror),
              fcall_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, ierror))
FORTRAN_NAMES(mpix_allgather_init, MPIX_ALLGATHER_INIT,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror),
              fcall_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request,
                                   ierror))
FORTRAN_NAMES(mpix_allgatherv_init, MPIX_ALLGATHERV_INIT,
              (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
               MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
               MPI_Fint *ierror),
              fcall_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                    request, ierror))
FORTRAN_NAMES(mpix_allreduce_init, MPIX_ALLREDUCE_INIT,
              (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror),
              fcall_allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror))
FORTRAN_NAMES(mpi_start, MPI_START, (MPI_Fint * request, MPI_Fint *ierror), fcall_start(request, ierror))
FORTRAN_NAMES(mpi_startall, MPI_STARTALL, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierror),
              fcall_startall(count, requests, ierror))
FORTRAN_NAMES(mpi_request_free, MPI_REQUEST_FREE, (MPI_Fint * request, MPI_Fint *ierror),
              fcall_request_free(request, ierror))
FORTRAN_NAMES(mpi_cancel, MPI_CANCEL, (MPI_Fint * request, MPI_Fint *ierror), fcall_cancel(request, ierror))

#endif
