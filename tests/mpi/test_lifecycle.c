/*
 * Lifecycle and erroneous programs (issue 13): MPI_Comm_free stays local
 * whatever libpat has in flight; inter-communicator all-gathers whose groups
 * send different sizes are MPI's; settings that differ between ranks make
 * PAT_Init fail on every rank; ranks passing different sizes get an error,
 * never a hang.  A hang fails the test through ctest's timeout.
 *
 *   test_lifecycle free-order ALG...   ranks free communicators in different orders
 *   test_lifecycle inter               inter-communicator, groups of different sizes
 *   test_lifecycle init-fails          PAT_Init must fail on every rank (launched with
 *                                      different settings per rank)
 *   test_lifecycle mismatch ALG...     ranks pass different counts
 *   test_lifecycle pace-agree ALG...   ranks pace at different rates (PAT_PACE per rank, an MPMD
 *                                      launch): the replay paces at one rate on every rank (the
 *                                      largest time per byte, 400 Mbit/s: every rank's choice
 *                                      must be the same), and all-gathers still work
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/netparams.h"

static long failures, cases;
static int rank, P;

/* A few all-gathers on comm with a pause before each (so that background
 * threads contribute ahead of the next call and plan it), results checked. */
static void use(MPI_Comm comm, int calls, int count) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  int *mine = malloc((size_t)count * sizeof *mine), *all = malloc((size_t)count * p * sizeof *all);
  for (int k = 0; k < calls; k++) {
    sleep_ms(2 + me);
    for (int i = 0; i < count; i++) mine[i] = me * 1000 + i + k;
    int rc = PAT_Allgather(mine, count, MPI_INT, all, count, MPI_INT, comm);
    CHECK(rc == MPI_SUCCESS, "all-gather failed: %s", PAT_Error_string(rc));
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++)
      for (int i = 0; i < count; i++)
        if (all[r * count + i] != r * 1000 + i + k) {
          CHECK(0, "wrong element %d of rank %d", i, r);
          r = p;
          break;
        }
  }
  free(mine);
  free(all);
}

/* Rank 0 frees A and then waits in a barrier on B; the others enter the
 * barrier first and free A afterwards.  Then two communicators freed in
 * opposite orders by even and odd ranks. */
static void free_order(const char *alg) {
  CHECK(PAT_UseAlg(alg) == MPI_SUCCESS, "PAT_UseAlg(%s)", alg);
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  use(a, 6, 1000);
  use(b, 2, 10);
  if (rank == 0) {
    MPI_Comm_free(&a);
    MPI_Barrier(b);
  } else {
    MPI_Barrier(b);
    sleep_ms(20);
    MPI_Comm_free(&a);
  }
  use(b, 3, 100); /* the library still works */
  MPI_Comm_free(&b);

  MPI_Comm c, d;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_split(MPI_COMM_WORLD, 0, P - rank, &d); /* reversed rank order */
  use(c, 5, 5000);
  use(d, 5, 3000);
  if (rank % 2 == 0) {
    MPI_Comm_free(&c);
    MPI_Comm_free(&d);
  } else {
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Even world ranks form group 0 (sending 2 ints each), odd ones group 1
 * (3 ints each): each group receives the other's blocks. */
static void inter(void) {
  if (P < 2) return;
  int color = rank % 2;
  MPI_Comm local, ic;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &ic);
  int remote;
  MPI_Comm_remote_size(ic, &remote);
  int mine_n = color == 0 ? 2 : 3, theirs_n = color == 0 ? 3 : 2;
  int mine[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2}, all[3 * 64];
  for (int round = 0; round < 3; round++) {
    int rc = PAT_Allgather(mine, mine_n, MPI_INT, all, theirs_n, MPI_INT, ic);
    CHECK(rc == MPI_SUCCESS, "inter-communicator all-gather failed: %s", PAT_Error_string(rc));
    for (int r = 0; r < remote && rc == MPI_SUCCESS; r++) {
      int world = 2 * r + (1 - color); /* the r-th rank of the other group */
      for (int i = 0; i < theirs_n; i++)
        CHECK(all[r * theirs_n + i] == world * 10 + i, "inter: element %d of remote rank %d is %d", i, r,
              all[r * theirs_n + i]);
    }
  }
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
}

/* Every rank passes a different count (an erroneous program): every rank
 * returns (an error where it can tell), none hangs. */
static void mismatch(const char *alg) {
  CHECK(PAT_UseAlg(alg) == MPI_SUCCESS, "PAT_UseAlg(%s)", alg);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int count = 100 + 10 * rank;
  int *mine = calloc((size_t)count, sizeof *mine), *all = calloc((size_t)(100 + 10 * P) * P, sizeof *all);
  int rc = PAT_Allgather(mine, count, MPI_INT, all, count, MPI_INT, comm);
  int failed = rc != MPI_SUCCESS, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(any, "%s: no rank saw an error with different counts", alg);
  free(mine);
  free(all);
  MPI_Comm_free(&comm);
  use(MPI_COMM_WORLD, 2, 10); /* the library still works */
}

/* The launch gives rank 0 PAT_PACE=400 and the others 800 (Mbit/s). */
static void pace_agree(int argc, char **argv) {
  double mine = pat_netparams()->pace_beta, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi, "the replay's pacing differs between ranks: %g to %g s/B", lo, hi);
  CHECK(fabs(mine - 8e-6 / 400) < 1e-15, "rank %d: the replay paces at %g s/B, not 400 Mbit/s's", rank, mine);
  for (int i = 2; i < argc; i++) {
    CHECK(PAT_UseAlg(argv[i]) == MPI_SUCCESS, "PAT_UseAlg(%s)", argv[i]);
    use(MPI_COMM_WORLD, 6, 50000); /* 200 KB blocks: RELAY cuts them into pieces it forwards */
  }
}

int main(int argc, char **argv) {
  const char *mode = test_init(&argc, &argv, &rank, &P, "");
  int rc = PAT_Init();
  if (strcmp(mode, "init-fails") == 0) {
    int failed = rc != MPI_SUCCESS, all_failed = 0;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(all_failed, "PAT_Init succeeded on rank %d: every rank must fail", rank);
    if (failed) printf("rank %d: PAT_Init: %s\n", rank, PAT_Error_string(rc));
    fflush(stdout);
    int bad = report_failures("init-fails", cases, failures, MPI_COMM_WORLD);
    if (!failed) PAT_Finalize();
    MPI_Finalize();
    return bad;
  }
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "PAT_Init failed: %s\n", PAT_Error_string(rc));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (strcmp(mode, "free-order") == 0)
    for (int i = 2; i < argc; i++) free_order(argv[i]);
  else if (strcmp(mode, "inter") == 0)
    inter();
  else if (strcmp(mode, "mismatch") == 0)
    for (int i = 2; i < argc; i++) mismatch(argv[i]);
  else if (strcmp(mode, "pace-agree") == 0)
    pace_agree(argc, argv);
  else {
    fprintf(stderr, "usage: test_lifecycle free-order|inter|init-fails|mismatch|pace-agree [ALG...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int bad = report_failures(mode, cases, failures, MPI_COMM_WORLD);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
