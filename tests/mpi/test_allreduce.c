/*
 * The all-reduce (PAT_Allreduce, PAT_Iallreduce; built with
 * -DPAT_MATRIX_DROPIN, the drop-in's MPI_Allreduce and MPI_Iallreduce) under
 * the PAT_ALLREDUCE its launch sets, against the sums computed here:
 *
 *   test_allreduce        (PAT_ALLREDUCE=rdb, ring, rabenseifner, hring, hrelay, slt, native, auto)
 *
 * Blocking and non-blocking, on MPI_COMM_WORLD, a duplicate and a half
 * split with its ranks reversed, for vectors of 0, 1, P - 1, 7, 1000 and
 * 70000 elements: int MPI_SUM exact, plain and in place; double MPI_SUM of
 * values whose sums are exact, and MPI_MAX; MPI_2INT with MPI_MAXLOC;
 * random doubles summed, the same bits on every rank; a user-defined op
 * (MPI's own all-reduce runs it).  Persistent (PAT_Allreduce_init,
 * PAT_Start(all), PAT_Request_free; under the drop-in MPI_Allreduce_init,
 * MPIX_ in Open MPI 4.1, MPI_Start(all), MPI_Request_free): int sums set up
 * once on a duplicate the application frees at once, plain and in place,
 * both started together several times with new data, completed by
 * MPI_Waitall or MPI_Test, the handles unchanged, freed inactive; and a
 * user-defined op's on a derived datatype the application frees at once
 * (MPI's own all-reduce at each start, on libpat's copy).  Linked with libpat
 * (not under the drop-in) it also checks that a setting of libpat's ran its
 * schedules: the queue took every call and start with a predefined op on
 * several ranks (under the drop-in, tests/dropin looks for PAT_REPORT's
 * all-reduce and persistent rows), and under auto that its trials end in
 * one choice on every rank, which a persistent all-reduce set up after
 * them runs, and one set up before them does not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "persistent_calls.h"
#ifdef PAT_MATRIX_DROPIN
#define ALLREDUCE MPI_Allreduce
#define IALLREDUCE MPI_Iallreduce
#else
#include "decide/allreduce_choice.h"
#include "pat.h"
#include "runtime/comm.h"
#include "runtime/debug.h"
#include "runtime/nbc_queue.h"
#define ALLREDUCE PAT_Allreduce
#define IALLREDUCE PAT_Iallreduce
#endif

static long failures, cases;
static int rank, P;

/* The call under test, blocking or not. */
static int reduce(int blocking, const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  if (blocking) return ALLREDUCE(in, out, n, t, op, comm);
  MPI_Request req;
  int rc = IALLREDUCE(in, out, n, t, op, comm, &req);
  return rc == MPI_SUCCESS ? MPI_Wait(&req, MPI_STATUS_IGNORE) : rc;
}

static uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  return x ^ (x >> 16);
}
static int int_value(int r, int i) { return (int)(mix((uint32_t)(r * 7919 + i)) % 2001) - 1000; }

static void ints(MPI_Comm comm, int blocking, int n, int in_place, const char *what) {
  int me, np;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  int *in = malloc(((size_t)n + 1) * sizeof *in), *out = malloc(((size_t)n + 1) * sizeof *out);
  for (int i = 0; i < n; i++) {
    in[i] = int_value(me, i);
    out[i] = in_place ? in[i] : -7;
  }
  int rc = reduce(blocking, in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, comm);
  CHECK(rc == MPI_SUCCESS, "%s int n %d: rc %d", what, n, rc);
  int bad = -1;
  for (int i = 0; i < n && bad < 0; i++) {
    long long want = 0;
    for (int r = 0; r < np; r++) want += int_value(r, i);
    if (out[i] != want) bad = i;
  }
  CHECK(bad < 0, "%s int n %d%s: element %d is %d", what, n, in_place ? " in place" : "", bad, bad >= 0 ? out[bad] : 0);
  free(in);
  free(out);
}

static void doubles(MPI_Comm comm, int blocking, int n, const char *what) {
  int me, np;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  double *in = malloc(((size_t)n + 1) * sizeof *in), *sum = malloc(((size_t)n + 1) * sizeof *sum),
         *max = malloc(((size_t)n + 1) * sizeof *max);
  for (int i = 0; i < n; i++) in[i] = (double)int_value(me, i) * 0.5; /* halves: every sum exact */
  int rc = reduce(blocking, in, sum, n, MPI_DOUBLE, MPI_SUM, comm);
  if (rc == MPI_SUCCESS) rc = reduce(blocking, in, max, n, MPI_DOUBLE, MPI_MAX, comm);
  CHECK(rc == MPI_SUCCESS, "%s double n %d: rc %d", what, n, rc);
  int bad = -1;
  for (int i = 0; i < n && bad < 0; i++) {
    double want = 0, top = -1e300;
    for (int r = 0; r < np; r++) {
      double v = (double)int_value(r, i) * 0.5;
      want += v;
      top = v > top ? v : top;
    }
    if (sum[i] != want || max[i] != top) bad = i;
  }
  CHECK(bad < 0, "%s double n %d: element %d is %g / %g", what, n, bad, bad >= 0 ? sum[bad] : 0, bad >= 0 ? max[bad] : 0);
  free(in);
  free(sum);
  free(max);
}

/* Random doubles: no exact answer, but every rank's bits are rank 0's. */
static void same_bits(MPI_Comm comm, int blocking, int n, const char *what) {
  int me;
  MPI_Comm_rank(comm, &me);
  double *in = malloc(((size_t)n + 1) * sizeof *in), *out = malloc(((size_t)n + 1) * sizeof *out),
         *ref = malloc(((size_t)n + 1) * sizeof *ref);
  for (int i = 0; i < n; i++) in[i] = (double)mix((uint32_t)(me * 131 + i)) / 3.0e7 - 71.3;
  int rc = reduce(blocking, in, out, n, MPI_DOUBLE, MPI_SUM, comm);
  CHECK(rc == MPI_SUCCESS, "%s random doubles n %d: rc %d", what, n, rc);
  memcpy(ref, out, (size_t)n * sizeof *out);
  PMPI_Bcast(ref, n, MPI_DOUBLE, 0, comm);
  int same = memcmp(ref, out, (size_t)n * sizeof *out) == 0;
  CHECK(same, "%s random doubles n %d: rank %d's bits differ from rank 0's", what, n, me);
  free(in);
  free(out);
  free(ref);
}

static void maxloc(MPI_Comm comm, int blocking, const char *what) {
  int me, np;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  int in[10], out[10];
  for (int i = 0; i < 5; i++) {
    in[2 * i] = (me * 37 + i * 11) % 7; /* value: ties broken by the lower rank */
    in[2 * i + 1] = me;
  }
  int rc = reduce(blocking, in, out, 5, MPI_2INT, MPI_MAXLOC, comm);
  CHECK(rc == MPI_SUCCESS, "%s maxloc: rc %d", what, rc);
  for (int i = 0; i < 5; i++) {
    int best = -1, at = -1;
    for (int r = 0; r < np; r++)
      if ((r * 37 + i * 11) % 7 > best) best = (r * 37 + i * 11) % 7, at = r;
    CHECK(out[2 * i] == best && out[2 * i + 1] == at, "%s maxloc %d: (%d, %d), not (%d, %d)", what, i, out[2 * i],
          out[2 * i + 1], best, at);
  }
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void user_op(MPI_Comm comm, int blocking, const char *what) {
  MPI_Op op;
  MPI_Op_create(add_ints, 1, &op);
  int me, np;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  int in[64], out[64];
  for (int i = 0; i < 64; i++) in[i] = int_value(me, i);
  int rc = reduce(blocking, in, out, 64, MPI_INT, op, comm);
  CHECK(rc == MPI_SUCCESS, "%s user op: rc %d", what, rc);
  int bad = 0;
  for (int i = 0; i < 64; i++) {
    int want = 0;
    for (int r = 0; r < np; r++) want += int_value(r, i);
    bad += out[i] != want;
  }
  CHECK(bad == 0, "%s user op: %d wrong elements", what, bad);
  MPI_Op_free(&op);
}

/* A predefined op on a derived datatype (pairs of ints): MPI defines the
 * predefined ops on predefined datatypes only, so the call is MPI's own,
 * which refuses it (Open MPI: MPI_ERR_OP on the communicator's handler) or
 * takes it (MPICH), the same on every rank.  libpat's schedules ran it
 * before, and their MPI_Reduce_local failed on the ranks that combine
 * only: MPI_COMM_WORLD's handler there, success with wrong sums elsewhere. */
static void derived_type(MPI_Comm comm, int blocking, const char *what) {
  MPI_Comm c;
  MPI_Comm_dup(comm, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int me, in[64], out[64], own[64];
  MPI_Comm_rank(c, &me);
  for (int i = 0; i < 64; i++) in[i] = int_value(me, i);
  memset(out, 0, sizeof out);
  memset(own, 0, sizeof own);
  int want = PMPI_Allreduce(in, own, 32, pair, MPI_SUM, c);
  int rc = reduce(blocking, in, out, 32, pair, MPI_SUM, c);
  CHECK((rc == MPI_SUCCESS) == (want == MPI_SUCCESS), "%s derived type: rc %d, MPI's own %d", what, rc, want);
  CHECK(rc != MPI_SUCCESS || memcmp(out, own, sizeof out) == 0, "%s derived type: not MPI's own sums", what);
  MPI_Type_free(&pair);
  MPI_Comm_free(&c);
}

/* Every case on comm; returns the calls with a predefined op on it. */
static long all_cases(MPI_Comm comm, const char *name) {
  int np;
  MPI_Comm_size(comm, &np);
  long predefined = 0;
  const int sizes[] = {0, 1, np - 1, 7, 1000, 70000};
  for (int blocking = 0; blocking < 2; blocking++) {
    char what[64];
    snprintf(what, sizeof what, "%s %s", name, blocking ? "blocking" : "non-blocking");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      int n = sizes[k];
      ints(comm, blocking, n, 0, what);
      ints(comm, blocking, n, 1, what);
      doubles(comm, blocking, n, what);
      same_bits(comm, blocking, n, what);
      predefined += n > 0 ? 5 : 0; /* a call with nothing to move completes at once */
    }
    maxloc(comm, blocking, what);
    user_op(comm, blocking, what);
    derived_type(comm, blocking, what);
    predefined += 1;
  }
  return predefined;
}

#define STARTS 4

/* The int sums of persistent(): element i of rank r's vector at start s. */
static int start_value(int r, int s, int i) { return int_value(r + 11 * s, i); }

static void check_sums(const int *out, int n, int np, int s, const char *what) {
  int bad = -1;
  for (int i = 0; i < n && bad < 0; i++) {
    long long want = 0;
    for (int r = 0; r < np; r++) want += start_value(r, s, i);
    if (out[i] != want) bad = i;
  }
  cases++;
  CHECK(bad < 0, "%s, start %d: element %d is %d", what, s, bad, bad >= 0 ? out[bad] : 0);
}

/* Two persistent int sums on a duplicate of parent, set up once, the
 * communicator freed by the application right after (MPI allows it): n
 * elements, and in_n elements in place; started STARTS times with new
 * data, both in flight together (MPI_Startall, or MPI_Start one by one),
 * completed by MPI_Waitall or by MPI_Test polling; the handles stay, and
 * are freed inactive.  Returns the starts that move data on several ranks (those
 * libpat's schedule runs under its settings). */
static long persistent(MPI_Comm parent, int n, int in_n, const char *what) {
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);
  int me, np;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  int *in = malloc(((size_t)n + 1) * sizeof *in), *out = malloc(((size_t)n + 1) * sizeof *out),
      *acc = malloc(((size_t)in_n + 1) * sizeof *acc);
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, kept[2];
  int rc = ALLREDUCE_INIT(in, out, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
  if (rc == MPI_SUCCESS) rc = ALLREDUCE_INIT(MPI_IN_PLACE, acc, in_n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &reqs[1]);
  MPI_Comm_free(&comm);
  cases++;
  CHECK(rc == MPI_SUCCESS, "%s: set-up rc %d", what, rc);
  kept[0] = reqs[0];
  kept[1] = reqs[1];
  for (int s = 0; s < STARTS && rc == MPI_SUCCESS; s++) {
    for (int i = 0; i < n; i++) {
      in[i] = start_value(me, s, i);
      out[i] = -7;
    }
    for (int i = 0; i < in_n; i++) acc[i] = start_value(me, s, i);
    if (s % 2) {
      rc = STARTALL(2, reqs);
    } else { /* the in-place one first: every rank starts them in the same order */
      rc = START(&reqs[1]);
      if (rc == MPI_SUCCESS) rc = START(&reqs[0]);
    }
    if (rc == MPI_SUCCESS && s % 2) {
      rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
      int done[2] = {0, 0};
      while (rc == MPI_SUCCESS && !(done[0] && done[1]))
        for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
          if (!done[k]) rc = MPI_Test(&reqs[k], &done[k], MPI_STATUS_IGNORE);
    }
    cases++;
    CHECK(rc == MPI_SUCCESS && reqs[0] == kept[0] && reqs[1] == kept[1], "%s, start %d: rc %d, handles %s", what, s,
          rc, reqs[0] == kept[0] && reqs[1] == kept[1] ? "kept" : "changed");
    if (rc != MPI_SUCCESS) break;
    check_sums(out, n, np, s, what);
    check_sums(acc, in_n, np, s, what);
  }
  for (int k = 0; k < 2; k++) {
    if (reqs[k] == MPI_REQUEST_NULL) continue;
    rc = REQUEST_FREE(&reqs[k]);
    cases++;
    CHECK(rc == MPI_SUCCESS && reqs[k] == MPI_REQUEST_NULL, "%s: request free rc %d", what, rc);
  }
  free(in);
  free(out);
  free(acc);
  return np > 1 ? STARTS * ((n > 0) + (in_n > 0)) : 0;
}

static void add_pairs(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < 2 * *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

/* A persistent all-reduce of a user-defined op on pairs of ints (a derived
 * datatype, freed by the application right after the set-up: libpat keeps
 * a duplicate), started twice: MPI's own all-reduce at every start.  (A
 * predefined op takes predefined datatypes only: Open MPI refuses MPI_SUM
 * even on a duplicate of MPI_INT.) */
static void persistent_user_op(MPI_Comm comm, const char *what) {
  MPI_Op op;
  MPI_Op_create(add_pairs, 1, &op);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int me, np, in[64], out[64];
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  MPI_Request req;
  int rc = ALLREDUCE_INIT(in, out, 32, pair, op, comm, MPI_INFO_NULL, &req);
  MPI_Type_free(&pair);
  for (int s = 0; s < 2 && rc == MPI_SUCCESS; s++) {
    for (int i = 0; i < 64; i++) in[i] = start_value(me, s, i);
    rc = START(&req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) check_sums(out, 64, np, s, what);
  }
  if (rc == MPI_SUCCESS) rc = REQUEST_FREE(&req);
  cases++;
  CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
  MPI_Op_free(&op);
}

/* Every persistent case; returns the starts libpat's schedule runs under
 * its settings. */
static long persistent_cases(void) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  long starts = persistent(MPI_COMM_WORLD, 1000, 7, "persistent world");
  starts += persistent(half, P + 2, 70, "persistent reversed half");
  persistent_user_op(MPI_COMM_WORLD, "persistent user op");
  MPI_Comm_free(&half);
  return starts;
}

#ifndef PAT_MATRIX_DROPIN
/* Under auto on several nodes: blocking sums of 40000 ints (a size class of
 * their own here) give exact results through auto's trials, and after them
 * every rank holds the same choice for the class.  Every trial stamps the
 * ranks' arrivals, the ring's too (it is timed from the last one): rank
 * P - 1 late to RELAY's last trial, then rank 0 to the ring's first, and the
 * stamps name each in turn. */
static void auto_choice(void) {
  const int n = 40000, calls = PAT_ARED_CHOICE_TRIALS + 2;
  int late[2] = {-1, -1};
  for (int k = 0; k < calls; k++) {
    const int turn = k - (PAT_ARED_CHOICE_BLOCK - 1); /* 0: RELAY's last trial, 1: the ring's first */
    if ((turn == 0 && rank == P - 1) || (turn == 1 && rank == 0)) nanosleep(&(struct timespec){0, 150000000}, NULL);
    ints(MPI_COMM_WORLD, 1, n, k % 2, "auto's trials");
    if (turn == 0 || turn == 1) late[turn] = pat_debug_allreduce_late(MPI_COMM_WORLD);
  }
  int mine = pat_debug_allreduce_choice(MPI_COMM_WORLD, (long long)n * sizeof(int)), lo, hi;
  if (P > 1 && mine != -2) {
    cases++;
    CHECK(pat_ared_choice_turns[0] == PAT_ARED_CHOICE_RELAY_INDEX && pat_ared_choice_turns[1] == 1,
          "RELAY's trials first, then the ring's");
    CHECK(late[0] == P - 1 && late[1] == 0, "the last arrival stamped: %d after RELAY's trial (rank %d slept), "
          "%d after the ring's (rank 0 slept)", late[0], P - 1, late[1]);
  }
  MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  cases++;
  CHECK(lo == hi, "auto's all-reduce choice differs between ranks (%d to %d)", lo, hi);
  CHECK(P == 1 || mine >= 0, "after %d calls auto has not chosen (%d)", calls, mine);
  if (rank == 0) printf("auto's choice for 160000-byte vectors: candidate %d\n", mine);
}

/* A persistent sum of n ints from in into out on world, set up into *req. */
static void auto_persistent_setup(int n, MPI_Request *req, int *in, int *out) {
  int rc = PAT_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req);
  cases++;
  CHECK(rc == MPI_SUCCESS, "auto's persistent set-up of %d ints: rc %d", n, rc);
}

/* ... started `starts` times with new data, checked, and freed: how many of
 * its starts reached libpat's queue. */
static long long auto_persistent_run(int n, MPI_Request *req, int *in, int *out, int starts) {
  long long queued0 = pat_nbc_queued_calls();
  for (int s = 0; s < starts && *req != MPI_REQUEST_NULL; s++) {
    for (int i = 0; i < n; i++) in[i] = start_value(rank, s, i);
    int rc = PAT_Start(req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    cases++;
    CHECK(rc == MPI_SUCCESS, "auto's persistent all-reduce of %d ints, start %d: rc %d", n, s, rc);
    if (rc == MPI_SUCCESS) check_sums(out, n, P, s, "auto's persistent all-reduce");
  }
  long long queued = pat_nbc_queued_calls() - queued0;
  if (*req != MPI_REQUEST_NULL) PAT_Request_free(req);
  return queued;
}

/* Under auto, a persistent all-reduce runs at every start what its size
 * class's choice was at its set-up: one set up before the blocking calls'
 * trials MPI's own, one set up after them the choice they made (its
 * schedule on libpat's queue where that is libpat's).  What the trials take
 * depends on timing; the class of 600000-byte vectors is given ring here
 * (the same on every rank, as the trials would give it) to see a start run
 * a schedule of libpat's for certain. */
static void auto_with_persistent(void) {
  const int n = 40000, big = 150000, starts = 2;
  int *in = malloc((size_t)big * sizeof *in), *out = malloc((size_t)big * sizeof *out);
  MPI_Request before = MPI_REQUEST_NULL, after = MPI_REQUEST_NULL, given = MPI_REQUEST_NULL;
  auto_persistent_setup(n, &before, in, out);
  auto_choice();
  int mine = pat_debug_allreduce_choice(MPI_COMM_WORLD, (long long)n * sizeof(int));
  long long q = auto_persistent_run(n, &before, in, out, starts);
  cases++;
  CHECK(q == 0, "auto: a persistent all-reduce set up before the choice queued %lld of its starts", q);
  auto_persistent_setup(n, &after, in, out);
  q = auto_persistent_run(n, &after, in, out, starts);
  cases++;
  CHECK(q == (P > 1 && mine > 0 ? starts : 0), "auto: a persistent all-reduce set up after the choice (%d) queued "
        "%lld of %d starts", mine, q, starts);
  pat_comm_state *cs = pat_comm_find(MPI_COMM_WORLD);
  int k = pat_ared_choice_class((int64_t)big * (int64_t)sizeof(int));
  if (P > 1 && cs && cs->ared_eligible == 1 && k >= 0) {
    cs->ared.cls[k].decided = 1;
    cs->ared.cls[k].choice = 1; /* pat_ared_choice_candidates: ring */
    auto_persistent_setup(big, &given, in, out);
    q = auto_persistent_run(big, &given, in, out, starts);
    cases++;
    CHECK(q == starts, "auto: a persistent all-reduce of a class that chose ring queued %lld of %d starts", q,
          starts);
  }
  free(in);
  free(out);
}
#endif

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "");
#ifndef PAT_MATRIX_DROPIN
  PAT_Init();
  long long queued0 = pat_nbc_queued_calls();
#endif
  MPI_Comm dup, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  MPI_Comm comms[] = {MPI_COMM_WORLD, dup, half};
  const char *names[] = {"world", "dup", "reversed half"};
  long libpats = 0; /* libpat runs none on one process */
  for (int c = 0; c < 3; c++) {
    int size;
    MPI_Comm_size(comms[c], &size);
    long calls = all_cases(comms[c], names[c]);
    if (size > 1) libpats += calls;
  }
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  libpats += persistent_cases();
#ifndef PAT_MATRIX_DROPIN
  const char *setting = getenv("PAT_ALLREDUCE");
  const char *thread = getenv("PAT_THREAD"); /* without the background thread: MPI's own */
  int ours = setting && strcmp(setting, "native") && strcmp(setting, "auto") && !(thread && !strcmp(thread, "0"));
  long long queued = pat_nbc_queued_calls() - queued0;
  if (setting && !strcmp(setting, "auto")) /* its trials and choices queue some: what ran is checked below */
    auto_with_persistent();
  else
    CHECK(queued == (ours ? libpats : 0), "PAT_ALLREDUCE=%s: %lld calls and starts reached libpat's queue, not %ld",
          setting ? setting : "(unset)", queued, ours ? libpats : 0);
  PAT_Finalize();
#endif
  int rc = report_failures("test_allreduce", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
