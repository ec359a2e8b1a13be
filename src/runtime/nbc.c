/*
 * PAT_Iallgather and PAT_Iallgatherv: MPI_Iallgather and MPI_Iallgatherv
 * with their semantics, the request one that MPI's own completion calls
 * take.  Which algorithm runs (the same on every rank, from the setting):
 *  - any other algorithm set by PAT_ALG or PAT_UseAlg: its schedule, run
 *    by the background thread (nbc_queue.h), which completes the request;
 *    the arrival-aware ones built for balanced arrivals (a rank's post is
 *    its arrival, unknown to the ranks that post before it); RELAY and
 *    HRELAY start ahead of a call whose blocks are the last call's
 *    (run.h), so that a late rank relays the others' pieces while it
 *    computes and its own block leaves it once;
 *  - auto, with the background thread: blocks of PAT_NBC_AUTO_MIN_BLOCK
 *    bytes or more (an all-gatherv's mean) on a communicator over several
 *    nodes run RELAY where every rank has a node of its own (at P > 2
 *    RELAY or DIRECT, measured against each other at the call's start:
 *    decide/nbc_choice.h), HRELAY where ranks share them (the same on every
 *    rank: the world's node map); smaller blocks, and a communicator on
 *    one node, MPI's own;
 *  - native, an inter-communicator, or no background thread (MPI without
 *    MPI_THREAD_MULTIPLE, PAT_THREAD=0, a one-node job under auto): the
 *    MPI library's own MPI_Iallgather(v);
 *  - a single process, under every setting: its block is copied at once
 *    (MPICH 4.0's own all-gatherv ignores the displacement there) and the
 *    request is complete when it is returned.
 */
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "pat.h"
#include "runtime/args.h"
#include "runtime/call.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/nbc_queue.h"
#include "runtime/process.h"
#include "runtime/report.h"
#include "runtime/report_nbc.h"
#include "runtime/through.h"

static _Thread_local int last_alg = PAT_ALG_NATIVE;
int pat_nbc_last_alg(void) { return last_alg; }
/* persist.c's starts post through PAT_Iallgather(v): the report's persistent rows count them */
static _Thread_local int in_start;
void pat_nbc_starting(int on) { in_start = on; }

/* The setting's choice, before asking whether libpat can run it. */
static int by_setting(MPI_Comm comm, int P, long long block_bytes) {
  int setting = pat_proc.alg;
  if (pat_nbc_runs_mpi_own()) return PAT_ALG_NATIVE;
  if (setting != PAT_ALG_AUTO) return setting;
  if (block_bytes < PAT_NBC_AUTO_MIN_BLOCK) return PAT_ALG_NATIVE;
  int H = pat_nbc_node_count(comm);
  if (H < 2) return PAT_ALG_NATIVE; /* one node: MPI's shared memory */
  return H == P ? PAT_ALG_RELAY : PAT_ALG_HRELAY;
}

int pat_nbc_alg(MPI_Comm comm, int P, long long block_bytes) {
  int alg = by_setting(comm, P, block_bytes);
  /* ranks outside MPI_COMM_WORLD (dynamic processes): no channel of libpat's reaches them */
  return alg == PAT_ALG_NATIVE || pat_nbc_routable(comm, P) ? alg : PAT_ALG_NATIVE;
}

/* The choice for blocks of recvtype x count (unknown type: MPI's own, which says what is wrong). */
static int choose(MPI_Comm comm, int P, MPI_Datatype recvtype, long long count) {
  MPI_Count rsize = 0;
  if (recvtype == MPI_DATATYPE_NULL || pat_type_size(recvtype, &rsize)) return PAT_ALG_NATIVE;
  return pat_nbc_alg(comm, P, (long long)rsize * count);
}

/* One process: its block from sendbuf into recvbuf at displ elements, by
 * packing (no message: nothing can match an application's receive). */
static int copy_single(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int displ,
                       int recvcount, MPI_Datatype recvtype) {
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  int bytes = 0, pos = 0, rc = MPI_Pack_size(sendcount, sendtype, MPI_COMM_SELF, &bytes);
  char *packed = rc == MPI_SUCCESS ? malloc((size_t)bytes + 1) : NULL;
  if (rc == MPI_SUCCESS && !packed) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = MPI_Pack(sendbuf, sendcount, sendtype, packed, bytes, &pos, MPI_COMM_SELF);
  MPI_Aint lb, extent;
  if (rc == MPI_SUCCESS) rc = MPI_Type_get_extent(recvtype, &lb, &extent);
  int at = 0;
  if (rc == MPI_SUCCESS)
    rc = MPI_Unpack(packed, pos, &at, (char *)recvbuf + (MPI_Aint)displ * extent, recvcount, recvtype, MPI_COMM_SELF);
  free(packed);
  return rc;
}

/* A request complete from the start. */
static int completed(MPI_Comm comm, MPI_Request *request) {
  pat_nbc_call none = {.u = {.comm = comm}, .P = 1};
  return pat_nbc_post(&none, request);
}

/* PAT_REPORT's count of a call passed to MPI's own (not timed: MPI alone
 * sees it complete).  Its block: what this rank sends (recvtype's elements
 * of its own block, in place). */
static void count_own(MPI_Comm comm, int inter, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      const int *recvcounts, int recvcount, MPI_Datatype recvtype) {
  int P = 1, rank = 0;
  MPI_Count size = 0;
  if (inter) MPI_Comm_remote_size(comm, &P);
  else MPI_Comm_size(comm, &P);
  if (sendbuf == MPI_IN_PLACE) { /* an intra-communicator's */
    MPI_Comm_rank(comm, &rank);
    sendcount = recvcounts ? recvcounts[rank] : recvcount;
    sendtype = recvtype;
  }
  if (sendtype == MPI_DATATYPE_NULL || pat_type_size(sendtype, &size)) size = 0;
  pat_report_nbc_count("non-blocking", "mpi-own", P, (long long)size * sendcount);
}

/* The gate of through.h; PAT_Iallgather(v) take it first too.  What it
 * saves is the entry: its questions to MPI (is comm an inter-communicator,
 * its size, the type's size) and, under the drop-in, the call's arguments
 * made up and the re-entry flag set and cleared. */
int pat_iallgather_through(MPI_Comm comm, int gatherv) {
  if (!pat_proc.initialized || !pat_nbc_runs_mpi_own() || pat_report_on) return 0;
  if (!gatherv) return 1;
  int P = 0;
  return comm != MPI_COMM_NULL && MPI_Comm_size(comm, &P) == MPI_SUCCESS && P > 1;
}

/* PAT_Iallgather(v): c holds the call (counts and displs an all-gatherv's). */
static int iallgather(const pat_call_args *c, MPI_Request *request) {
  int inter = 0, alg = PAT_ALG_NATIVE, P = 1;
  if (pat_iallgather_through(c->comm, c->gatherv)) {
    last_alg = PAT_ALG_NATIVE;
    return pat_mpi_own_result(pat_nbc_post_mpi_own(c, request), c->name);
  }
  pat_comm_state *cs;
  int rc = pat_call_enter(c->name, c->comm, request, 1, &cs, &inter);
  if (rc != MPI_SUCCESS) return rc;
  if (!inter) {
    if (cs) P = cs->base.P;
    else MPI_Comm_size(c->comm, &P);
    long long elements = c->recvcount; /* an all-gatherv's: the mean block */
    if (c->gatherv) {
      elements = 0;
      for (int r = 0; r < P && c->counts; r++) elements += c->counts[r];
      elements /= P;
    }
    alg = P == 1 ? PAT_ALG_RING : choose(c->comm, P, c->recvtype, elements); /* one process: copied (copy_single) */
  }
  last_alg = alg;
  if (alg == PAT_ALG_NATIVE) {
    rc = pat_nbc_post_mpi_own(c, request);
    if (rc == MPI_SUCCESS && pat_report_on && !in_start)
      count_own(c->comm, inter, c->sendbuf, c->sendcount, c->sendtype, c->counts, c->recvcount, c->recvtype);
    return pat_mpi_own_result(rc, c->name);
  }
  long long total;
  if (c->gatherv) {
    int rank;
    MPI_Count rsize;
    MPI_Comm_rank(c->comm, &rank);
    rc = pat_check_allgatherv(c->name, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->counts, c->displs,
                              c->recvtype, P, rank, &rsize, &total);
  } else {
    rc = pat_check_allgather(c->name, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype,
                             &total);
  }
  if (rc != MPI_SUCCESS) return rc;
  if (P == 1) {
    rc = total > 0 ? copy_single(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->gatherv ? c->displs[0] : 0,
                                 c->gatherv ? c->counts[0] : c->recvcount, c->recvtype)
                   : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? completed(c->comm, request) : pat_fail(rc, "%s: cannot copy the block", c->name);
  }
  /* auto's RELAY (a node per rank) measured against DIRECT; at P = 2 they move the same */
  int measured = pat_proc.alg == PAT_ALG_AUTO && alg == PAT_ALG_RELAY && P > 2;
  pat_nbc_call q = {.u = *c, .P = P, .alg = alg, .moves_data = total > 0, .measured = measured};
  return pat_nbc_post(&q, request);
}

int PAT_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  pat_call_args c =
      pat_allgather_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "PAT_Iallgather");
  return iallgather(&c, request);
}

int PAT_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  pat_call_args c = pat_allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                        "PAT_Iallgatherv");
  return iallgather(&c, request);
}
