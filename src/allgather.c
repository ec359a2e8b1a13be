/*
 * PAT_Allgather: argument checking, then the algorithm's schedule run by the
 * executor (or the MPI library's own all-gather for NATIVE).
 */
#include <stdlib.h>

#include "executor.h"
#include "runtime.h"

/* Does a (NULL) buffer point at real data?  MPI_BOTTOM with absolute
 * addresses in the datatype is legal; NULL with a datatype starting at 0 is not. */
static int null_buffer(const void *buf, MPI_Datatype type) {
  if (buf != NULL) return 0;
  MPI_Aint tlb, textent;
  MPI_Type_get_true_extent(type, &tlb, &textent);
  return tlb == 0;
}

static int check_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, long long *bytes) {
  if (comm == MPI_COMM_NULL) return pat_fail(MPI_ERR_COMM, "PAT_Allgather: comm is MPI_COMM_NULL");
  if (recvcount < 0) return pat_fail(MPI_ERR_COUNT, "PAT_Allgather: recvcount %d < 0", recvcount);
  if (recvtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: recvtype is MPI_DATATYPE_NULL");
  int rsize, ssize;
  if (MPI_Type_size(recvtype, &rsize) != MPI_SUCCESS) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: bad recvtype");
  *bytes = (long long)rsize * recvcount;
  if (*bytes > 0 && null_buffer(recvbuf, recvtype))
    return pat_fail(MPI_ERR_BUFFER, "PAT_Allgather: recvbuf is NULL");
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  if (sendcount < 0) return pat_fail(MPI_ERR_COUNT, "PAT_Allgather: sendcount %d < 0", sendcount);
  if (sendtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: sendtype is MPI_DATATYPE_NULL");
  if (MPI_Type_size(sendtype, &ssize) != MPI_SUCCESS) return pat_fail(MPI_ERR_TYPE, "PAT_Allgather: bad sendtype");
  long long sbytes = (long long)ssize * sendcount;
  if (sbytes != *bytes)
    return pat_fail(MPI_ERR_TRUNCATE, "PAT_Allgather: send size %lld bytes differs from receive size %lld bytes",
                    sbytes, *bytes);
  if (sbytes > 0 && null_buffer(sendbuf, sendtype)) return pat_fail(MPI_ERR_BUFFER, "PAT_Allgather: sendbuf is NULL");
  if (sbytes > 0 && sendbuf == recvbuf)
    return pat_fail(MPI_ERR_BUFFER, "PAT_Allgather: sendbuf aliases recvbuf (use MPI_IN_PLACE)");
  return MPI_SUCCESS;
}

/* Run a schedule for this call: typed on the user's buffer, or packed on a
 * staging buffer when the schedule works on bytes. */
static int run_schedule(pat_comm_state *cs, const pat_sched *s, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        long long bytes) {
  pat_buffers b;
  pat_exec e;
  int rc = pat_buffers_typed(&b, cs->data, cs->P, cs->rank, recvbuf, recvcount, recvtype);
  if (rc != MPI_SUCCESS) return rc;
  if (s->flags & (PAT_SCHED_PIECES | PAT_SCHED_ARRIVAL)) {
    b.packed = 1;
    b.block_bytes = (size_t)bytes;
    b.stage = malloc((size_t)bytes * (size_t)cs->P);
    if (!b.stage) return pat_fail(MPI_ERR_NO_MEM, "PAT_Allgather: cannot allocate %lld bytes", bytes * cs->P);
  }
  rc = pat_buffers_put_own(&b, sendbuf, sendcount, sendtype);
  if (rc == MPI_SUCCESS) rc = pat_exec_init(&e, s, cs->rank, &b);
  if (rc == MPI_SUCCESS) {
    rc = pat_exec_run(&e);
    pat_exec_free(&e);
  }
  if (rc == MPI_SUCCESS && b.packed) rc = pat_buffers_unpack(&b, sendbuf == MPI_IN_PLACE);
  free(b.stage);
  pat_buffers_release(&b);
  return rc;
}

int PAT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Allgather: call PAT_Init first");
  long long bytes = 0;
  int rc = check_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &bytes);
  if (rc != MPI_SUCCESS) return rc;
  int inter = 0;
  rc = MPI_Comm_test_inter(comm, &inter);
  if (rc != MPI_SUCCESS) return pat_fail(MPI_ERR_COMM, "PAT_Allgather: invalid communicator");
  if (inter) /* inter-communicator all-gather has other semantics: leave it to MPI */
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);

  pat_comm_state *cs;
  rc = pat_comm_get(comm, &cs);
  if (rc != MPI_SUCCESS) return rc;
  int alg = pat_rt.alg == PAT_ALG_AUTO ? PAT_ALG_NATIVE : pat_rt.alg;
  cs->last_alg = alg;
  cs->calls++;
  pthread_mutex_lock(&pat_rt.lock);
  pat_rt.stats.calls++;
  pat_rt.stats.calls_per_alg[alg]++;
  pthread_mutex_unlock(&pat_rt.lock);

  if (alg == PAT_ALG_NATIVE) {
    rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return rc == MPI_SUCCESS ? rc : pat_fail(rc, "PAT_Allgather: MPI_Allgather failed");
  }
  if (bytes == 0) return MPI_SUCCESS; /* every rank moves nothing */

  const pat_sched *s;
  pat_sched own;
  int built = 0;
  if (pat_algorithms[alg].flags & PAT_ALGF_CLASSIC) {
    rc = pat_comm_classic(cs, alg, &s);
    if (rc != MPI_SUCCESS) return rc;
  } else {
    pat_build_args args = {cs->P, cs->rank, NULL, 1, 0};
    int brc = pat_build(alg, &own, &args);
    if (brc != PAT_OK)
      return pat_fail(brc == PAT_ENOTIMPL ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_INTERN,
                      "PAT_Allgather: cannot build the %s schedule", pat_algorithms[alg].name);
    s = &own;
    built = 1;
  }
  rc = run_schedule(cs, s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, bytes);
  if (built) pat_sched_free(&own);
  return rc == MPI_SUCCESS ? rc : pat_fail(rc, "PAT_Allgather: %s failed", pat_algorithms[alg].name);
}
