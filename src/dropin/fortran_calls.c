/* The Fortran forms of the drop-in's calls (fortran_calls.h). */
#include "dropin/fortran_calls.h"

#include <stddef.h>

#include "dropin/dropin.h"
#include "dropin/fortran_sentinel.h"

static void set_ierror(MPI_Fint *ierror, int rc) {
  if (ierror) *ierror = (MPI_Fint)rc;
}

void fcall_init(MPI_Fint *ierror) {
  int provided;
  /* Fortran has no argc/argv to give; MPI allows NULL for both */
  set_ierror(ierror, dropin_init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided));
}

void fcall_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) {
  int got = MPI_THREAD_SINGLE;
  int rc = dropin_init_thread(NULL, NULL, (int)*required, &got);
  if (rc == MPI_SUCCESS) *provided = (MPI_Fint)got;
  set_ierror(ierror, rc);
}

void fcall_query_thread(MPI_Fint *provided, MPI_Fint *ierror) {
  int got = MPI_THREAD_SINGLE;
  int rc = dropin_query_thread(&got);
  if (rc == MPI_SUCCESS) *provided = (MPI_Fint)got;
  set_ierror(ierror, rc);
}

void fcall_finalize(MPI_Fint *ierror) { set_ierror(ierror, dropin_finalize()); }

void fcall_allgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                        MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror) {
  /* invalid handles become the null handles, which PAT_Allgather rejects
   * with MPI_ERR_COMM / MPI_ERR_TYPE, as the MPI library would */
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  int rc = dropin_allgather(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, (int)*recvcount,
                            PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm));
  set_ierror(ierror, rc);
}

void fcall_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                      MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierror) {
  /* invalid handles become the null handles, as in fcall_allgather */
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Comm c = PMPI_Comm_f2c(*comm);
  fcounts fc;
  int rc = fcounts_get(&fc, recvcounts, displs, c);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_call_errhandler(c, rc);
    set_ierror(ierror, rc);
    return;
  }
  rc = dropin_allgatherv(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, fc.counts, fc.displs,
                         PMPI_Type_f2c(*recvtype), c);
  fcounts_free(&fc);
  set_ierror(ierror, rc);
}

void fcall_iallgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                      MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = dropin_iallgather(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, (int)*recvcount,
                             PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm), &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

void fcall_iallgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                       MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Comm c = PMPI_Comm_f2c(*comm);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc;
  if (sizeof(MPI_Fint) != sizeof(int)) { /* see fortran_calls.h */
    rc = MPI_ERR_INTERN;
    PMPI_Comm_call_errhandler(c, rc);
    set_ierror(ierror, rc);
    return;
  }
  rc = dropin_iallgatherv(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, (const int *)recvcounts,
                          (const int *)displs, PMPI_Type_f2c(*recvtype), c, &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}
