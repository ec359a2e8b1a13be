/*
 * Persistent all-gathers whose starts take the non-blocking calls' one
 * decision (persist.c): under an arrival-aware setting (relay) every start
 * runs RELAY, whose run of the next start starts ahead once the start
 * before completed here; under auto (run with PAT_NODE_SIZE=1: a node per
 * rank) RELAY measured against DIRECT, MPI's own below its block size.  On
 * each of the matrix's communicators (world, reversed, halves) three
 * persistent calls set up on one communicator and started together in the
 * same order (PAT_Startall): an all-gather of 32 Ki ints (128 KiB blocks:
 * two pieces per relay at P = 3), an in-place all-gatherv with zero
 * blocks, reverse order and gaps, and an in-place all-gather of one int
 * (too small to be split into pieces).  Over ROUNDS rounds a different rank
 * is late each round, by LATE_MS or more (the others are delayed by unequal
 * small amounts), so every rank is sometimes last.
 *
 * Checked each round, with values that depend on owner, round and index:
 *  - every block, the own one included, and the gaps untouched;
 *  - the application's recvbuf is never written before its start: after
 *    each round every rank fills the all-gather's recvbuf with a sentinel
 *    (the application reusing its buffer), and finds it intact just before
 *    its next start.  Under relay the late rank waits until the others'
 *    blocks of the round were received into libpat's staging buffer first,
 *    so a schedule that put them straight into recvbuf fails here (the
 *    others start with some pieces staged, the rest coming after);
 *  - under relay the late rank, holding every other block at its start,
 *    relays its block: its round ran RELAY (pat_nbc_completed_by);
 *  - under auto the large all-gather's starts ran RELAY or DIRECT, as many
 *    RELAY on every rank of the communicator, and the two small calls MPI's
 *    own (no other start completed on libpat's queue).
 * The last round frees the requests while active (MPI allows it): they
 * still complete, counted by their signals (pat_nbc_signalled).
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"
#include "pat.h"
#include "algorithms/algorithms.h" /* PAT_ALG_RELAY */
#include "runtime/nbc_queue.h"     /* pat_nbc_completed_by */
#include "runtime/persist.h"       /* pat_persist_prefetched */

#define ROUNDS 12
#define N 32768 /* 128 KiB blocks: several pieces per relay at P = 3 */
#define SENTINEL (-7)
#define LATE_MS 30

static long failures, cases;
static int world_rank;
static int under_auto; /* PAT_UseAlg("auto"): the large call measured, the small ones MPI's own */

#define FAIL_IF(cond, ...)                                                   \
  do {                                                                       \
    cases++;                                                                 \
    if (cond) {                                                              \
      failures++;                                                            \
      if (failures <= 20) {                                                  \
        fprintf(stderr, "FAIL world rank %d line %d: ", world_rank, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                        \
        fputc('\n', stderr);                                                 \
      }                                                                      \
    }                                                                        \
  } while (0)

static int value(int owner, int round, int k) { return owner * 1000003 + round * 7919 + k; }

/* Until the run started ahead holds the P - 1 other blocks of the next round of each call (10 s at most). */
static int wait_held(const MPI_Request req[3], int P) {
  for (int ms = 0; ms < 10000; ms++) {
    int all = 1;
    for (int i = 0; i < 3; i++) all &= pat_persist_prefetched(req[i]) == P - 1;
    if (all) return 1;
    usleep(1000);
  }
  return 0;
}

static void check_comm(const char *cname, MPI_Comm comm) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  int *send = malloc(N * sizeof *send), *ga = malloc((size_t)P * N * sizeof *ga);
  int *tiny = malloc((size_t)P * sizeof *tiny);
  /* the all-gatherv: every third rank gives nothing; reverse order, one-int gaps */
  int *vc = malloc(2 * (size_t)P * sizeof *vc), *vd = vc + P, len = 1;
  for (int r = P - 1; r >= 0; r--) {
    vc[r] = r % 3 == 1 ? 0 : 40 + 13 * r;
    vd[r] = len;
    len += vc[r] + 1;
  }
  int *gv = malloc((size_t)len * sizeof *gv);
  for (int i = 0; i < len; i++) gv[i] = SENTINEL;
  for (int i = 0; i < P * N; i++) ga[i] = SENTINEL;
  MPI_Request req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int rc = PAT_Allgather_init(send, N, MPI_INT, ga, N, MPI_INT, comm, MPI_INFO_NULL, &req[0]);
  if (rc == MPI_SUCCESS)
    rc = PAT_Allgatherv_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gv, vc, vd, MPI_INT, comm, MPI_INFO_NULL, &req[1]);
  if (rc == MPI_SUCCESS)
    rc = PAT_Allgather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, tiny, 1, MPI_INT, comm, MPI_INFO_NULL, &req[2]);
  FAIL_IF(rc != MPI_SUCCESS, "comm=%s: set-up rc %d", cname, rc);
  long long signals_before = pat_nbc_signalled(), queued_before = pat_nbc_completed_calls();
  long long relay_before = pat_nbc_completed_by(PAT_ALG_RELAY), direct_before = pat_nbc_completed_by(PAT_ALG_DIRECT);
  for (int round = 0; round < ROUNDS && rc == MPI_SUCCESS; round++) {
    int late = round % P, last_round = round == ROUNDS - 1;
    for (int k = 0; k < N; k++) send[k] = value(rank, round, k);
    for (int k = 0; k < vc[rank]; k++) gv[vd[rank] + k] = value(rank, round, k);
    tiny[rank] = value(rank, round, 0);
    long long relays = pat_nbc_completed_by(PAT_ALG_RELAY);
    int ahead = !under_auto && P > 1 && round > 0; /* RELAY's run of this start started ahead */
    if (rank == late && P > 1) {
      usleep(1000 * LATE_MS);
      /* every other block of the three calls in libpat's stage before the start */
      if (ahead)
        FAIL_IF(!wait_held(req, P), "comm=%s round %d: the others' blocks were not received in 10 s", cname, round);
    } else {
      usleep(1000 * (unsigned)((rank * 3 + round) % 5)); /* compute, unequal */
    }
    int written = 0;
    for (int i = 0; i < P * N; i++) written += ga[i] != SENTINEL;
    FAIL_IF(written, "comm=%s round %d: %d ints of recvbuf written before the start", cname, round, written);
    rc = PAT_Startall(3, req);
    if (rc == MPI_SUCCESS && last_round) { /* freed active: the calls still complete */
      for (int i = 0; i < 3 && rc == MPI_SUCCESS; i++) rc = PAT_Request_free(&req[i]);
      long long want = signals_before + 3LL * ROUNDS;
      for (int ms = 0; P > 1 && ms < 30000 && pat_nbc_signalled() < want; ms++) usleep(1000);
      FAIL_IF(P > 1 && pat_nbc_signalled() < want, "comm=%s: the calls freed while active did not complete",
              cname);
    } else if (rc == MPI_SUCCESS) {
      rc = MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
    }
    FAIL_IF(rc != MPI_SUCCESS, "comm=%s round %d: rc %d", cname, round, rc);
    if (rank == late && ahead)
      FAIL_IF(pat_nbc_completed_by(PAT_ALG_RELAY) == relays, "comm=%s round %d: the last rank did not relay its block", cname,
              round);
    int bad = 0;
    for (int o = 0; o < P; o++)
      for (int k = 0; k < N; k++) bad += ga[o * N + k] != value(o, round, k);
    FAIL_IF(bad, "comm=%s round %d: all-gather: %d wrong ints", cname, round, bad);
    bad = 0;
    int at = 0;
    for (int r = P - 1; r >= 0; r--) {
      bad += gv[at] != SENTINEL; /* the gap before block r */
      for (int k = 0; k < vc[r]; k++) bad += gv[vd[r] + k] != value(r, round, k);
      at = vd[r] + vc[r];
    }
    FAIL_IF(bad, "comm=%s round %d: all-gatherv: %d wrong ints", cname, round, bad);
    bad = 0;
    for (int o = 0; o < P; o++) bad += tiny[o] != value(o, round, 0);
    FAIL_IF(bad, "comm=%s round %d: one-int all-gather: %d wrong", cname, round, bad);
    for (int i = 0; i < P * N; i++) ga[i] = SENTINEL; /* the application uses its buffer between rounds */
  }
  if (under_auto && P > 1) {
    long long relay = pat_nbc_completed_by(PAT_ALG_RELAY) - relay_before, lo, hi;
    long long direct = pat_nbc_completed_by(PAT_ALG_DIRECT) - direct_before;
    long long queued = pat_nbc_completed_calls() - queued_before;
    FAIL_IF(relay + direct != ROUNDS || queued != ROUNDS,
            "comm=%s: %lld starts of RELAY, %lld of DIRECT, %lld on libpat's queue; want %d of them, the small calls "
            "MPI's own", cname, relay, direct, queued, ROUNDS);
    MPI_Allreduce(&relay, &lo, 1, MPI_LONG_LONG, MPI_MIN, comm);
    MPI_Allreduce(&relay, &hi, 1, MPI_LONG_LONG, MPI_MAX, comm);
    FAIL_IF(lo != hi, "comm=%s: ranks disagree on the choice: %lld to %lld starts of RELAY", cname, lo, hi);
  }
  for (int i = 0; i < 3; i++)
    if (req[i] != MPI_REQUEST_NULL) PAT_Request_free(&req[i]);
  free(send);
  free(ga);
  free(tiny);
  free(vc);
  free(gv);
}

int main(int argc, char **argv) {
  int P;
  const char *alg = test_init(&argc, &argv, &world_rank, &P, "relay");
  if (PAT_Init() != MPI_SUCCESS || PAT_UseAlg(alg) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  under_auto = strcmp(alg, "auto") == 0;
  test_comm comms[TEST_NCOMMS];
  test_comms_create(comms);
  for (int c = 0; c < TEST_NCOMMS; c++) check_comm(comms[c].name, comms[c].comm);
  char what[64];
  snprintf(what, sizeof what, "persistent prefetch, P=%d, %s", P, alg);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  test_comms_free(comms);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
