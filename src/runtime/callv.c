/*
 * PAT_Allgatherv: MPI_Allgatherv, blocks of any sizes.  The arguments are
 * checked as MPI would; then the setting's algorithm runs: native the MPI
 * library's own all-gatherv, and any other algorithm its schedule on blocks
 * of the sizes the counts give (exec/buffers.h): a classic schedule on the
 * user's buffer in its datatype, an arrival-aware one on packed bytes.
 * Schedules name blocks, never bytes, so every algorithm's schedule serves
 * unequal blocks unchanged; the arrival-aware ones are built for balanced
 * arrivals here (no exchange and no call-site history for this call yet).
 *
 * Under auto, blocks that are all equal make an all-gather whose blocks sit
 * at the displacements, and the call takes the all-gather's path
 * (runtime/call.h): its exchange, plans made ahead, refinement and
 * guardrail, and MPI's own all-gatherv where that path runs NATIVE.  Unequal
 * blocks are chosen for per count vector without an exchange
 * (decide/vchoice.h): MPI's own where auto defers to it (one node without a
 * model file) or has no measured levels (no model file, or another P than
 * the model's), else the choice its model predicts for the counts'
 * signature.
 *
 * Every rank sizes each block from its own counts.  Ranks whose counts
 * disagree (an erroneous program) therefore see messages of the wrong size:
 * MPI_ERR_TRUNCATE where they arrive, while every rank still runs its whole
 * schedule (exec/executor.h), so that no rank is left waiting.  Under auto
 * with a model file such ranks may choose different algorithms (their
 * signatures differ), and under auto ranks that see equal blocks take the
 * all-gather's path, which may exchange arrivals, while ranks that see
 * unequal ones do not: such ranks wait for each other, and the mismatch
 * is not seen (an agreement on the counts would cost every call an extra
 * collective that waits for the last arrival; not built).  Under a fixed
 * setting every rank takes the same path.
 */
#include <stdlib.h>

#include "pat.h"
#include "pat/clock.h"
#include "runtime/args.h"
#include "runtime/call.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/process.h"
#include "runtime/stats.h"
#include "runtime/timeline.h"

/* The call's arguments as the all-gather's path takes them (counts and
 * displs set; bytes: the largest block's), and what the checks learned. */
typedef struct vcall {
  pat_gather_args g;
  long long type_size; /* of recvtype */
  int equal;           /* every count the same */
} vcall;

/* The arguments of an intra-communicator all-gatherv of P ranks, as this
 * rank passed them (the communicator is checked before). */
static int check_args(vcall *v, int P, int rank) {
  pat_gather_args *g = &v->g;
  if (g->recvbuf == MPI_IN_PLACE)
    return pat_fail(MPI_ERR_BUFFER, "PAT_Allgatherv: recvbuf may not be MPI_IN_PLACE");
  if (!g->counts) return pat_fail(MPI_ERR_ARG, "PAT_Allgatherv: recvcounts is NULL");
  if (!g->displs) return pat_fail(MPI_ERR_ARG, "PAT_Allgatherv: displs is NULL");
  if (g->recvtype == MPI_DATATYPE_NULL)
    return pat_fail(MPI_ERR_TYPE, "PAT_Allgatherv: recvtype is MPI_DATATYPE_NULL");
  MPI_Count rsize;
  if (pat_type_size(g->recvtype, &rsize)) return pat_fail(MPI_ERR_TYPE, "PAT_Allgatherv: bad recvtype");
  long long total = 0;
  g->bytes = 0;
  v->type_size = (long long)rsize;
  v->equal = 1;
  for (int r = 0; r < P; r++) {
    if (g->counts[r] != g->counts[0]) v->equal = 0;
    if (g->counts[r] < 0)
      return pat_fail(MPI_ERR_COUNT, "PAT_Allgatherv: recvcounts[%d] = %d < 0", r, g->counts[r]);
    long long bytes = (long long)rsize * g->counts[r];
    total += bytes;
    if (bytes > g->bytes) g->bytes = bytes;
  }
  g->recvcount = g->counts[0]; /* read by the all-gather's path, which only equal blocks take */
  if (total > 0 && pat_null_buffer(g->recvbuf, g->recvtype))
    return pat_fail(MPI_ERR_BUFFER, "PAT_Allgatherv: recvbuf is NULL");
  if (g->sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return pat_check_send("PAT_Allgatherv", g->sendbuf, g->sendcount, g->sendtype, g->recvbuf, g->recvtype, rsize,
                        (long long)rsize * g->counts[rank]);
}

/* An arrival-aware schedule, for balanced arrivals, on a stage of packed
 * bytes.  Its pieces are sized for the largest block: they stay small
 * enough there, and are fractions of each block anyway. */
static int run_packed(pat_comm_state *cs, int alg, const pat_gather_args *g) {
  pat_sched s;
  int rc = pat_plan_balanced(&cs->base, alg, (double)g->bytes, &s);
  if (rc != MPI_SUCCESS) return rc;
  pat_buffers b;
  size_t stage_bytes = 0;
  char *stage = NULL;
  rc = pat_buffers_packed_v(&b, cs->base.priv, cs->base.P, cs->base.rank, g->recvbuf, g->counts, g->displs,
                            g->recvtype, &stage_bytes);
  if (rc == MPI_SUCCESS) {
    stage = malloc(stage_bytes + 1);
    if (!stage) rc = pat_fail(MPI_ERR_NO_MEM, "PAT_Allgatherv: cannot allocate %zu bytes", stage_bytes);
  }
  b.stage = stage;
  if (rc == MPI_SUCCESS) rc = pat_buffers_put_own(&b, g->sendbuf, g->sendcount, g->sendtype);
  if (rc == MPI_SUCCESS && s.nops > 0) {
    pat_exec e;
    rc = pat_exec_init(&e, &s, cs->base.rank, &b);
    e.tag_gen = PAT_TAG_GEN_CLASSIC;
    if (rc == MPI_SUCCESS) rc = pat_exec_run(&e);
    pat_exec_free(&e); /* waits for anything still pending: nothing uses the stage after it */
  }
  if (rc == MPI_SUCCESS) rc = pat_buffers_unpack(&b, g->sendbuf == MPI_IN_PLACE);
  free(stage);
  pat_buffers_release(&b);
  pat_sched_free(&s);
  return rc;
}

/* auto's choice for these counts (cs->lock held). */
static int auto_choice(pat_comm_state *cs, const vcall *v) {
  int64_t bytes[PAT_VCHOICE_MAX_P];
  for (int r = 0; r < cs->base.P; r++) bytes[r] = (int64_t)v->g.counts[r] * v->type_size;
  return pat_engine_static_choice_v(&cs->engine, bytes);
}

/* Equal blocks under auto: the all-gather's path, blocks at the displacements.
 * v->g.arrival was taken on entry, before the communicator's state was made
 * (a collective that lines the ranks up: taken after it, the first call's
 * arrivals look balanced, and the site starts out static). */
static int run_as_allgather(pat_comm_state *cs, vcall *v) {
  if (pat_gather_passes_through(cs)) return pat_gather_pass_through(cs, &v->g);
  return pat_gather_run(cs, &v->g);
}

int PAT_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Allgatherv: call PAT_Init first");
  if (comm == MPI_COMM_NULL) return pat_fail(MPI_ERR_COMM, "PAT_Allgatherv: comm is MPI_COMM_NULL");
  pat_comm_state *cs = pat_comm_cached(comm);
  int P, rank;
  if (cs) {
    P = cs->base.P;
    rank = cs->base.rank;
  } else {
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
      return pat_fail(MPI_ERR_COMM, "PAT_Allgatherv: invalid communicator");
    /* an inter-communicator all-gatherv has other semantics: MPI's, arguments and all */
    if (inter) return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
  }
  vcall v = {{sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, comm, 0, 0, recvcounts, displs, "PAT_Allgatherv"},
             0, 0};
  int rc = check_args(&v, P, rank);
  if (rc != MPI_SUCCESS) return rc;
  /* One process: its block copied by libpat (RING's empty schedule) under any setting, since MPICH 4.0's
   * own all-gatherv writes it at the start of recvbuf whatever its displacement */
  int setting = pat_proc.alg;
  /* equal blocks under auto use it (not where they pass through to MPI: call.h), and a recorded timeline */
  int uses_arrival = setting == PAT_ALG_AUTO && v.equal && !(cs && pat_gather_passes_through(cs));
  v.g.arrival = uses_arrival || pat_timeline_on() ? pat_clock_global_ns() : 0;
  /* PAT_ALG=native needs no state: a communicator only ever gathered with v gets none */
  if (P > 1 && setting == PAT_ALG_NATIVE) return pat_gather_pass_through(cs, &v.g);
  if (!cs) { /* made once: later calls find it without asking MPI (pat_comm_cached) */
    rc = pat_comm_get(comm, &cs);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (P > 1 && setting == PAT_ALG_AUTO && v.equal) return run_as_allgather(cs, &v);
  if (P > 1 && setting == PAT_ALG_AUTO && pat_engine_v_defers(&cs->engine)) return pat_gather_pass_through(cs, &v.g);
  pat_comm_enter_call(cs);
  int alg = P < 2 ? PAT_ALG_RING : setting >= 0 ? setting : auto_choice(cs, &v);
  if (alg == PAT_ALG_NATIVE)
    rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  else
    rc = pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL ? run_packed(cs, alg, &v.g) : pat_gather_run_classic(cs, alg, &v.g);
  __atomic_store_n(&cs->planner.last_alg, alg, __ATOMIC_RELAXED); /* PAT_LastAlg reads it unlocked */
  pat_comm_leave_call(cs);
  pat_call_stats st = {.alg = alg};
  pat_stats_call(&st);
  if (rc == MPI_SUCCESS) return rc;
  if (alg == PAT_ALG_NATIVE) return pat_fail(rc, "PAT_Allgatherv: MPI's own failed");
  return pat_fail(rc, "PAT_Allgatherv: %s failed", pat_algorithms[alg].name);
}
