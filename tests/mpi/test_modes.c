/*
 * auto's exchange policy under MPI: sites switch between exchanging and not
 * (balanced phases, imbalanced phases, probes), with wrong predictions, a
 * rank seconds late, several sites, and communicators freed and created
 * between calls -- every result is checked, every rank's last decision is
 * the same (digest of its inputs and outputs), and nothing hangs (a hang
 * fails through ctest's timeout).
 *
 *   test_modes [--late-seconds S] [--v]
 *
 * --v: every other call is a PAT_Allgatherv of equal blocks, which under
 * auto takes the all-gather's path (src/runtime/call.h): blocks in reversed
 * order with gaps (untouched), every fourth call in place, mixed with
 * PAT_Allgather at the same sites.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

static long failures, cases;
static int rank, P;

static unsigned shared_seed = 7; /* the same sequence on every rank: sizes, phases */
static int shared_rand(int n) { return rand_r(&shared_seed) % n; }

static int lying;
static int64_t lie(int r, int p, int64_t seq, int64_t predicted) {
  (void)p;
  if (!lying) return predicted;
  return predicted + (int64_t)((seq * 7919 + (uint64_t)r * 104729) % 50) * 1000000; /* up to 49 ms off */
}

static int with_v; /* --v */
static long v_calls, v_arrival_aware; /* all-gatherv calls, and those that ran an arrival-aware algorithm */

#define GAP 3 /* elements between the all-gatherv's blocks */

/* PAT_Allgatherv of `count` doubles per rank, blocks in reversed order
 * GAP apart, in place or not; returns the call's code, the blocks copied
 * into all (rank order), and the gaps' wrong elements counted in *wrong. */
static int gatherv_equal(const double *mine, int count, double *all, MPI_Comm comm, int p, int me, int in_place,
                         long *wrong) {
  size_t stride = (size_t)count + GAP;
  double *buf = malloc(stride * p * sizeof *buf);
  int *c = malloc((size_t)p * sizeof *c), *d = malloc((size_t)p * sizeof *d);
  for (size_t i = 0; i < stride * p; i++) buf[i] = -1.0;
  for (int r = 0; r < p; r++) {
    c[r] = count;
    d[r] = (int)(stride * (size_t)(p - 1 - r));
  }
  if (in_place) memcpy(buf + d[me], mine, (size_t)count * sizeof *mine);
  int rc = PAT_Allgatherv(in_place ? MPI_IN_PLACE : mine, count, MPI_DOUBLE, buf, c, d, MPI_DOUBLE, comm);
  for (int r = 0; r < p; r++) {
    memcpy(all + (size_t)r * count, buf + d[r], (size_t)count * sizeof *all);
    for (int g = 0; g < GAP; g++)
      if (buf[d[r] + count + g] != -1.0) (*wrong)++;
  }
  const char *alg = PAT_LastAlg(comm);
  v_calls++;
  if (!strcmp(alg, "bdr") || !strcmp(alg, "bslb") || !strcmp(alg, "ard") || !strcmp(alg, "relay")) v_arrival_aware++;
  free(buf);
  free(c);
  free(d);
  return rc;
}

static void one_call(MPI_Comm comm, int count, int k) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  double *mine = malloc((size_t)count * sizeof *mine), *all = malloc((size_t)count * p * sizeof *all);
  for (int i = 0; i < count; i++) mine[i] = me * 1e6 + i + 0.5 * k;
  long wrong = 0;
  int rc = with_v && k % 2 == 0 ? gatherv_equal(mine, count, all, comm, p, me, k % 4 == 0, &wrong)
                                : PAT_Allgather(mine, count, MPI_DOUBLE, all, count, MPI_DOUBLE, comm);
  CHECK(rc == MPI_SUCCESS, "call %d: %s", k, PAT_Error_string(rc));
  CHECK(wrong == 0, "call %d: %ld elements of the gaps written", k, wrong);
  for (int r = 0; r < p && rc == MPI_SUCCESS; r++)
    for (int i = 0; i < count; i++)
      if (all[(size_t)r * count + i] != r * 1e6 + i + 0.5 * k) wrong++;
  CHECK(wrong == 0, "call %d: %ld wrong elements", k, wrong);
  uint64_t digest, *digests = malloc((size_t)p * sizeof *digests);
  int alg;
  pat_debug_last_plan(comm, &digest, &alg, NULL);
  MPI_Allgather(&digest, 1, MPI_UINT64_T, digests, 1, MPI_UINT64_T, comm);
  for (int r = 1; r < p; r++) CHECK(digests[r] == digests[0], "call %d: ranks 0 and %d decided differently", k, r);
  free(digests);
  free(mine);
  free(all);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, NULL);
  double late_s = 2.0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--late-seconds") == 0 && i + 1 < argc) late_s = atof(argv[++i]);
    if (strcmp(argv[i], "--v") == 0) with_v = 1;
  }
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  pat_test_prediction_hook = lie;
  const int counts[] = {1, 512, 8192, 65536};
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  srand(99 + rank);
  for (int k = 0; k < 400; k++) {
    int phase = (k / 50) % 4; /* balanced, one rank late, random lateness with lies, balanced */
    int count = counts[shared_rand(4)];
    if (k % 50 == 0) count = counts[k / 50 % 4];
    lying = phase == 2;
    if (phase == 1 && rank == k % P) sleep_ms(10);
    if (phase == 2) sleep_ms(rand() % 8);
    if (k == 217 && rank == P - 1) sleep_ms(1000 * late_s); /* a rank seconds late */
    if (k % 3 == 0) PAT_ProcessingStart();
    if (k % 3 == 0) PAT_Edge(k % 2 ? 30 : 70);
    if (k % 3 == 0) PAT_ProcessingEnd();
    one_call(comm, count, k);
    if (k % 37 == 36) { /* freed between calls, in rank-dependent order with another one */
      MPI_Comm other;
      MPI_Comm_split(MPI_COMM_WORLD, 0, P - rank, &other);
      one_call(other, 100, k);
      if (rank % 2) {
        MPI_Comm_free(&comm);
        MPI_Comm_free(&other);
      } else {
        MPI_Comm_free(&other);
        MPI_Comm_free(&comm);
      }
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    }
  }
  MPI_Comm_free(&comm);
  PAT_Stats st;
  PAT_GetStats(&st);
  if (rank == 0) printf("policy: %lld calls, %lld exchanged\n", st.calls, st.exchanged_calls);
  if (with_v) { /* the all-gatherv's calls took the all-gather's path, as far as its plans */
    if (rank == 0) printf("all-gatherv: %ld calls, %ld arrival-aware\n", v_calls, v_arrival_aware);
    /* with an exchange before every call, the calls with one rank 10 ms late run BDR and the like */
    const char *ex = getenv("PAT_EXCHANGE");
    if (ex && strcmp(ex, "always") == 0)
      CHECK(v_arrival_aware > 0, "no all-gatherv call ran an arrival-aware algorithm");
  }
  int bad = report_failures("policy", cases, failures, MPI_COMM_WORLD);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
