/*
 * Erroneous requests of all-gathers, and the correct calls after them: a
 * cancel of a persistent all-gather (PAT_Cancel; MPI_Cancel under the
 * drop-in), inactive or active, a start of an active one (PAT_Start,
 * PAT_Startall; MPI_Start(all)), before and after its round completed (a
 * request stays active until a wait or test completes it), and MPI_Cancel of
 * a non-blocking one.  Each must return MPI_ERR_REQUEST and do nothing: the
 * round under way still completes with every block and a status that is not
 * cancelled, the requests of a refused MPI_Startall stay inactive, and every
 * later round is right.  A rotating late rank starts each round 20 ms after
 * the others, so that a round that completes before its data (a stale
 * completion signal) shows as that rank's block missing.  Under the drop-in
 * the error also goes once to MPI_COMM_WORLD's error handler, as MPI's own
 * request errors do (the PAT_ functions return it without raising; MPI
 * raises a non-blocking request's cancel itself).
 *
 * Arguments (PAT_ API): the algorithms to run, in turn; under the drop-in
 * PAT_ALG's.  TEST_COUNT: ints per block (4000).  TEST_ONLY=k: only the
 * persistent calls' misuse of rounds k and k + 6 (k = 1..5), or only the
 * non-blocking cancels (6), or none (0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "persistent_calls.h"
#ifdef PAT_MATRIX_DROPIN
#include "dropin_check.h"
#define CANCEL MPI_Cancel
#define IALLGATHER MPI_Iallgather
#define IALLGATHERV MPI_Iallgatherv
#define RAISES 1 /* libpat_mpi raises what it refuses */
#else
#ifndef CANCEL
#define CANCEL PAT_Cancel
#endif
#define IALLGATHER PAT_Iallgather
#define IALLGATHERV PAT_Iallgatherv
#define RAISES 0
#endif

#define ROUNDS 12
#define NBC_ROUNDS 4
#define LATE_MS 20

static long cases, failures;
static int rank, P, n = 4000, only = -1;
static long raised; /* calls of MPI_COMM_WORLD's error handler */

static void count_raised(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
  raised++;
}

/* Element i of rank owner's block in a round. */
static int value(int owner, int round, int i) { return owner * 7919 + round * 104729 + i; }

static void fill_send(int *send, int count, int round) {
  for (int i = 0; i < count; i++) send[i] = value(rank, round, i);
}

static void check_blocks(const char *what, const char *alg, int round, const int *recv, const int *counts,
                         const int *displs) {
  int bad_owner = -1, bad_at = -1;
  for (int q = 0; q < P && bad_owner < 0; q++)
    for (int i = 0; i < counts[q]; i++)
      if (recv[displs[q] + i] != value(q, round, i)) {
        bad_owner = q;
        bad_at = i;
        break;
      }
  CHECK(bad_owner < 0, "%s %s round %d: block of rank %d wrong at element %d", alg, what, round, bad_owner, bad_at);
}

/* rc is MPI_ERR_REQUEST, raised `raises` times meanwhile. */
static void expect_refused(const char *what, const char *alg, int round, int rc, long raised_before, int raises) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "%s %s round %d: rc %d (class %d), not MPI_ERR_REQUEST", alg, what, round, rc, cls);
  CHECK(raised - raised_before == raises, "%s %s round %d: the error handler ran %ld times, not %d", alg, what, round,
        raised - raised_before, raises);
}

/* An inactive persistent request has an empty status (MPI_ANY_TAG): one
 * that was started has not, until a wait or test completes it. */
static int inactive(MPI_Request req) {
  int flag = 0;
  MPI_Status st;
  return MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS && flag && st.MPI_TAG == MPI_ANY_TAG;
}

static void not_cancelled(const char *what, const char *alg, int round, const MPI_Status *st) {
  int cancelled = 1;
  MPI_Test_cancelled(st, &cancelled);
  CHECK(!cancelled, "%s %s round %d: the status says cancelled", alg, what, round);
}

/* The persistent all-gather (a) and all-gatherv (v), misused in rounds 1-5 and 7-11 alike. */
static void persistent(const char *alg, MPI_Comm comm, const int *counts, const int *displs, int vtotal) {
  int *send = malloc((size_t)n * sizeof *send), *recv = malloc((size_t)n * P * sizeof *recv);
  int *vsend = malloc((size_t)counts[rank] * sizeof *vsend + 1), *vrecv = malloc((size_t)vtotal * sizeof *vrecv);
  int *acounts = malloc(2 * (size_t)P * sizeof *acounts), *adispls = acounts + P;
  for (int q = 0; q < P; q++) acounts[q] = n, adispls[q] = q * n;
  MPI_Request a = MPI_REQUEST_NULL, v = MPI_REQUEST_NULL;
  int rc = ALLGATHER_INIT(send, n, MPI_INT, recv, n, MPI_INT, comm, MPI_INFO_NULL, &a);
  if (rc == MPI_SUCCESS)
    rc = ALLGATHERV_INIT(vsend, counts[rank], MPI_INT, vrecv, counts, displs, MPI_INT, comm, MPI_INFO_NULL, &v);
  CHECK(rc == MPI_SUCCESS, "%s: set-up rc %d", alg, rc);
#ifdef PAT_MATRIX_DROPIN
  int (*is_libpat)(MPI_Request) = (int (*)(MPI_Request))dropin_symbol("pat_persist_is_libpat");
  CHECK(is_libpat && is_libpat(a) && is_libpat(v), "%s: the persistent requests are not libpat's", alg);
#endif
  for (int r = 0; r < ROUNDS && rc == MPI_SUCCESS; r++) {
    memset(recv, 0xee, (size_t)n * P * sizeof *recv);
    memset(vrecv, 0xee, (size_t)vtotal * sizeof *vrecv);
    fill_send(send, n, r);
    fill_send(vsend, counts[rank], r);
    if (rank == r % P) sleep_ms(LATE_MS);
    int misuse = only < 0 || only == r % 6 ? r % 6 : 0;
    long before = raised;
    if (misuse == 1) expect_refused("cancel of an inactive one", alg, r, CANCEL(&a), before, RAISES);
    rc = START(&a);
    CHECK(rc == MPI_SUCCESS, "%s round %d: start rc %d", alg, r, rc);
    before = raised;
    if (misuse == 2) expect_refused("cancel of an active one", alg, r, CANCEL(&a), before, RAISES);
    if (misuse == 3) expect_refused("start of an active one", alg, r, START(&a), before, RAISES);
    if (misuse == 4) {
      MPI_Request both[2] = {v, a};
      expect_refused("startall with an active one", alg, r, STARTALL(2, both), before, RAISES);
      CHECK(inactive(v), "%s round %d: the refused startall started the other request", alg, r);
    }
    if (misuse == 5) { /* complete, not yet waited for: still active */
      int flag = 0;
      MPI_Status st;
      while (!flag && MPI_Request_get_status(a, &flag, &st) == MPI_SUCCESS) sleep_ms(0.2);
      expect_refused("start of a completed one", alg, r, START(&a), before, RAISES);
      before = raised;
      expect_refused("cancel of a completed one", alg, r, CANCEL(&a), before, RAISES);
    }
    if (rc == MPI_SUCCESS) rc = START(&v);
    /* a's blocks checked before v's wait, which would give a's call the time to end */
    MPI_Request both[2] = {a, v};
    MPI_Status st[2];
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&both[0], &st[0]);
    if (rc == MPI_SUCCESS) check_blocks("all-gather", alg, r, recv, acounts, adispls);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&both[1], &st[1]);
    CHECK(rc == MPI_SUCCESS, "%s round %d: rc %d", alg, r, rc);
    if (rc != MPI_SUCCESS) break;
    CHECK(both[0] == a && both[1] == v && inactive(a) && inactive(v), "%s round %d: not inactive after the wait",
          alg, r);
    not_cancelled("all-gather", alg, r, &st[0]);
    not_cancelled("all-gatherv", alg, r, &st[1]);
    check_blocks("all-gatherv", alg, r, vrecv, counts, displs);
  }
  if (a != MPI_REQUEST_NULL) REQUEST_FREE(&a);
  if (v != MPI_REQUEST_NULL) REQUEST_FREE(&v);
  free(send);
  free(recv);
  free(vsend);
  free(vrecv);
  free(acounts);
}

/* Non-blocking all-gathers, then all-gathervs, every other one cancelled (MPI_Cancel: MPI's own, or
 * the drop-in's); skip_cancel: none is (MPI's own call runs, and its cancel is erroneous in MPI's own way) */
static void nonblocking(const char *alg, MPI_Comm comm, const int *counts, const int *displs, int vtotal,
                        int skip_cancel) {
  int *send = malloc((size_t)n * sizeof *send), *recv = malloc((size_t)n * P * sizeof *recv);
  int *acounts = malloc(2 * (size_t)P * sizeof *acounts), *adispls = acounts + P;
  for (int q = 0; q < P; q++) acounts[q] = n, adispls[q] = q * n;
  int *vrecv = malloc((size_t)vtotal * sizeof *vrecv);
  for (int r = 0; r < NBC_ROUNDS; r++) {
    int v = r >= NBC_ROUNDS / 2;
    memset(recv, 0xee, (size_t)n * P * sizeof *recv);
    memset(vrecv, 0xee, (size_t)vtotal * sizeof *vrecv);
    fill_send(send, v ? counts[rank] : n, r);
    if (rank == r % P) sleep_ms(LATE_MS);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = v ? IALLGATHERV(send, counts[rank], MPI_INT, vrecv, counts, displs, MPI_INT, comm, &req)
               : IALLGATHER(send, n, MPI_INT, recv, n, MPI_INT, comm, &req);
    CHECK(rc == MPI_SUCCESS, "%s non-blocking round %d: rc %d", alg, r, rc);
    if (rc != MPI_SUCCESS) break;
    long before = raised;
    if (r % 2 == 1 && !skip_cancel && (only < 0 || only == 6))
      expect_refused("cancel of a non-blocking one", alg, r, MPI_Cancel(&req), before, 1);
    MPI_Status st;
    rc = MPI_Wait(&req, &st);
    CHECK(rc == MPI_SUCCESS, "%s non-blocking round %d: wait rc %d", alg, r, rc);
    not_cancelled("non-blocking", alg, r, &st);
    if (v) check_blocks("non-blocking all-gatherv", alg, r, vrecv, counts, displs);
    else check_blocks("non-blocking all-gather", alg, r, recv, acounts, adispls);
  }
  free(send);
  free(recv);
  free(vrecv);
  free(acounts);
}

static void run(const char *alg) {
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, 0, P - rank, &comm); /* reversed: its ranks are not the world's */
  int world_rank = rank;
  MPI_Comm_rank(comm, &rank);
  /* all-gatherv: blocks of n / 4 and n / 2 ints in turn (none of n: the report test tells the rows apart),
   * in reverse order, a gap of 3 before each */
  int *counts = malloc(2 * (size_t)P * sizeof *counts), *displs = counts + P, at = 0;
  for (int q = P - 1; q >= 0; q--) {
    counts[q] = q % 2 ? n / 2 : n / 4;
    displs[q] = at + 3;
    at += counts[q] + 3;
  }
  int skip_cancel = 0;
#ifdef MPICH_VERSION /* MPICH 4.0 aborts on a cancel of its own non-blocking all-gather */
  const char *thread = getenv("PAT_THREAD");
  skip_cancel = !strcmp(alg, "native") || !strcmp(alg, "auto") || (thread && !strcmp(thread, "0"));
#endif
  persistent(alg, comm, counts, displs, at);
  nonblocking(alg, comm, counts, displs, at, skip_cancel);
  free(counts);
  MPI_Comm_free(&comm);
  rank = world_rank;
}

int main(int argc, char **argv) {
  const char *first = test_init(&argc, &argv, &rank, &P, "ring");
  if (getenv("TEST_COUNT")) n = atoi(getenv("TEST_COUNT"));
  if (getenv("TEST_ONLY")) only = atoi(getenv("TEST_ONLY"));
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(count_raised, &eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh); /* dups and splits made after this inherit it */
  MPI_Errhandler_free(&eh);
  const char *algs[64];
  int nalgs = 0;
#ifdef PAT_MATRIX_DROPIN
  (void)first;
  algs[nalgs++] = getenv("PAT_ALG") && *getenv("PAT_ALG") ? getenv("PAT_ALG") : "auto";
#else
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  algs[nalgs++] = first;
  for (int i = 2; i < argc && nalgs < 64; i++) algs[nalgs++] = argv[i];
#endif
  for (int i = 0; i < nalgs; i++) {
#ifndef PAT_MATRIX_DROPIN
    if (PAT_UseAlg(algs[i]) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
#endif
    run(algs[i]);
  }
  char what[160];
  int len = snprintf(what, sizeof what, "erroneous requests, P=%d,", P);
  for (int i = 0; i < nalgs && len < (int)sizeof what; i++)
    len += snprintf(what + len, sizeof what - len, " %s", algs[i]);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
#ifndef PAT_MATRIX_DROPIN
  PAT_Finalize();
#endif
  MPI_Finalize();
  return bad;
}
