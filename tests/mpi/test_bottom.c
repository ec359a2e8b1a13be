/*
 * MPI_BOTTOM as the buffers of an all-gather(v), with datatypes built on
 * absolute addresses (MPI_Get_address, MPI_Type_create_struct): a correct
 * program (MPI 4.0, 4.1.12), which libpat refused as "sendbuf aliases
 * recvbuf" whenever both buffers were MPI_BOTTOM (issue 56), and where one
 * rank's block was empty, that rank went on and waited for the others.
 *
 *   test_bottom ALG...
 *
 * Under every algorithm named: MPI_Allgather and MPI_Allgatherv with
 * MPI_BOTTOM as the send and the receive buffer, in place (MPI_IN_PLACE,
 * receive buffer MPI_BOTTOM), and with MPI_BOTTOM on one side only; the
 * receive type puts each element in two arrays apart (holes in both) and
 * the send type is one struct of every element of the rank's block, from
 * two other arrays (so send and receive counts differ); the all-gatherv's
 * blocks in reversed order with gaps, one of them empty, and all equal.
 * Every int of the receive arrays is checked, holes and gaps included.
 * Then an erroneous call every rank makes alike: send and receive buffer
 * the same array, with one rank's block empty, must fail with
 * MPI_ERR_BUFFER on every rank, the empty one included (the test's timeout
 * catches a rank left waiting).
 *
 * With -DPAT_MATRIX_DROPIN (tests/dropin) it is a program built against MPI
 * only: it calls MPI_Allgather(v), which libpat_mpi intercepts, and picks
 * each algorithm with libpat's PAT_UseAlg, looked up at run time; each call
 * must have run through libpat (PAT_LastAlg names the algorithm).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#ifdef PAT_MATRIX_DROPIN
#include "dropin_check.h"
#define ALLGATHER MPI_Allgather
#define ALLGATHERV MPI_Allgatherv
#else
#include "pat.h"
#define ALLGATHER PAT_Allgather
#define ALLGATHERV PAT_Allgatherv
#endif

static long failures, cases;
static int rank, P;

#define STRIDE 4     /* ints from one element to the next in each receive array */
#define SENTINEL -7  /* what no block writes */
#define MAX_UNITS 64 /* elements of the receive arrays */

/* libpat's PAT_UseAlg and PAT_LastAlg: linked, or found in libpat_mpi. */
static int use_alg(const char *alg) {
#ifdef PAT_MATRIX_DROPIN
  int (*use)(const char *) = (int (*)(const char *))dropin_symbol("PAT_UseAlg");
  return use ? use(alg) : MPI_ERR_OTHER;
#else
  return PAT_UseAlg(alg);
#endif
}

static const char *last_alg(MPI_Comm comm) {
#ifdef PAT_MATRIX_DROPIN
  const char *(*last)(MPI_Comm) = (const char *(*)(MPI_Comm))dropin_symbol("PAT_LastAlg");
  return last ? last(comm) : "(libpat not loaded)";
#else
  return PAT_LastAlg(comm);
#endif
}

/* Element u of rank r holds r * 1000 + u * 3 + k, k = 0, 1, 2. */
static int value(int r, int u, int k) { return r * 1000 + u * 3 + k; }

/* The receive side: element e is ints a[e * STRIDE], a[e * STRIDE + 1] and
 * b[e * STRIDE], two separate allocations. */
typedef struct recv_side {
  int *a, *b;
  MPI_Datatype absolute; /* the element at MPI_BOTTOM */
  MPI_Datatype relative; /* the same element at a */
} recv_side;

static MPI_Datatype element_type(MPI_Aint at_a, MPI_Aint at_b) {
  int lens[2] = {2, 1};
  MPI_Aint displs[2] = {at_a, at_b};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT}, s, t;
  MPI_Type_create_struct(2, lens, displs, types, &s);
  MPI_Type_create_resized(s, at_a, (MPI_Aint)(STRIDE * sizeof(int)), &t);
  MPI_Type_commit(&t);
  MPI_Type_free(&s);
  return t;
}

static void recv_clear(recv_side *rs) {
  for (int i = 0; i < MAX_UNITS * STRIDE; i++) rs->a[i] = rs->b[i] = SENTINEL;
}

static void recv_side_make(recv_side *rs) {
  rs->a = malloc(MAX_UNITS * STRIDE * sizeof(int));
  rs->b = malloc(MAX_UNITS * STRIDE * sizeof(int));
  recv_clear(rs);
  MPI_Aint a, b;
  MPI_Get_address(rs->a, &a);
  MPI_Get_address(rs->b, &b);
  rs->absolute = element_type(a, b);
  rs->relative = element_type(0, MPI_Aint_diff(b, a));
}

static void recv_side_free(recv_side *rs) {
  MPI_Type_free(&rs->absolute);
  MPI_Type_free(&rs->relative);
  free(rs->a);
  free(rs->b);
}

/* Rank r's units 0..n-1 at elements first.. of the receive arrays. */
static void recv_put(recv_side *rs, int r, int first, int n) {
  for (int u = 0; u < n; u++) {
    int e = first + u;
    rs->a[e * STRIDE] = value(r, u, 0);
    rs->a[e * STRIDE + 1] = value(r, u, 1);
    rs->b[e * STRIDE] = value(r, u, 2);
  }
}

/* This rank's block: n elements in two arrays of its own (pairs, then
 * singles), as one struct of absolute addresses (or relative to a). */
typedef struct send_side {
  int *a, *b;
  MPI_Datatype absolute, relative;
} send_side;

static MPI_Datatype block_type(const send_side *ss, int n, MPI_Aint base) {
  int m = n > 0 ? n : 1; /* an empty block's type: one element, sent 0 times */
  int *lens = malloc(2 * (size_t)m * sizeof *lens);
  MPI_Aint *displs = malloc(2 * (size_t)m * sizeof *displs);
  MPI_Datatype *types = malloc(2 * (size_t)m * sizeof *types), t;
  for (int u = 0; u < m; u++) {
    lens[2 * u] = 2;
    lens[2 * u + 1] = 1;
    MPI_Get_address(ss->a + 2 * u, &displs[2 * u]);
    MPI_Get_address(ss->b + u, &displs[2 * u + 1]);
    displs[2 * u] = MPI_Aint_diff(displs[2 * u], base);
    displs[2 * u + 1] = MPI_Aint_diff(displs[2 * u + 1], base);
    types[2 * u] = types[2 * u + 1] = MPI_INT;
  }
  MPI_Type_create_struct(2 * m, lens, displs, types, &t);
  MPI_Type_commit(&t);
  free(lens);
  free(displs);
  free(types);
  return t;
}

static void send_side_make(send_side *ss, int n) {
  int m = n > 0 ? n : 1;
  ss->a = malloc(2 * (size_t)m * sizeof(int));
  ss->b = malloc((size_t)m * sizeof(int));
  for (int u = 0; u < m; u++) {
    ss->a[2 * u] = value(rank, u, 0);
    ss->a[2 * u + 1] = value(rank, u, 1);
    ss->b[u] = value(rank, u, 2);
  }
  MPI_Aint a;
  MPI_Get_address(ss->a, &a);
  ss->absolute = block_type(ss, n, 0);
  ss->relative = block_type(ss, n, a);
}

static void send_side_free(send_side *ss) {
  MPI_Type_free(&ss->absolute);
  MPI_Type_free(&ss->relative);
  free(ss->a);
  free(ss->b);
}

/* Where the buffers are: both MPI_BOTTOM, in place at MPI_BOTTOM, or
 * MPI_BOTTOM on one side and a pointer with relative types on the other. */
enum { BOTH, IN_PLACE, SEND_ONLY, RECV_ONLY, NWAYS };
static const char *const way_name[NWAYS] = {"both MPI_BOTTOM", "in place at MPI_BOTTOM", "send MPI_BOTTOM",
                                            "receive MPI_BOTTOM"};

/* Every element of the receive arrays: rank r's block at elements
 * displs[r].., the rest untouched; 1 if right. */
static int recv_right(const recv_side *rs, const int *counts, const int *displs, int *bad_int) {
  recv_side want = {malloc(MAX_UNITS * STRIDE * sizeof(int)), malloc(MAX_UNITS * STRIDE * sizeof(int)),
                    MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  recv_clear(&want);
  for (int r = 0; r < P; r++) recv_put(&want, r, displs[r], counts[r]);
  int ok = 1;
  *bad_int = -1;
  for (int i = 0; i < MAX_UNITS * STRIDE && ok; i++)
    if (rs->a[i] != want.a[i] || rs->b[i] != want.b[i]) {
      ok = 0;
      *bad_int = i;
    }
  free(want.a);
  free(want.b);
  return ok;
}

/* One call of the all-gather (displs NULL: MPI_Allgather of counts[0]
 * elements, displs[r] = r * counts[0]) or the all-gatherv. */
static void check_call(const char *alg, const char *what, const int *counts, const int *displs, int way) {
  recv_side rs;
  send_side ss;
  int n = counts[rank];
  recv_side_make(&rs);
  send_side_make(&ss, n);
  int *eq_displs = NULL;
  if (!displs) {
    eq_displs = malloc((size_t)P * sizeof *eq_displs);
    for (int r = 0; r < P; r++) eq_displs[r] = r * counts[0];
  }
  const int *d = displs ? displs : eq_displs;
  if (way == IN_PLACE) recv_put(&rs, rank, d[rank], n);
  const void *sendbuf = way == IN_PLACE ? MPI_IN_PLACE : way == RECV_ONLY ? (const void *)ss.a : MPI_BOTTOM;
  MPI_Datatype sendtype = way == RECV_ONLY ? ss.relative : ss.absolute;
  void *recvbuf = way == SEND_ONLY ? (void *)rs.a : MPI_BOTTOM;
  MPI_Datatype recvtype = way == SEND_ONLY ? rs.relative : rs.absolute;
  int sendcount = n > 0 ? 1 : 0; /* one struct holds the whole block */
  int rc = displs ? ALLGATHERV(sendbuf, sendcount, sendtype, recvbuf, counts, displs, recvtype, MPI_COMM_WORLD)
                  : ALLGATHER(sendbuf, sendcount, sendtype, recvbuf, counts[0], recvtype, MPI_COMM_WORLD);
  int bad_int;
  char text[MPI_MAX_ERROR_STRING] = "";
  int len;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  CHECK(rc == MPI_SUCCESS, "%s, %s, %s: returned %d (%s)", alg, what, way_name[way], rc, text);
  CHECK(rc != MPI_SUCCESS || recv_right(&rs, counts, d, &bad_int), "%s, %s, %s: wrong int %d of the receive arrays",
        alg, what, way_name[way], bad_int);
  const char *ran = last_alg(MPI_COMM_WORLD);
  /* one process runs ring under every setting; auto runs what it chooses */
  CHECK(strcmp(alg, "auto") == 0 || strcmp(ran, alg) == 0 || (P == 1 && strcmp(ran, "ring") == 0),
        "%s, %s, %s: libpat ran '%s'", alg, what, way_name[way], ran);
  free(eq_displs);
  send_side_free(&ss);
  recv_side_free(&rs);
}

/* An erroneous program, alike on every rank: sendbuf is recvbuf, and the
 * block of rank P / 2 is empty.  Every rank must refuse it (MPI_ERR_BUFFER),
 * the one whose send is empty too, and none may wait for the others. */
static void check_aliased(const char *alg, MPI_Comm comm) {
  int *counts = malloc((size_t)P * sizeof *counts), *displs = malloc((size_t)P * sizeof *displs);
  int *y = malloc((size_t)P * sizeof *y);
  for (int r = 0; r < P; r++) {
    counts[r] = r == P / 2 ? 0 : 1;
    displs[r] = r;
    y[r] = r;
  }
  int rc = ALLGATHERV(y, counts[rank], MPI_INT, y, counts, displs, MPI_INT, comm), cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "%s: sendbuf == recvbuf, block %d empty: returned %d, class %d (not MPI_ERR_BUFFER)",
        alg, P / 2, rc, cls);
  free(counts);
  free(displs);
  free(y);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, NULL);
#ifdef PAT_MATRIX_DROPIN
  CHECK(dropin_symbol("PAT_UseAlg") != NULL, "libpat_mpi is not loaded");
#else
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
#endif
  if (P > MAX_UNITS / 4) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm errs; /* the erroneous calls return their error (under libpat_mpi it goes to the handler) */
  MPI_Comm_dup(MPI_COMM_WORLD, &errs);
  MPI_Comm_set_errhandler(errs, MPI_ERRORS_RETURN);
  int *counts = malloc((size_t)P * sizeof *counts), *displs = malloc((size_t)P * sizeof *displs);
  for (int i = 1; i < argc; i++) {
    const char *alg = argv[i];
    if (use_alg(alg) != MPI_SUCCESS) {
      CHECK(0, "unknown algorithm %s", alg);
      continue;
    }
    for (int way = 0; way < NWAYS; way++) {
      /* the all-gather: two elements a rank, and none */
      for (int r = 0; r < P; r++) counts[r] = 2;
      check_call(alg, "MPI_Allgather of 2", counts, NULL, way);
      for (int r = 0; r < P; r++) counts[r] = 0;
      check_call(alg, "MPI_Allgather of 0", counts, NULL, way);
      /* the all-gatherv: 1, 2 or 3 elements, rank P / 2's none, blocks in reversed order, one element apart */
      for (int r = P - 1, at = 1; r >= 0; r--) {
        counts[r] = r == P / 2 ? 0 : 1 + r % 3;
        displs[r] = at;
        at += counts[r] + 1;
      }
      check_call(alg, "MPI_Allgatherv, one block empty", counts, displs, way);
      /* ... and blocks all of 2 (the all-gather's path, under auto and the arrival-aware settings) */
      for (int r = 0; r < P; r++) {
        counts[r] = 2;
        displs[r] = 3 * (P - 1 - r);
      }
      check_call(alg, "MPI_Allgatherv of equal blocks", counts, displs, way);
    }
    check_aliased(alg, errs);
  }
  free(counts);
  free(displs);
  MPI_Comm_free(&errs);
  char what[64];
  snprintf(what, sizeof what, "MPI_BOTTOM, P=%d", P);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
#ifndef PAT_MATRIX_DROPIN
  PAT_Finalize();
#endif
  MPI_Finalize();
  return bad;
}
