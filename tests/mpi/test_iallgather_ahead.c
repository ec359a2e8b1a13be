/*
 * Non-blocking all-gathers whose runs start ahead of the call (run.h):
 * an iterative loop of PAT_Iallgather(v) under each algorithm named on
 * the command line (relay, hrelay), ranks posting at rotating times (the
 * late rank's background thread takes and relays the others' pieces while
 * it sleeps), new data every iteration, each result compared byte by byte,
 * margins included, with MPI's own blocking call.  The loop keeps the
 * blocks and changes what may change around a run started ahead: the
 * datatype (floats, then pairs of floats: the same bytes), in place or
 * not, and twice the blocks' size (the run started ahead is given up on
 * every rank, and the next one starts for the new size); an all-gatherv of
 * unequal blocks (zero ones too) repeated the same way; and on a
 * communicator the application frees while a run is started ahead of a
 * call that never comes.  Checks that runs were started ahead and taken
 * over by their calls (libpat's counters) and that every call ran the
 * algorithm's schedule; under auto with a node per rank, where RELAY and
 * DIRECT are measured against each other (decide/nbc_choice.h), that both
 * ran and every rank ran each as often.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "pat.h"
#include "nbc_counts.h" /* libpat's counters of non-blocking calls */

#define ITERS 24

static long cases, failures;
static int rank;

/* One call of the loop: count floats (or count / 2 pairs) per rank, or an
 * all-gatherv of count * ((r + 1) % 3) floats for rank r. */
static void one_call(const char *alg, MPI_Comm comm, int it, int count, int pairs, int in_place, int vee) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  int *counts = malloc(2 * (size_t)P * sizeof *counts), *displs = counts + P, total = 0;
  for (int r = 0; r < P; r++) {
    counts[r] = vee ? count * ((r + 1) % 3) : count;
    displs[r] = total;
    total += counts[r];
  }
  size_t bytes = (size_t)total * sizeof(float) + 64;
  float *send = malloc((size_t)counts[me] * sizeof(float) + 4);
  char *ours = malloc(bytes), *ref = malloc(bytes);
  fill_pattern(send, (size_t)counts[me] * sizeof(float), (unsigned)(it * 131 + me * 7 + count));
  memset(ours, 0x5A, bytes);
  memset(ref, 0x5A, bytes);
  if (in_place) {
    memcpy(ours + (size_t)displs[me] * sizeof(float), send, (size_t)counts[me] * sizeof(float));
    memcpy(ref + (size_t)displs[me] * sizeof(float), send, (size_t)counts[me] * sizeof(float));
  }
  const void *sbuf = in_place ? MPI_IN_PLACE : send;
  if (vee)
    PMPI_Allgatherv(sbuf, counts[me], MPI_FLOAT, ref, counts, displs, MPI_FLOAT, comm);
  else
    PMPI_Allgather(sbuf, count, MPI_FLOAT, ref, count, MPI_FLOAT, comm);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_FLOAT, &pair);
  MPI_Type_commit(&pair);
  sleep_ms((double)((me + it) % P) * 3); /* posts spread, the late rank rotating */
  MPI_Request req;
  int rc = vee ? PAT_Iallgatherv(sbuf, counts[me], MPI_FLOAT, ours, counts, displs, MPI_FLOAT, comm, &req)
           : pairs ? PAT_Iallgather(sbuf, count / 2, pair, ours, count / 2, pair, comm, &req)
                   : PAT_Iallgather(sbuf, count, MPI_FLOAT, ours, count, MPI_FLOAT, comm, &req);
  MPI_Type_free(&pair); /* MPI allows it while the call is in flight */
  sleep_ms(2);          /* compute while the call moves */
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  long diff = first_difference(ours, ref, bytes);
  CHECK(rc == MPI_SUCCESS && diff < 0, "alg=%s it=%d count=%d pairs=%d in_place=%d vee=%d: rc %d, byte %ld", alg, it,
        count, pairs, in_place, vee, rc, diff);
  free(counts);
  free(send);
  free(ours);
  free(ref);
}

/* Under auto, a call of small blocks is MPI's own: libpat queues nothing. */
static void small_blocks_are_mpi_own(MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  float mine[4] = {1, 2, 3, (float)rank}, *all = malloc((size_t)P * sizeof mine);
  long long before = pat_nbc_queued_calls();
  MPI_Request req;
  int rc = PAT_Iallgather(mine, 4, MPI_FLOAT, all, 4, MPI_FLOAT, comm, &req);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS && all[4 * (P - 1) + 3] == (float)(P - 1) && pat_nbc_queued_calls() == before,
        "auto, 16-byte blocks: rc %d, %lld calls queued", rc, pat_nbc_queued_calls() - before);
  free(all);
}

/* Returns the calls libpat's queue got (a single process's are copied at once). */
static int loop(const char *alg, MPI_Comm comm, int vee) {
  int size;
  MPI_Comm_size(comm, &size);
  for (int it = 0; it < ITERS; it++) {
    int count = it >= ITERS - 6 ? 40000 : 20000; /* the last six: blocks twice the size */
    one_call(alg, comm, it, count, !vee && it % 4 == 1, it % 3 == 2, vee);
  }
  return size > 1 ? ITERS : 0;
}

/* loop() on comm, adding the calls that ran RELAY and DIRECT to on_comm. */
static int loop_on_comm(const char *alg, MPI_Comm comm, int vee, long long on_comm[2]) {
  long long relay = pat_nbc_completed_by(nbc_alg_index("relay"));
  long long direct = pat_nbc_completed_by(nbc_alg_index("direct"));
  int calls = loop(alg, comm, vee);
  on_comm[0] += pat_nbc_completed_by(nbc_alg_index("relay")) - relay;
  on_comm[1] += pat_nbc_completed_by(nbc_alg_index("direct")) - direct;
  return calls;
}

/* auto, a node per rank, P > 2: RELAY and DIRECT measured against each other (decide/nbc_choice.h),
 * each call's choice the same on every rank (a call the ranks ran differently would have hung or
 * failed its check), both tried: the counts every rank ran are the same. */
static void chose_alike(const long long on_comm[2]) {
  long long low[2], high[2];
  MPI_Allreduce(on_comm, low, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(on_comm, high, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  CHECK(low[0] == high[0] && low[1] == high[1], "auto: RELAY ran %lld-%lld, DIRECT %lld-%lld calls on the ranks",
        low[0], high[0], low[1], high[1]);
  CHECK(on_comm[0] >= 2 && on_comm[1] >= 1 && on_comm[0] + on_comm[1] == 3 * ITERS,
        "auto: %lld RELAY and %lld DIRECT of %d calls", on_comm[0], on_comm[1], 3 * ITERS);
}

int main(int argc, char **argv) {
  int P;
  test_init(&argc, &argv, &rank, &P, NULL);
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int a = 1; a < argc; a++) {
    const char *alg = argv[a];
    CHECK(PAT_UseAlg(alg) == MPI_SUCCESS, "PAT_UseAlg(%s)", alg);
    long long started = pat_nbc_ahead_started(), adopted = pat_nbc_ahead_adopted();
    long long queued = pat_nbc_queued_calls(), ran = nbc_ran_by(alg);
    MPI_Comm comm, freed;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (!strcmp(alg, "auto") && P > 1) small_blocks_are_mpi_own(comm);
    long long on_comm[2] = {0, 0}; /* RELAY's and DIRECT's calls on comm */
    long long expected = loop_on_comm(alg, comm, 0, on_comm);
    expected += loop_on_comm(alg, comm, 1, on_comm);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, P - rank, &freed); /* reversed ranks */
    expected += loop(alg, freed, 0);
    MPI_Comm_free(&freed); /* a run started ahead on it is given up */
    expected += loop_on_comm(alg, comm, 0, on_comm); /* comm is left to MPI_Finalize, with a run started ahead on it */
    started = pat_nbc_ahead_started() - started;
    adopted = pat_nbc_ahead_adopted() - adopted;
    queued = pat_nbc_queued_calls() - queued;
    ran = nbc_ran_by(alg) - ran;
    if (rank == 0)
      printf("%s: %lld calls queued, %lld runs started ahead, %lld taken over, %lld RELAY, %lld DIRECT\n", alg, queued,
             started, adopted, pat_nbc_completed_by(nbc_alg_index("relay")),
             pat_nbc_completed_by(nbc_alg_index("direct")));
    int measured = !strcmp(alg, "auto") && P > 2 && pat_nbc_node_count(comm) == P; /* else HRELAY */
    if (measured) chose_alike(on_comm);
    else if (P > 1) /* each loop's calls but the first and the first of the new size: most of them took over a
                     * run started ahead (the background thread starts one once the last call is done) */
      CHECK(adopted >= 2 * ITERS, "alg=%s: %lld of the calls took over a run started ahead", alg, adopted);
    if (P > 1) {
      CHECK(started >= adopted, "alg=%s: %lld runs started ahead, %lld taken over", alg, started, adopted);
      CHECK(queued == expected && ran == queued, "alg=%s: %lld calls queued, %lld ran its schedule", alg, queued, ran);
    }
  }
  int rc = report_failures("iallgather ahead", cases, failures, MPI_COMM_WORLD);
  PAT_Finalize(); /* comm's run started ahead is given up here */
  MPI_Finalize();
  return rc;
}
