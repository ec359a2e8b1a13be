/* The Fortran forms of the drop-in's calls (fortran_calls.h). */
#include "dropin/fortran_calls.h"

#include <stddef.h>
#include <stdlib.h>

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

/* invalid handles become the null handles, which the MPI library (or libpat) rejects */
void fcall_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                     MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  set_ierror(ierror, dropin_allreduce(sbuf, rbuf, (int)*count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                                      PMPI_Comm_f2c(*comm)));
}

void fcall_iallreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                      MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = dropin_iallreduce(sbuf, rbuf, (int)*count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                             PMPI_Comm_f2c(*comm), &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

/* An all-gatherv's count arrays passed on as C ints: where MPI_Fint is not
 * a C int the converted arrays would have to outlive the call (see
 * fortran_calls.h), so the call fails with MPI_ERR_INTERN, said here. */
static int fint_arrays_unsupported(MPI_Comm c, MPI_Fint *ierror) {
  if (sizeof(MPI_Fint) == sizeof(int)) return 0;
  PMPI_Comm_call_errhandler(c, MPI_ERR_INTERN);
  set_ierror(ierror, MPI_ERR_INTERN);
  return 1;
}

void fcall_iallgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                       MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Comm c = PMPI_Comm_f2c(*comm);
  MPI_Request req = MPI_REQUEST_NULL;
  if (fint_arrays_unsupported(c, ierror)) return;
  int rc;
  rc = dropin_iallgatherv(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, (const int *)recvcounts,
                          (const int *)displs, PMPI_Type_f2c(*recvtype), c, &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

void fcall_allgather_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                          MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = dropin_allgather_init(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, (int)*recvcount,
                                 PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm), PMPI_Info_f2c(*info), &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

void fcall_allgatherv_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                           MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                           MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Comm c = PMPI_Comm_f2c(*comm);
  MPI_Request req = MPI_REQUEST_NULL;
  if (fint_arrays_unsupported(c, ierror)) return;
  int rc;
  rc = dropin_allgatherv_init(sbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype), rbuf, (const int *)recvcounts,
                              (const int *)displs, PMPI_Type_f2c(*recvtype), c, PMPI_Info_f2c(*info), &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

void fcall_allreduce_init(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                          MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierror) {
  const void *sbuf = fsentinel_bottom((void *)fsentinel_in_place(sendbuf));
  void *rbuf = fsentinel_bottom(recvbuf);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = dropin_allreduce_init(sbuf, rbuf, (int)*count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                                 PMPI_Comm_f2c(*comm), PMPI_Info_f2c(*info), &req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

void fcall_start(MPI_Fint *request, MPI_Fint *ierror) {
  MPI_Request req = PMPI_Request_f2c(*request);
  int rc = dropin_start(&req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req);
  set_ierror(ierror, rc);
}

void fcall_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror) {
  int n = (int)*count;
  MPI_Request *reqs = malloc((n > 0 ? (size_t)n : 1) * sizeof *reqs);
  if (!reqs) {
    set_ierror(ierror, MPI_ERR_NO_MEM);
    return;
  }
  for (int i = 0; i < n; i++) reqs[i] = PMPI_Request_f2c(requests[i]);
  int rc = dropin_startall(n, reqs);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++) requests[i] = PMPI_Request_c2f(reqs[i]);
  free(reqs);
  set_ierror(ierror, rc);
}

void fcall_request_free(MPI_Fint *request, MPI_Fint *ierror) {
  MPI_Request req = PMPI_Request_f2c(*request);
  int rc = dropin_request_free(&req);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(req); /* MPI_REQUEST_NULL's Fortran handle */
  set_ierror(ierror, rc);
}

void fcall_cancel(MPI_Fint *request, MPI_Fint *ierror) {
  MPI_Request req = PMPI_Request_f2c(*request);
  set_ierror(ierror, dropin_cancel(&req));
}
