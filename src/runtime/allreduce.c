/*
 * PAT_Allreduce and PAT_Iallreduce: MPI_Allreduce and MPI_Iallreduce with
 * their semantics, on the queue every posted call takes (nbc_queue.h): the
 * call's arguments, its schedule (algorithms/allreduce.h), buffers and
 * executor are one queued operation on the communicator's one context;
 * non-blocking = post, completed by the background thread; blocking = post
 * and wait, the caller progressing the queue itself (pat_nbc_wait), so the
 * same run serves both forms.
 *
 * Which algorithm runs (the same on every rank): PAT_ALLREDUCE's schedule
 * for a predefined op on a named datatype, on an intra-communicator of
 * several processes with the background thread; the MPI library's own
 * otherwise, and under native.
 * Under auto, blocking calls of at least PAT_ARED_CHOICE_MIN_BYTES on a
 * communicator that spans several nodes are timed from the last rank's
 * arrival (stamped_call), candidate by candidate,
 * until every rank takes the same choice for the size class
 * (decide/allreduce_choice.h: the ranks add their mean trials up with
 * one all-reduce of libpat's on the communicator, at the same call on every
 * rank); non-blocking calls run a class's choice once it is made, MPI's own
 * before.  A user-defined op is always MPI's own: MPI lets the application
 * free it while a non-blocking call that uses it is pending, and libpat
 * cannot keep a copy of it.
 *
 * A persistent all-reduce (persist.c) takes its choice here once, at its
 * set-up, with the non-blocking call's rule, and posts each start here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/allreduce.h"
#include "decide/allreduce_choice.h"
#include "pat.h"
#include "pat/clock.h"
#include "runtime/allreduce.h"
#include "runtime/args.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/nbc_queue.h"
#include "runtime/netparams.h"
#include "runtime/process.h"
#include "runtime/through.h"

/* The predefined ops (MPI_REPLACE and MPI_NO_OP are for one-sided calls). */
static int predefined(MPI_Op op) {
  static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                               MPI_LOR,  MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (op == ops[i]) return 1;
  return 0;
}

/* A named datatype: MPI defines the predefined ops on predefined datatypes
 * alone (those of MPI_Type_create_f90_*, predefined but not named, are left
 * to MPI's own too). */
static int named_type(MPI_Datatype type) {
  int ni, na, nt, combiner;
  return type != MPI_DATATYPE_NULL && MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner) == MPI_SUCCESS &&
         combiner == MPI_COMBINER_NAMED;
}

int pat_allreduce_through(MPI_Op op) {
  return pat_proc.settings.allreduce == PAT_ALLREDUCE_NATIVE || !pat_proc.initialized || !pat_proc.background ||
         !predefined(op);
}

/* Can libpat's schedules run on comm at all (the same answer on every rank)? */
static int schedulable(MPI_Comm comm, int *P) {
  int inter = 0;
  return comm != MPI_COMM_NULL && MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter &&
         MPI_Comm_size(comm, P) == MPI_SUCCESS && *P >= 2 && pat_nbc_routable(comm, *P);
}

/* The most Rabenseifner can gain over the ring in one call on P ranks,
 * summed over the ranks (decide/allreduce_choice.h): the steps it saves
 * (2 (P - 1) against 2 log2 p2, plus the fold's 2 where P is not a power of
 * two, p2 the power of two below P), a latency each (the cost model's
 * alpha, the same on every rank). */
static int64_t rabenseifner_gain_ns(int P) {
  int log2p = 0;
  while ((2 << log2p) <= P) log2p++;
  int saved = 2 * (P - 1) - 2 * log2p - ((1 << log2p) != P ? 2 : 0);
  double alpha_ns = pat_netparams()->dflt.inter.alpha * 1e9;
  if (saved <= 0) return 0;
  return alpha_ns > 0 ? (int64_t)(alpha_ns * saved * P) : INT64_MAX;
}

/* The size class of auto's choice for a call of `bytes` on comm, or NULL
 * where MPI's own runs untimed (the same on every rank). */
static pat_ared_class *auto_class(MPI_Comm comm, long long bytes) {
  int k = pat_ared_choice_class(bytes), P;
  pat_comm_state *cs;
  if (k < 0 || pat_comm_posted(comm, &cs) != MPI_SUCCESS) return NULL;
  if (!cs->ared_eligible) {
    int nodes = pat_comm_node_count(comm);
    cs->ared_eligible = schedulable(comm, &P) && nodes > 1 ? 1 : 2;
    cs->ared_nodes = cs->ared_eligible == 1 && nodes < P;
    /* Rabenseifner is not node-aware: its largest halvings pair ranks of other nodes; measured slower
     * than HRING where ranks share nodes, balanced or not, by slot or round robin (1.56x and 2.56x on
     * 4 x 2 by slot and round robin, 2.29x on 3 + 3 + 2).  RELAY's turn runs HRELAY there (candidate_alg) */
    pat_ared_choice_init(&cs->ared, cs->ared_nodes ? 1u << PAT_ARED_CHOICE_RABENSEIFNER_INDEX : 0u,
                         rabenseifner_gain_ns(cs->base.P));
  }
  return cs->ared_eligible == 1 ? &cs->ared.cls[k] : NULL;
}

/* A candidate index's algorithm: PAT_ARED_ALG_BASE + id, or -1 for MPI's own.
 * Where ranks share nodes the ring is HRING's (the ring over all ranks then
 * crosses a node's link once per rank of it where the ranks are placed
 * round robin; HRING's carry 2 (H - 1) / H of the vector whatever the
 * placement), and RELAY is HRELAY (RELAY's owners' results cross a node's
 * link once per rank of it: 2.1-2.2x HRING on 4 x 2). */
static int candidate_alg(MPI_Comm comm, int cand) {
  int id = pat_ared_choice_candidates[cand];
  pat_comm_state *cs;
  if ((id == PAT_ARED_RING || id == PAT_ARED_RELAY) && pat_comm_posted(comm, &cs) == MPI_SUCCESS && cs->ared_nodes)
    id = id == PAT_ARED_RING ? PAT_ARED_HRING : PAT_ARED_HRELAY;
  return id == PAT_ARED_NATIVE ? -1 : PAT_ARED_ALG_BASE + id;
}

/* libpat's algorithm for the call (PAT_ARED_ALG_BASE + id), or -1 for MPI's
 * own; under auto, *cls: the size class being timed (NULL: none), *cand the
 * candidate that runs. */
static int choose(MPI_Comm comm, MPI_Op op, int count, MPI_Datatype type, int blocking, pat_ared_class **cls,
                  int *cand) {
  int P;
  *cls = NULL;
  if (pat_allreduce_through(op)) return -1;
  /* another type is MPI's own to refuse on the communicator's handler (Open
   * MPI) or to take (MPICH takes one made of one predefined type): under
   * libpat its MPI_Reduce_local failed on the ranks that combine only */
  if (!named_type(type)) return -1;
  if (pat_proc.settings.allreduce != PAT_ALLREDUCE_AUTO)
    return schedulable(comm, &P) ? PAT_ARED_ALG_BASE + pat_proc.settings.allreduce : -1;
  /* a choice by timing may differ from run to run, and with it the order of the additions */
  if (pat_proc.settings.reproducible) return -1;
  int size;
  if (count <= 0 || type == MPI_DATATYPE_NULL || MPI_Type_size(type, &size) != MPI_SUCCESS) return -1;
  pat_ared_class *c = auto_class(comm, (long long)size * count);
  if (!c || (!blocking && !c->decided)) return -1;
  int timed = 0;
  *cand = blocking ? pat_ared_choice_blocking(c, &timed) : c->choice;
  if (timed) *cls = c;
  return candidate_alg(comm, *cand);
}

/* After a timed call: note its time, and once the class's trials are done
 * add every rank's mean up (exact integers, the same sums everywhere)
 * and decide.  This all-reduce is MPI's own on the user's communicator, at
 * the same call of it on every rank. */
static int note_trial(pat_ared_class *c, int cand, int64_t took_ns, MPI_Comm comm) {
  int what = pat_ared_choice_note(c, cand, took_ns);
  if (what == PAT_ARED_NOTE_NONE) return MPI_SUCCESS;
  int64_t mine[PAT_ARED_CHOICE_N], sum[PAT_ARED_CHOICE_N];
  pat_ared_choice_partial(c, mine);
  int rc = PMPI_Allreduce(mine, sum, PAT_ARED_CHOICE_N, MPI_INT64_T, MPI_SUM, comm);
  if (rc != MPI_SUCCESS) return rc;
  if (what == PAT_ARED_NOTE_COMPARE && !pat_ared_choice_compare(c, cand, sum)) return MPI_SUCCESS;
  int taken = pat_ared_choice_decide(c, sum);
  if (pat_proc.settings.verbose > 0 && pat_proc.world_rank == 0)
    fprintf(stderr,
            "libpat: all-reduce auto: %s for vectors of this size class (mean trials summed over ranks: "
            "MPI's own %lld, ring (hring where ranks share nodes) %lld, rabenseifner %lld, relay (hrelay) %lld us)\n",
            taken == 0 ? "MPI's own" : pat_allreduce_algorithms[candidate_alg(comm, taken) - PAT_ARED_ALG_BASE].name,
            (long long)(sum[0] / 1000), (long long)(sum[1] / 1000), (long long)(sum[2] / 1000),
            (long long)(sum[3] / 1000));
  return MPI_SUCCESS;
}

/* What MPI checks of an all-reduce's arguments, for libpat's own run. */
static int check(const char *name, const void *sendbuf, const void *recvbuf, int count, MPI_Datatype type,
                 long long *bytes) {
  if (count < 0) return pat_fail(MPI_ERR_COUNT, "%s: count %d < 0", name, count);
  if (type == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "%s: datatype is MPI_DATATYPE_NULL", name);
  MPI_Count size;
  if (pat_type_size(type, &size)) return pat_fail(MPI_ERR_TYPE, "%s: bad datatype", name);
  *bytes = (long long)size * count;
  if (recvbuf == MPI_IN_PLACE) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf may not be MPI_IN_PLACE", name);
  if (*bytes > 0 && pat_null_buffer(recvbuf, type)) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf is NULL", name);
  if (sendbuf == MPI_IN_PLACE || *bytes == 0) return MPI_SUCCESS;
  if (pat_null_buffer(sendbuf, type)) return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf is NULL", name);
  if (sendbuf == recvbuf) return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf aliases recvbuf (use MPI_IN_PLACE)", name);
  return MPI_SUCCESS;
}

/* Is alg (libpat's) built for a predicted order of arrival? */
static int arrival_aware(int alg) {
  return (pat_allreduce_algorithms[alg - PAT_ARED_ALG_BASE].flags & PAT_AREDF_ARRIVAL) != 0;
}

/* Post the call on the queue (alg: libpat's). */
static int post(const char *name, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, int alg, MPI_Request *request) {
  long long bytes = 0;
  int rc = check(name, sendbuf, recvbuf, count, type, &bytes), P;
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_size(comm, &P);
  pat_comm_state *cs;
  /* the arrival-aware schedules, and with them who adds what first, follow the predicted order of arrival
   * (none under PAT_REPRODUCIBLE, where no stamps are gathered: arrival_aware_call) */
  const int64_t *predicted =
      arrival_aware(alg) && pat_comm_posted(comm, &cs) == MPI_SUCCESS ? cs->ared_stamps : NULL;
  pat_nbc_call c = {.u = {.sendbuf = sendbuf,
                          .sendtype = type,
                          .recvbuf = recvbuf,
                          .recvcount = count,
                          .recvtype = type,
                          .reduce = 1,
                          .op = op,
                          .predicted = predicted,
                          .comm = comm,
                          .name = name},
                    .P = P,
                    .alg = alg,
                    .moves_data = bytes > 0};
  return pat_nbc_post(&c, request);
}

int PAT_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  static const char name[] = "PAT_Iallreduce";
  pat_ared_class *cls;
  int cand = 0, alg = choose(comm, op, count, datatype, 0, &cls, &cand);
  if (alg < 0) return pat_mpi_own_result(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), name);
  if (!request) return pat_fail(MPI_ERR_REQUEST, "%s: request is NULL", name);
  return post(name, sendbuf, recvbuf, count, datatype, op, comm, alg, request);
}

/* A blocking all-reduce with every rank's arrival stamped: each rank's
 * arrival on the common clock goes into an all-gather of MPI's own, posted
 * beside the call (it completes once the last rank is in, at about the time
 * the call's data starts to flow) and waited for at its end; every rank then
 * holds the same stamps.
 *  - An arrival-aware all-reduce (RELAY, HRELAY, SLT) is built for the order
 *    of arrival at the communicator's previous stamped call, which the
 *    builders take alike (ties by rank).
 *  - A trial of auto's (any candidate, MPI's own too) is timed from the last
 *    rank's arrival to this rank's exit (*after_last_ns): what the algorithm
 *    decides; the waits before it are the arrivals' (mean_i (f_i - a_i) is
 *    mean_i (f_i - a_last) plus what no algorithm changes), which, with the
 *    others' delays drawn every call, varied more from call to call than
 *    the ring and RELAY differ. */
static int stamped_call(const char *name, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, int alg, int64_t *after_last_ns) {
  pat_comm_state *cs;
  int rc = pat_comm_posted(comm, &cs);
  if (rc != MPI_SUCCESS) return rc;
  const int P = cs->base.P;
  /* new stamps are the communicator's only once complete: this call is built for the ones before */
  int64_t mine = pat_clock_global_ns(), *stamps = malloc((size_t)P * sizeof *stamps);
  if (!stamps) return pat_fail(MPI_ERR_NO_MEM, "%s: out of memory", name);
  MPI_Request stamp, request;
  rc = PMPI_Iallgather(&mine, 1, MPI_INT64_T, stamps, 1, MPI_INT64_T, comm, &stamp);
  if (rc == MPI_SUCCESS) {
    if (alg < 0) {
      rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    } else {
      rc = post(name, sendbuf, recvbuf, count, type, op, comm, alg, &request);
      if (rc == MPI_SUCCESS) rc = pat_nbc_wait(cs, &request);
    }
    int rs = PMPI_Wait(&stamp, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) rc = alg < 0 ? pat_mpi_own_result(rc, name) : pat_fail(rc, "%s: the call failed", name);
    else if (rs != MPI_SUCCESS) rc = pat_fail(rs, "%s: the arrival stamps failed", name);
  } else {
    rc = pat_fail(rc, "%s: the arrival stamps failed", name);
  }
  if (rc != MPI_SUCCESS) {
    free(stamps);
    return rc;
  }
  int64_t last = stamps[0];
  for (int r = 1; r < P; r++) last = stamps[r] > last ? stamps[r] : last;
  const int64_t after = pat_clock_global_ns() - last;
  *after_last_ns = after > 0 ? after : 0; /* within the clocks' agreement of the last arrival */
  free(cs->ared_stamps);
  cs->ared_stamps = stamps;
  return MPI_SUCCESS;
}

int PAT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static const char name[] = "PAT_Allreduce";
  pat_ared_class *cls;
  int cand = 0, alg = choose(comm, op, count, datatype, 1, &cls, &cand), rc;
  int64_t took_ns = 0;
  if (cls || (alg >= 0 && arrival_aware(alg) && !pat_proc.settings.reproducible)) {
    rc = stamped_call(name, sendbuf, recvbuf, count, datatype, op, comm, alg, &took_ns);
  } else if (alg < 0) {
    rc = pat_mpi_own_result(PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm), name);
  } else {
    MPI_Request request;
    pat_comm_state *cs;
    rc = post(name, sendbuf, recvbuf, count, datatype, op, comm, alg, &request);
    if (rc != MPI_SUCCESS) return rc;
    /* the state the post made its queue on (else MPI's wait: the background thread progresses it) */
    rc = pat_comm_posted(comm, &cs) == MPI_SUCCESS ? pat_nbc_wait(cs, &request) : MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) rc = pat_fail(rc, "%s: the call failed", name);
  }
  if (rc == MPI_SUCCESS && cls && (rc = note_trial(cls, cand, took_ns, comm)) != MPI_SUCCESS)
    rc = pat_fail(rc, "%s: auto's agreement on its choice failed", name);
  return rc;
}

int pat_allreduce_persistent_alg(MPI_Comm comm, MPI_Op op, int count, MPI_Datatype datatype) {
  pat_ared_class *cls;
  int cand = 0;
  return choose(comm, op, count, datatype, 0, &cls, &cand); /* non-blocking: never a trial */
}

int pat_allreduce_start(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, int alg, MPI_Request *request) {
  static const char name[] = "PAT_Start";
  if (alg < 0) return pat_mpi_own_result(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), name);
  return post(name, sendbuf, recvbuf, count, datatype, op, comm, alg, request);
}
