/*
 * PAT_Allgather, PAT_Allgatherv, PAT_PredictOn and PAT_Waited for the Fortran module
 * (pat_module.f90): Fortran integer handles to C handles, Fortran's MPI_IN_PLACE and
 * MPI_BOTTOM to C's, Fortran integer arrays to C ints, then the C function
 * itself (its return code, as from C: no error handler).
 */
#include <mpi.h>

#include "dropin/fortran_sentinel.h"
#include "pat.h"

int pat_allgather_f(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf,
                    const MPI_Fint *recvcount, const MPI_Fint *recvtype, const MPI_Fint *comm);
int pat_allgatherv_f(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf,
                     const MPI_Fint *recvcounts, const MPI_Fint *displs, const MPI_Fint *recvtype,
                     const MPI_Fint *comm);
int pat_predict_on_f(const MPI_Fint *comm);
int pat_waited_f(const MPI_Fint *request);

int pat_allgather_f(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf,
                    const MPI_Fint *recvcount, const MPI_Fint *recvtype, const MPI_Fint *comm) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  return PAT_Allgather(sbuf, (int)*sendcount, MPI_Type_f2c(*sendtype), fsentinel_bottom(recvbuf), (int)*recvcount,
                       MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));
}

int pat_allgatherv_f(void *sendbuf, const MPI_Fint *sendcount, const MPI_Fint *sendtype, void *recvbuf,
                     const MPI_Fint *recvcounts, const MPI_Fint *displs, const MPI_Fint *recvtype,
                     const MPI_Fint *comm) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  fcounts fc;
  int rc = fcounts_get(&fc, recvcounts, displs, c);
  if (rc != MPI_SUCCESS) return rc;
  rc = PAT_Allgatherv(sbuf, (int)*sendcount, MPI_Type_f2c(*sendtype), fsentinel_bottom(recvbuf), fc.counts, fc.displs,
                      MPI_Type_f2c(*recvtype), c);
  fcounts_free(&fc);
  return rc;
}

int pat_predict_on_f(const MPI_Fint *comm) { return PAT_PredictOn(MPI_Comm_f2c(*comm)); }

int pat_waited_f(const MPI_Fint *request) { return PAT_Waited(MPI_Request_f2c(*request)); }
