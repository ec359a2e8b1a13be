/*
 * One context per communicator, shared by every call form (runtime/comm.h):
 * a communicator's first call of either form makes it without communication,
 * blocking calls add their channels at their first call, non-blocking ones
 * theirs; calls of both forms interleave on it (one rank's blocking call
 * while its non-blocking one is outstanding and the others wait for theirs),
 * and it outlives the application's handle while a call on it is pending.
 *
 *   test_one_context   (run with PAT_ALG=relay or ring: libpat's schedules in both forms)
 *
 * Every call's blocks are checked, and what the communicator's context holds
 * after each first call (runtime/debug.h).
 */
#include <stdlib.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

static long failures, cases;
static int rank, P;
enum { COUNT = 3000 };

static void fill(int *mine, int me, int c) {
  for (int i = 0; i < COUNT; i++) mine[i] = me * 7919 + c * 31 + i;
}

static void check(const int *all, int n, int c, const char *what) {
  long bad = 0;
  for (int r = 0; r < n; r++)
    for (int i = 0; i < COUNT; i++) bad += all[(size_t)r * COUNT + i] != r * 7919 + c * 31 + i;
  CHECK(bad == 0, "%s (call %d): %ld wrong ints", what, c, bad);
}

/* Call c on comm, blocking or not; the context it leaves must hold `forms`. */
static void call(MPI_Comm comm, int blocking, int c, int forms, const char *what) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  int *mine = malloc(sizeof(int) * COUNT), *all = malloc(sizeof(int) * COUNT * (size_t)n);
  fill(mine, me, c);
  int rc;
  if (blocking) {
    rc = PAT_Allgather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, comm);
  } else {
    MPI_Request req;
    rc = PAT_Iallgather(mine, COUNT, MPI_INT, all, COUNT, MPI_INT, comm, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  CHECK(rc == MPI_SUCCESS, "%s (call %d): rc %d", what, c, rc);
  check(all, n, c, what);
  if (forms >= 0) {
    int held = pat_debug_context_forms(comm);
    CHECK(held == forms, "%s: the context holds %d, not %d", what, held, forms);
  }
  free(mine);
  free(all);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "");
  PAT_Init();
  const int ctx = PAT_DEBUG_CONTEXT, blk = PAT_DEBUG_CONTEXT_BLOCKING, nbc = PAT_DEBUG_CONTEXT_NONBLOCKING;
  MPI_Comm a, b, c;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  CHECK(pat_debug_context_forms(a) == 0, "a new communicator has a context already");
  /* non-blocking first: the context with its non-blocking part only, then the blocking part added */
  call(a, 0, 0, ctx | nbc, "a: non-blocking first");
  call(a, 1, 1, ctx | blk | nbc, "a: then blocking");
  /* blocking first, then non-blocking */
  call(b, 1, 0, ctx | blk, "b: blocking first");
  call(b, 0, 1, ctx | blk | nbc, "b: then non-blocking");
  /* both forms in turns, and a non-blocking call outstanding across a blocking one */
  for (int k = 2; k < 8; k++) call(k % 2 ? a : b, k % 3 == 0, k, -1, "in turns");
  int *mine = malloc(sizeof(int) * COUNT), *early = malloc(sizeof(int) * COUNT * (size_t)P);
  fill(mine, rank, 40);
  MPI_Request req;
  CHECK(PAT_Iallgather(mine, COUNT, MPI_INT, early, COUNT, MPI_INT, a, &req) == MPI_SUCCESS, "posting on a");
  call(a, 1, 41, -1, "a: blocking while a non-blocking call is outstanding");
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "waiting on a");
  check(early, P, 40, "a: the outstanding call");
  /* rank 0 calls a blocking all-gather before it waits for its non-blocking one, the others wait for
   * theirs first (the same collective order, which MPI allows): rank 0's queue must progress while its
   * blocking call holds the communicator, or no rank gets past its call */
  fill(mine, rank, 42);
  CHECK(PAT_Iallgather(mine, COUNT, MPI_INT, early, COUNT, MPI_INT, a, &req) == MPI_SUCCESS, "posting on a again");
  if (rank == 0) call(a, 1, 43, -1, "a: rank 0's blocking call before its wait");
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "waiting on a again");
  if (rank != 0) call(a, 1, 43, -1, "a: the others' blocking call after their wait");
  check(early, P, 42, "a: the call the others waited for first");
  /* freed with a call pending (MPI allows it): the call completes, the context goes after it */
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  fill(mine, rank, 50);
  CHECK(PAT_Iallgather(mine, COUNT, MPI_INT, early, COUNT, MPI_INT, c, &req) == MPI_SUCCESS, "posting on c");
  MPI_Comm_free(&c);
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "waiting on c");
  check(early, P, 50, "c: freed before its call completed");
  MPI_Comm_free(&a);
  /* a freed communicator's handle may be reused: a new one gets a new context */
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  call(c, 1, 60, ctx | blk, "c: blocking on a new communicator");
  MPI_Comm_free(&c);
  MPI_Comm_free(&b);
  free(mine);
  free(early);
  PAT_Finalize();
  int rc = report_failures("test_one_context", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
