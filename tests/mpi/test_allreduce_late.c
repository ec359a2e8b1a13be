/*
 * The RELAY all-reduce's prediction (PAT_ALLREDUCE=relay, linked with
 * libpat): a blocking call is built for the last arrival of the
 * communicator's previous one, which every rank learns alike from the
 * arrival stamps gathered beside each call.  Rank d waits 150 ms before each
 * call (d changes every two calls); after each call every rank holds the
 * same last arrival, d, and the sums of ints are exact whoever was
 * predicted (the first call's default, P - 1, and a wrong one after d
 * changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

static long failures, cases;
static int rank, P;

static int value(int r, int i) { return (r * 7 + i * 13) % 1001 - 500; }

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "");
  PAT_Init();
  const int n = 30000;
  int *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  for (int i = 0; i < n; i++) in[i] = value(rank, i);
  for (int call = 0; call < 4; call++) {
    int d = call < 2 ? 0 : P - 1 - (P > 2);
    if (rank == d) nanosleep(&(struct timespec){0, 150000000}, NULL);
    int rc = PAT_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), bad = -1;
    for (int i = 0; i < n && bad < 0; i++) {
      long want = 0;
      for (int r = 0; r < P; r++) want += value(r, i);
      if (out[i] != want) bad = i;
    }
    cases++;
    CHECK(rc == MPI_SUCCESS && bad < 0, "call %d (late rank %d): rc %d, element %d wrong", call, d, rc, bad);
    int late = pat_debug_allreduce_late(MPI_COMM_WORLD), lo, hi;
    MPI_Allreduce(&late, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&late, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    cases++;
    CHECK(lo == hi, "call %d: the ranks learned different last arrivals (%d to %d)", call, lo, hi);
    CHECK(P == 1 || late == d, "call %d: rank %d waited 150 ms, the last arrival learned is %d", call, d, late);
  }
  free(in);
  free(out);
  PAT_Finalize();
  int rc = report_failures("test_allreduce_late", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
