/*
 * PAT_Allgatherv on bad input gives an MPI error code, never a crash, an
 * abort or a hang, and the library keeps working afterwards.
 *
 *   test_allgatherv_bad_input local ALG...
 *     arguments every rank can see are wrong (every rank passes the same bad
 *     argument, so no rank waits for another): recvcounts or displs NULL, a
 *     negative count, this rank's send and receive sizes differing, recvbuf
 *     MPI_IN_PLACE or NULL, sendbuf NULL or recvbuf itself, MPI_COMM_NULL,
 *     MPI_DATATYPE_NULL, a call before PAT_Init; and MPI_IN_PLACE ignoring
 *     sendcount and sendtype.
 *
 *   test_allgatherv_bad_input mismatch ALG...      (P >= 2)
 *     ranks disagree on the size of rank 1's block: rank 0 expects 5, 9 or
 *     0 elements where rank 1 sends 7 (and the others expect 7), or rank 1
 *     sends none where the others expect 7.  MPI calls such a program
 *     erroneous (MPI 4.0, 6.5.6: "the type signature associated with
 *     sendcount, sendtype, at process j must be equal to the type signature
 *     associated with recvcounts[j], recvtype at any other process") and
 *     prescribes nothing.  libpat must not hang (the test's TIMEOUT catches
 *     a hang), must return an error on some rank (a message larger than its
 *     receive, or shorter than the block it should fill: libpat checks what
 *     arrives; MPI itself reports only the first), and must keep working on
 *     the communicator's siblings.  The algorithms must be libpat's own
 *     schedules: "native" and "auto" (which runs MPI's own all-gather-v on
 *     one node) leave the erroneous call to the MPI library, which may hang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "pat.h"

static long failures, cases;
static int rank, P;

/* An error of the given class (MPI_SUCCESS for success; -1 for any error). */
#define EXPECT(call, code)                                                                                           \
  do {                                                                                                               \
    int rc_ = (call);                                                                                                \
    cases++;                                                                                                         \
    int class_ = MPI_SUCCESS;                                                                                        \
    if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &class_);                                                           \
    int ok_ = (code) == -1 ? rc_ != MPI_SUCCESS : class_ == (code);                                                  \
    if (!ok_) {                                                                                                      \
      failures++;                                                                                                    \
      fprintf(stderr, "FAIL rank %d line %d (%s): %s gave %d, class %d (%s), expected %s %d\n", rank, __LINE__, alg, \
              #call, rc_, class_, rc_ == MPI_SUCCESS ? "success" : PAT_Error_string(rc_),                            \
              (code) == -1 ? "any error, not" : "class", (code) == -1 ? MPI_SUCCESS : (code));                       \
    }                                                                                                                \
  } while (0)

/* A correct call on comm: rank r gives r % 3 + 1 ints, blocks in reversed
 * order; 1 if every rank's result is right. */
static int gatherv_ok(MPI_Comm comm) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  int *c = malloc((size_t)p * sizeof *c), *d = malloc((size_t)p * sizeof *d),
      *all = malloc((size_t)p * 3 * sizeof *all);
  int pos = 0;
  for (int r = p - 1; r >= 0; r--) {
    c[r] = r % 3 + 1;
    d[r] = pos;
    pos += c[r];
  }
  int mine[3] = {me * 10, me * 10 + 1, me * 10 + 2};
  int ok = PAT_Allgatherv(mine, c[me], MPI_INT, all, c, d, MPI_INT, comm) == MPI_SUCCESS;
  for (int r = 0; r < p && ok; r++)
    for (int i = 0; i < c[r]; i++)
      if (all[d[r] + i] != r * 10 + i) ok = 0;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  free(c);
  free(d);
  free(all);
  return all_ok;
}

static void local(const char *alg) {
  EXPECT(PAT_UseAlg(alg), MPI_SUCCESS);
  int *c = malloc((size_t)P * sizeof *c), *d = malloc((size_t)P * sizeof *d), *y = malloc((size_t)P * 4 * sizeof *y);
  for (int r = 0; r < P; r++) {
    c[r] = 1;
    d[r] = r;
  }
  int x[4] = {rank, rank, rank, rank};
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  /* a correct call first: the communicator then has a state, and under auto on one node
   * (PAT_ONE_NODE=native) the calls below meet the pass-through's screen (runtime/args.h) */
  CHECK(gatherv_ok(MPI_COMM_WORLD), "%s: a correct call failed", alg);

  /* missing arrays */
  EXPECT(PAT_Allgatherv(x, 1, MPI_INT, y, NULL, d, MPI_INT, MPI_COMM_WORLD), -1);
  EXPECT(PAT_Allgatherv(x, 1, MPI_INT, y, c, NULL, MPI_INT, MPI_COMM_WORLD), -1);
  /* negative counts: the last rank's block (its own sendcount too) and the first */
  c[P - 1] = -3;
  EXPECT(PAT_Allgatherv(x, c[rank], MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  c[P - 1] = 1;
  c[0] = -1;
  EXPECT(PAT_Allgatherv(x, c[rank], MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  c[0] = 1;
  EXPECT(PAT_Allgatherv(x, -1, MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* this rank's send size differs from its own receive block's */
  EXPECT(PAT_Allgatherv(x, 2, MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  EXPECT(PAT_Allgatherv(x, 3, MPI_INT, y, c, d, pair, MPI_COMM_WORLD), MPI_ERR_TRUNCATE); /* 12 bytes vs 8 */
  EXPECT(PAT_Allgatherv(x, 1, pair, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE); /* 8 bytes vs 4 */
  /* buffers */
  EXPECT(PAT_Allgatherv(x, 1, MPI_INT, MPI_IN_PLACE, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(PAT_Allgatherv(x, 1, MPI_INT, NULL, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(PAT_Allgatherv(NULL, 1, MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(PAT_Allgatherv(y, 1, MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER); /* use MPI_IN_PLACE */
  /* communicator and types */
  EXPECT(PAT_Allgatherv(x, 1, MPI_INT, y, c, d, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT(PAT_Allgatherv(x, 1, MPI_DATATYPE_NULL, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT(PAT_Allgatherv(x, 1, MPI_INT, y, c, d, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE);
  /* zero counts everywhere: the buffers may be NULL */
  for (int r = 0; r < P; r++) c[r] = 0;
  EXPECT(PAT_Allgatherv(NULL, 0, MPI_INT, NULL, c, d, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  /* MPI_IN_PLACE ignores sendcount and sendtype, whatever they hold */
  for (int r = 0; r < P; r++) {
    c[r] = 1;
    d[r] = P - 1 - r;
    y[r] = -1;
  }
  y[d[rank]] = rank * 11;
  EXPECT(PAT_Allgatherv(MPI_IN_PLACE, -7, MPI_DATATYPE_NULL, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  int wrong = -1;
  for (int r = P - 1; r >= 0; r--)
    if (y[d[r]] != r * 11) wrong = r;
  CHECK(wrong < 0, "%s: in-place result wrong at rank %d's block: %d", alg, wrong, wrong < 0 ? 0 : y[d[wrong]]);
  /* ... and the library still works */
  CHECK(gatherv_ok(MPI_COMM_WORLD), "%s does not work after bad calls", alg);
  MPI_Type_free(&pair);
  free(c);
  free(d);
  free(y);
}

/* Rank 1's block: rank 0 expects `on0` elements, rank 1 sends (and
 * expects) `on1`, the other ranks expect 7; every other block is 7
 * elements.  Returns 1 if some rank got an error. */
static int disagree(MPI_Comm comm, int on0, int on1) {
  int c[64], d[64], pos = 0;
  for (int r = 0; r < P; r++) {
    c[r] = r != 1 ? 7 : rank == 0 ? on0 : rank == 1 ? on1 : 7;
    d[r] = pos;
    pos += c[r];
  }
  int *mine = calloc(16, sizeof *mine), *all = calloc((size_t)pos + 8, sizeof *all);
  int rc = PAT_Allgatherv(mine, c[rank], MPI_INT, all, c, d, MPI_INT, comm);
  int failed = rc != MPI_SUCCESS, any = 0;
  if (failed) fprintf(stderr, "rank %d: (expected) %s\n", rank, PAT_Error_string(rc));
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(mine);
  free(all);
  return any;
}

static void mismatch(const char *alg) {
  EXPECT(PAT_UseAlg(alg), MPI_SUCCESS);
  static const struct {
    int on0, on1; /* rank 1's count on rank 0, on rank 1 (7 elsewhere) */
    const char *what;
  } cases_[] = {{5, 7, "rank 0 expects 5 elements from rank 1, which sends 7"},
                {9, 7, "rank 0 expects 9 elements from rank 1, which sends 7"},
                {0, 7, "rank 0 expects nothing from rank 1, which sends 7"},
                {7, 0, "rank 1 sends nothing, the others expect 7 elements"}};
  for (size_t k = 0; k < sizeof cases_ / sizeof cases_[0]; k++) {
    if (rank == 0) {
      printf("mismatch %s: %s\n", alg, cases_[k].what);
      fflush(stdout);
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    CHECK(disagree(comm, cases_[k].on0, cases_[k].on1), "%s: no rank saw an error when %s", alg, cases_[k].what);
    MPI_Comm_free(&comm);
    CHECK(gatherv_ok(MPI_COMM_WORLD), "%s does not work after a mismatch (%s)", alg, cases_[k].what);
  }
}

int main(int argc, char **argv) {
  const char *mode = test_init(&argc, &argv, &rank, &P, "");
  {
    const char *alg = "before PAT_Init";
    int x = 1, y[64], c[64], d[64];
    for (int r = 0; r < P && r < 64; r++) {
      c[r] = 1;
      d[r] = r;
    }
    if (P <= 64) EXPECT(PAT_Allgatherv(&x, 1, MPI_INT, y, c, d, MPI_INT, MPI_COMM_WORLD), MPI_ERR_OTHER);
  }
  if (PAT_Init() != MPI_SUCCESS) {
    fprintf(stderr, "PAT_Init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* a call libpat passes to MPI returns MPI's error instead of aborting */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (strcmp(mode, "local") == 0)
    for (int i = 2; i < argc; i++) local(argv[i]);
  else if (strcmp(mode, "mismatch") == 0 && P >= 2 && P <= 64)
    for (int i = 2; i < argc; i++) mismatch(argv[i]);
  else {
    fprintf(stderr, "usage: test_allgatherv_bad_input local|mismatch ALG... (mismatch: 2 to 64 processes)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int bad = report_failures(mode, cases, failures, MPI_COMM_WORLD);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
