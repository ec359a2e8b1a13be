/*
 * auto's exchange policy under MPI: sites switch between exchanging and not
 * (balanced phases, imbalanced phases, probes), with wrong predictions, a
 * rank seconds late, several sites, and communicators freed and created
 * between calls -- every result is checked, every rank's last decision is
 * the same (digest of its inputs and outputs), and nothing hangs (a hang
 * fails through ctest's timeout).
 *
 *   test_modes [--late-seconds S] [--v | --vunequal]
 *
 * --v: every other call is a PAT_Allgatherv of equal blocks, which under
 * auto takes the all-gather's path (src/runtime/call.h): blocks in reversed
 * order with gaps (untouched), one call in four in place, mixed with
 * PAT_Allgather at the same sites.
 * --vunequal: the same with blocks of different sizes, which take that path
 * by their shape key (pat/shape.h): a ramp, one rank 4x, an empty block, and
 * a ramp whose counts drift from call to call (the same key, other blocks:
 * plans made ahead for the old ones are made again).
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

static int with_v;       /* --v or --vunequal */
static int with_unequal; /* --vunequal */
static long v_calls, v_arrival_aware; /* all-gatherv calls, and those that ran an arrival-aware algorithm */
static long vu_calls, vu_arrival_aware; /* the same of those with unequal blocks */

#define GAP 3 /* elements between the all-gatherv's blocks */

/* Rank r's count in call k of `count` elements: count, or under
 * --vunequal in the all-gatherv's calls one of the unequal patterns. */
static int count_of(int count, int r, int p, int k) {
  if (!with_unequal || k % 2 != 0) return count;
  switch (k / 2 % 5) {
  case 0: return count;                                   /* equal */
  case 1: return count * (r + 1) / p + 1;                 /* a ramp */
  case 2: return r == p - 1 ? 4 * count : count;          /* one rank 4x */
  case 3: return r == 1 ? 0 : count;                      /* an empty block */
  default: return count * (r + 1) / p + 1 + k / 2 % 3 * r; /* a ramp that drifts */
  }
}

/* PAT_Allgatherv of c[r] doubles from rank r, blocks in reversed order
 * GAP apart, in place or not; returns the call's code, the blocks copied
 * into all (rank order, packed), and the gaps' wrong elements counted in
 * *wrong. */
static int gatherv(const double *mine, const int *c, double *all, MPI_Comm comm, int p, int me, int in_place,
                   long *wrong) {
  size_t total = 0;
  for (int r = 0; r < p; r++) total += (size_t)c[r] + GAP;
  double *buf = malloc(total * sizeof *buf);
  int *d = malloc((size_t)p * sizeof *d);
  for (size_t i = 0; i < total; i++) buf[i] = -1.0;
  size_t at = 0;
  for (int r = p - 1; r >= 0; r--) {
    d[r] = (int)at;
    at += (size_t)c[r] + GAP;
  }
  if (in_place) memcpy(buf + d[me], mine, (size_t)c[me] * sizeof *mine);
  int rc = PAT_Allgatherv(in_place ? MPI_IN_PLACE : mine, c[me], MPI_DOUBLE, buf, c, d, MPI_DOUBLE, comm);
  at = 0;
  for (int r = 0; r < p; r++) {
    memcpy(all + at, buf + d[r], (size_t)c[r] * sizeof *all);
    at += (size_t)c[r];
    for (int g = 0; g < GAP; g++)
      if (buf[d[r] + c[r] + g] != -1.0) (*wrong)++;
  }
  const char *alg = PAT_LastAlg(comm);
  int aware = !strcmp(alg, "bdr") || !strcmp(alg, "bslb") || !strcmp(alg, "ard") || !strcmp(alg, "relay");
  int unequal = 0;
  for (int r = 1; r < p; r++) unequal |= c[r] != c[0];
  v_calls++;
  v_arrival_aware += aware;
  vu_calls += unequal;
  vu_arrival_aware += aware && unequal;
  free(buf);
  free(d);
  return rc;
}

static void one_call(MPI_Comm comm, int count, int k) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  int *c = malloc((size_t)p * sizeof *c);
  size_t total = 0;
  for (int r = 0; r < p; r++) total += (size_t)(c[r] = count_of(count, r, p, k));
  double *mine = malloc(((size_t)c[me] + 1) * sizeof *mine), *all = malloc((total + 1) * sizeof *all);
  for (int i = 0; i < c[me]; i++) mine[i] = me * 1e6 + i + 0.5 * k;
  long wrong = 0;
  int rc = with_v && k % 2 == 0 ? gatherv(mine, c, all, comm, p, me, k % 4 == 0, &wrong)
                                : PAT_Allgather(mine, count, MPI_DOUBLE, all, count, MPI_DOUBLE, comm);
  CHECK(rc == MPI_SUCCESS, "call %d: %s", k, PAT_Error_string(rc));
  CHECK(wrong == 0, "call %d: %ld elements of the gaps written", k, wrong);
  size_t at = 0;
  for (int r = 0; r < p && rc == MPI_SUCCESS; r++)
    for (int i = 0; i < c[r]; i++)
      if (all[at++] != r * 1e6 + i + 0.5 * k) wrong++;
  CHECK(wrong == 0, "call %d: %ld wrong elements", k, wrong);
  free(c);
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
  double late_s = 0.5; /* against calls of at most milliseconds; 2 s took CI 10 s over its launches */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--late-seconds") == 0 && i + 1 < argc) late_s = atof(argv[++i]);
    if (strcmp(argv[i], "--v") == 0) with_v = 1;
    if (strcmp(argv[i], "--vunequal") == 0) with_v = with_unequal = 1;
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
    if (rank == 0)
      printf("all-gatherv: %ld calls, %ld arrival-aware; unequal blocks: %ld calls, %ld arrival-aware\n", v_calls,
             v_arrival_aware, vu_calls, vu_arrival_aware);
    /* with an exchange before every call, the calls with one rank 10 ms late run BDR and the like */
    const char *ex = getenv("PAT_EXCHANGE");
    if (ex && strcmp(ex, "always") == 0) {
      CHECK(v_arrival_aware > 0, "no all-gatherv call ran an arrival-aware algorithm");
      if (with_unequal) CHECK(vu_arrival_aware > 0, "no all-gatherv of unequal blocks ran an arrival-aware algorithm");
    }
  }
  int bad = report_failures("policy", cases, failures, MPI_COMM_WORLD);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
