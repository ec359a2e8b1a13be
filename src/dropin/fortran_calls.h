/*
 * The Fortran forms of the calls the drop-in takes over, shared by the
 * mpif.h/`use mpi` bindings (fortran_mpif.c) and the mpi_f08 ones
 * (fortran_f08.c): Fortran handles (integers; an mpi_f08 handle is a type
 * holding that integer, passed the same way), Fortran sentinels, and an
 * ierror that may be absent (NULL: optional in mpi_f08).  Each runs the
 * drop-in's C code, so a Fortran program gets exactly what a C one does,
 * errors going to the communicator's error handler included.
 */
#ifndef PAT_FORTRAN_CALLS_H
#define PAT_FORTRAN_CALLS_H

#include <mpi.h>

#define FCALL __attribute__((visibility("hidden")))

FCALL void fcall_init(MPI_Fint *ierror);
FCALL void fcall_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
FCALL void fcall_query_thread(MPI_Fint *provided, MPI_Fint *ierror);
FCALL void fcall_finalize(MPI_Fint *ierror);
FCALL void fcall_allgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                           MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror);
/* recvcounts and displs are arrays of Fortran integers, one per process of
 * comm (of its remote group for an inter-communicator) */
FCALL void fcall_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                            MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                            MPI_Fint *ierror);
/* The non-blocking forms: *request gets the Fortran handle of the request.
 * recvcounts and displs are read when the call is posted (as C ints: where
 * MPI_Fint is not int, and libpat leaves the call to MPI's own
 * MPI_Iallgatherv, the converted copy would have to outlive the call: there
 * the arrays are passed as they are, which is where MPI_Fint is int). */
FCALL void fcall_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                           MPI_Fint *comm, MPI_Fint *ierror);
FCALL void fcall_iallreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                            MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror);
FCALL void fcall_iallgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                            MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                            MPI_Fint *ierror);
FCALL void fcall_iallgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                             MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                             MPI_Fint *request, MPI_Fint *ierror);
/* The persistent forms (MPI_ALLGATHER(V)_INIT, MPI_ALLREDUCE_INIT, MPIX_ in Open MPI 4.1), and
 * MPI_START, MPI_STARTALL and MPI_REQUEST_FREE, for every request: libpat's
 * go to libpat, others to MPI's own C calls, as MPI's Fortran bindings
 * would send them.  An all-gatherv's arrays are taken as C ints (as in
 * fcall_iallgatherv: MPI's own call keeps them). */
FCALL void fcall_allgather_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                                MPI_Fint *request, MPI_Fint *ierror);
FCALL void fcall_allgatherv_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                 MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                                 MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror);
FCALL void fcall_allreduce_init(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                                MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror);
FCALL void fcall_start(MPI_Fint *request, MPI_Fint *ierror);
FCALL void fcall_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror);
FCALL void fcall_request_free(MPI_Fint *request, MPI_Fint *ierror);
/* MPI_CANCEL, for every request (libpat's persistent ones refused, as from C) */
FCALL void fcall_cancel(MPI_Fint *request, MPI_Fint *ierror);

#endif
