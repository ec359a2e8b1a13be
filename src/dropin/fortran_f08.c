/*
 * The drop-in's bindings for `use mpi_f08`: the symbols the mpi_f08 module
 * of the MPI in use calls (its explicit interfaces bind each procedure to one
 * name).  An mpi_f08 handle (type(MPI_Comm) ...) is a derived type holding
 * the Fortran integer handle and is passed by reference like one; ierror is
 * optional (NULL when absent).
 *
 * Open MPI 4.x: mpi_init_f08_, mpi_init_thread_f08_, mpi_query_thread_f08_,
 * mpi_finalize_f08_, mpi_allgather_f08_, mpi_allgatherv_f08_,
 * mpi_iallgather_f08_, mpi_iallgatherv_f08_, mpi_allreduce_f08_ and
 * mpi_iallreduce_f08_ (buffers, counts and displacements passed as
 * addresses) all call PMPI_* directly, so all ten are taken over here, and so are the persistent forms: `use mpi_f08_ext`'s
 * mpix_allgather_init_f08_, mpix_allgatherv_init_f08_ and
 * mpix_allreduce_init_f08_, and
 * mpi_start_f08_, mpi_startall_f08_, mpi_request_free_f08_ and
 * mpi_cancel_f08_.
 *
 * MPICH 4.x: mpi_init_f08_, mpi_init_thread_f08_, mpi_query_thread_f08_,
 * mpi_finalize_f08_, mpi_start_f08_, mpi_startall_f08_,
 * mpi_request_free_f08_ and mpi_cancel_f08_ call PMPI_* directly and are taken over here; its
 * all-gathers (mpi_allgather_f08ts_ and mpi_allgatherv_f08ts_, buffers as
 * descriptors) and its non-blocking ones call the C names MPI_Allgather,
 * MPI_Allgatherv, MPI_Iallgather, MPI_Iallgatherv, MPI_Allreduce and MPI_Iallreduce, which pat_mpi.c
 * already defines, with the sentinels and handles converted by
 * MPICH, as do its MPI_ALLGATHER(V)_INIT (mpi_allgather(v)_init_f08ts_) and
 * MPI_ALLREDUCE_INIT (mpi_allreduce_init_f08ts_).
 * (Their _large variants, MPI_Count arguments, call MPI_Allgather_c
 * and MPI_Allgatherv_c: MPI's own.)
 */
#include <mpi.h>

#include "dropin/fortran_calls.h"

/* One subroutine under its mpi_f08 name, declared (only the MPI's module calls it) and defined. */
#define F08_NAME(name, params, call) \
  void name params;                  \
  void name params { call; }

F08_NAME(mpi_init_f08_, (MPI_Fint * ierror), fcall_init(ierror))
F08_NAME(mpi_init_thread_f08_, (MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ierror),
         fcall_init_thread(required, provided, ierror))
F08_NAME(mpi_query_thread_f08_, (MPI_Fint * provided, MPI_Fint *ierror), fcall_query_thread(provided, ierror))
F08_NAME(mpi_finalize_f08_, (MPI_Fint * ierror), fcall_finalize(ierror))

/* Both MPIs' mpi_f08 MPI_Start, MPI_Startall and MPI_Request_free call PMPI_*;
 * startall's array_of_requests: type(MPI_Request) elements, each one Fortran handle */
F08_NAME(mpi_start_f08_, (MPI_Fint * request, MPI_Fint *ierror), fcall_start(request, ierror))
F08_NAME(mpi_startall_f08_, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierror),
         fcall_startall(count, requests, ierror))
F08_NAME(mpi_request_free_f08_, (MPI_Fint * request, MPI_Fint *ierror), fcall_request_free(request, ierror))
/* ... and so does their MPI_Cancel */
F08_NAME(mpi_cancel_f08_, (MPI_Fint * request, MPI_Fint *ierror), fcall_cancel(request, ierror))

#if defined(OPEN_MPI)
F08_NAME(mpi_allgather_f08_,
         (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
          MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror),
         fcall_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror))
F08_NAME(mpi_allgatherv_f08_,
         (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
          MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror),
         fcall_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierror))

/* the non-blocking forms: the same arguments and a request (type(MPI_Request), its Fortran handle) before
 * ierror */
F08_NAME(mpi_iallgather_f08_,
         (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
          MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror),
         fcall_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierror))
F08_NAME(mpi_iallgatherv_f08_,
         (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
          MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror),
         fcall_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                           ierror))

F08_NAME(mpi_allreduce_f08_,
         (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
          MPI_Fint *ierror),
         fcall_allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror))
F08_NAME(mpi_iallreduce_f08_,
         (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
          MPI_Fint *request, MPI_Fint *ierror),
         fcall_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, ierror))

/* the persistent forms (Open MPI 4.1's pcollreq extension): info and request are handles, before ierror */
F08_NAME(mpix_allgather_init_f08_,
         (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
          MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror),
         fcall_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request,
                              ierror))
F08_NAME(mpix_allgatherv_init_f08_,
         (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
          MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
          MPI_Fint *ierror),
         fcall_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                               request, ierror))
F08_NAME(mpix_allreduce_init_f08_,
         (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
          MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror),
         fcall_allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror))
#endif
