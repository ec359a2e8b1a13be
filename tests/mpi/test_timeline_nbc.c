/*
 * PAT_TIMELINE for the non-blocking and persistent all-gathers: this
 * program makes the calls, bench/timeline/round.py --check reads the files
 * (tests/mpi/timeline_check.sh runs both).
 *
 * Under PAT_ALG=relay a persistent all-gather runs RELAY_ROUNDS rounds of
 * RELAY (persist.c): in each, rank round % P starts last (LATE_MS after the
 * others), and from the second round on the round's run started ahead: that
 * rank waits until every other block of the round is held before it starts
 * (P >= 3).
 * Then NBC_CALLS PAT_Iallgather calls under ring and as many under relay
 * (whose later runs start ahead of their calls), and a persistent call
 * started PER_START_ROUNDS times (each start a PAT_Iallgather of ring's
 * schedule), and under native a persistent call started as often (MPI's own
 * non-blocking all-gather per start).  Every round's data is checked here;
 * the timeline's shape there.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/nbc_queue.h" /* pat_nbc_ahead_adopted */
#include "runtime/persist.h"   /* pat_persist_prefetched */

#define RELAY_ROUNDS 6
#define LATE_MS 20
#define NBC_CALLS 3
#define PER_START_ROUNDS 2
#define N 3000

static int bad_data;

static void fill(int *send, int rank, int round) {
  for (int k = 0; k < N; k++) send[k] = rank * 100003 + round * 31 + k;
}

static void check(const int *recv, int P, int round) {
  for (int o = 0; o < P; o++)
    for (int k = 0; k < N; k++) bad_data += recv[o * N + k] != o * 100003 + round * 31 + k;
}

/* Rounds of a persistent all-gather set up under alg; late: rank round % P starts last. */
static int persistent_rounds(const char *alg, int rounds, int late, int *send, int *recv, int rank, int P) {
  if (PAT_UseAlg(alg) != MPI_SUCCESS) return MPI_ERR_ARG;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = PAT_Allgather_init(send, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int round = 0; round < rounds && rc == MPI_SUCCESS; round++) {
    fill(send, rank, round);
    MPI_Barrier(MPI_COMM_WORLD);
    if (late && rank == round % P) {
      usleep(1000 * LATE_MS);
      for (int ms = 0; round > 0 && P > 2 && ms < 10000 && pat_persist_prefetched(req) < P - 1; ms++) usleep(1000);
    }
    rc = PAT_Start(&req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    PAT_Waited(req);
    check(recv, P, round);
  }
  if (req != MPI_REQUEST_NULL) PAT_Request_free(&req);
  return rc;
}

int main(int argc, char **argv) {
  int rank, P;
  test_init(&argc, &argv, &rank, &P, "");
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  int *send = malloc(N * sizeof *send), *recv = malloc((size_t)P * N * sizeof *recv);
  int rc = persistent_rounds("relay", RELAY_ROUNDS, 1, send, recv, rank, P);
  PAT_UseAlg("ring");
  for (int call = 0; call < NBC_CALLS && rc == MPI_SUCCESS; call++) {
    MPI_Request req;
    fill(send, rank, 1000 + call);
    rc = PAT_Iallgather(send, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(recv, P, 1000 + call);
  }
  /* RELAY's runs of the second and third calls start ahead of them: their ops' posts are recorded from then */
  PAT_UseAlg("relay");
  long long adopted = pat_nbc_ahead_adopted();
  for (int call = 0; call < NBC_CALLS && rc == MPI_SUCCESS; call++) {
    MPI_Request req;
    usleep(20000); /* a compute phase: the background thread starts the next call's run meanwhile */
    fill(send, rank, 2000 + call);
    rc = PAT_Iallgather(send, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(recv, P, 2000 + call);
  }
  if (rc == MPI_SUCCESS && pat_nbc_ahead_adopted() - adopted < NBC_CALLS - 1) {
    fprintf(stderr, "FAIL rank %d: %lld RELAY calls took over a run started ahead, want %d\n", rank,
            pat_nbc_ahead_adopted() - adopted, NBC_CALLS - 1);
    bad_data++;
  }
  if (rc == MPI_SUCCESS) rc = persistent_rounds("ring", PER_START_ROUNDS, 0, send, recv, rank, P);
  if (rc == MPI_SUCCESS) rc = persistent_rounds("native", PER_START_ROUNDS, 0, send, recv, rank, P);
  int failed = rc != MPI_SUCCESS || bad_data, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) fprintf(stderr, "FAIL rank %d: rc %d, %d wrong ints\n", rank, rc, bad_data);
  free(send);
  free(recv);
  PAT_Finalize();
  MPI_Finalize();
  return any;
}
