/*
 * PAT_Allgatherv: MPI_Allgatherv, blocks of any sizes.  The arguments are
 * checked as MPI would; then the setting's algorithm runs.  native is the
 * MPI library's own all-gatherv; a classic setting runs its schedule on the
 * user's buffer in its datatype, blocks of the sizes the counts give
 * (exec/buffers.h: schedules name blocks, never bytes, so every schedule
 * serves unequal blocks unchanged).
 *
 * auto and the arrival-aware settings take the all-gather's path
 * (runtime/call.h): its call sites, exchanges, plans made ahead from
 * history or instrumentation, refinement and guardrail.  Equal blocks are
 * an all-gather whose blocks sit at the displacements.  Unequal ones are
 * told apart by a shape key where an all-gather has its block size
 * (pat/shape.h): a signature of the blocks that stays the same while
 * counts drift a little, so that the site keeps its history.  The site
 * keeps the blocks of its last call: a plan made ahead is laid out by them,
 * and made again (replanned, every rank alike) when the call's blocks
 * differ.  The site's static choice is the count vector's
 * (decide/vchoice.h: NATIVE without a model file or beyond its P); the
 * model predicts the arrival-aware algorithms at the mean block, and the
 * refinement learns what the blocks' sizes change.
 *
 * Every rank sizes each block from its own counts.  Ranks whose counts
 * disagree (an erroneous program):
 *  - in an exchange made on arrival (a site's first call, and the calls
 *    after an unexpected one) their records differ: every rank returns
 *    MPI_ERR_TRUNCATE and nothing is gathered;
 *  - against records made ahead, a rank whose blocks are not the predicted
 *    ones runs the predicted call with marker blocks (call.c), and returns
 *    MPI_ERR_TRUNCATE when others gathered real data;
 *  - under a classic setting (no exchange) they see messages of the wrong
 *    size: MPI_ERR_TRUNCATE where they arrive, while every rank still runs
 *    its whole schedule (exec/executor.h), so that no rank is left waiting;
 *  - where no exchange is made (a site in the static mode), ranks whose
 *    different counts give different keys may choose different algorithms,
 *    and may wait for each other (an agreement on the counts would cost
 *    every call an extra collective that waits for the last arrival; not
 *    built).
 */
#include <stdlib.h>

#include "pat.h"
#include "pat/clock.h"
#include "pat/shape.h"
#include "runtime/args.h"
#include "runtime/call.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/process.h"
#include "runtime/through.h"

#define PAT_VCALL_SMALL_P 64 /* a shape of up to this many ranks lives on the stack */

/* The call's arguments as the all-gather's path takes them (counts and
 * displs set), and what the checks learned. */
typedef struct vcall {
  pat_call_args g;
  long long type_size; /* of recvtype */
  int equal;           /* every count the same */
  int64_t *shape;      /* unequal blocks: P bytes (on the caller's stack up to PAT_VCALL_SMALL_P, or allocated) */
} vcall;

/* The arguments of an intra-communicator all-gatherv of P ranks, as this
 * rank passed them (the communicator is checked before). */
static int check_args(vcall *v, int P, int rank) {
  pat_call_args *g = &v->g;
  MPI_Count rsize;
  long long total;
  int rc = pat_check_allgatherv(g->name, g->sendbuf, g->sendcount, g->sendtype, g->recvbuf, g->counts, g->displs,
                                g->recvtype, P, rank, &rsize, &total);
  if (rc != MPI_SUCCESS) return rc;
  v->type_size = (long long)rsize;
  v->equal = 1;
  for (int r = 1; r < P; r++) v->equal &= g->counts[r] == g->counts[0];
  g->recvcount = g->counts[0];
  g->bytes = g->key = (long long)rsize * g->counts[0]; /* equal blocks' (make_shape for unequal ones) */
  return MPI_SUCCESS;
}

/* Blocks that are not all equal get a shape (pat/shape.h): the bytes of
 * every block, their key and exact hash; the call's bytes become their
 * mean and its count the mean count (what a report shows for the site). */
static void make_shape(vcall *v, int P) {
  pat_call_args *g = &v->g;
  long long count_sum = 0;
  for (int r = 0; r < P; r++) {
    v->shape[r] = (int64_t)g->counts[r] * v->type_size;
    count_sum += g->counts[r];
  }
  g->shape = v->shape;
  g->shape_hash = pat_shape_hash(P, v->shape);
  g->key = pat_shape_key(pat_vsig(P, v->shape));
  g->bytes = pat_shape_mean(P, v->shape);
  g->recvcount = (int)((count_sum + P - 1) / P);
}

int pat_allgatherv_through(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  pat_comm_state *cs = pat_gather_passing_state(comm);
  /* not one process: libpat copies its block (MPICH's own all-gatherv ignores its displacement) */
  if (!cs || cs->base.P < 2 ||
      !pat_allgatherv_plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, cs->base.P,
                                    cs->base.rank))
    return 0;
  pat_gather_count_through(cs);
  return 1;
}

int PAT_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (pat_allgatherv_through(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)) {
    int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    return pat_mpi_own_result(rc, "PAT_Allgatherv");
  }
  vcall v = {.g = pat_allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                     "PAT_Allgatherv")};
  pat_comm_state *cs;
  int rc, P, rank;
  if (pat_gather_enter(&v.g, &cs, &rc)) return rc;
  if (cs) {
    P = cs->base.P;
    rank = cs->base.rank;
  } else {
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
  }
  rc = check_args(&v, P, rank);
  if (rc != MPI_SUCCESS) return rc;
  int setting = pat_proc.alg;
  /* PAT_ALG=native needs no state (a communicator only ever gathered with v gets none) unless the report
   * wants the call's row */
  if (P > 1 && ((setting == PAT_ALG_NATIVE && !pat_proc.settings.report) ||
                (setting == PAT_ALG_AUTO && cs && pat_gather_passes_through(cs))))
    return pat_gather_pass_through(cs, &v.g);
  v.g.arrival = pat_clock_global_ns(); /* before the state is made, which may wait for the other ranks */
  if (!cs) { /* made once: later calls find it without asking MPI (pat_comm_cached) */
    rc = pat_comm_get(comm, &cs);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (P > 1 && setting == PAT_ALG_AUTO && pat_gather_passes_through(cs)) return pat_gather_pass_through(cs, &v.g);
  /* Every other call takes the all-gather's path, a classic setting's too: its call site, history and report
   * row are the all-gather's (before, classic settings ran their schedule here and the report showed no row).
   * One process copies its block there with RING's empty schedule, under any setting, since MPICH 4.0's own
   * all-gatherv writes it at the start of recvbuf whatever its displacement. */
  if (v.equal) return pat_gather_run(cs, &v.g);
  /* not in vcall: its initialiser would clear it on every call, equal blocks' too (osu_allgatherv at
   * P = 2 measured about 20 ns per call for it) */
  int64_t shape_small[PAT_VCALL_SMALL_P];
  v.shape = P <= PAT_VCALL_SMALL_P ? shape_small : malloc((size_t)P * sizeof *v.shape);
  if (!v.shape) return pat_fail(MPI_ERR_NO_MEM, "PAT_Allgatherv: out of memory");
  make_shape(&v, P);
  rc = pat_gather_run(cs, &v.g);
  if (v.shape != shape_small) free(v.shape);
  return rc;
}
