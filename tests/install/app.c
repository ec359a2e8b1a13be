/* The README's C example ("Using it from C") as a whole program, built by
 * run_install_test.sh against an installed libpat only (pkg-config, the
 * CMake package, the module file).  Ranks compute for different times, so
 * the all-gathers see imbalanced arrivals; every element gathered is
 * compared with the value its owner put there, and every PAT call must
 * return MPI_SUCCESS.  Rank 0 prints "<label>, P=<P>: passed" and the exit
 * status is 0 only then. */
#include <mpi.h>
#include <pat.h>
#include <stdio.h>

enum { N = 1000, ITERATIONS = 12 };

static int failures;

static void check(const char *what, int rc) {
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "%s returned %d: %s\n", what, rc, PAT_Error_string(rc));
    failures++;
  }
}

/* busy for (rank + 1) x 50 microseconds: the later ranks arrive late */
static void compute(int rank) {
  double until = MPI_Wtime() + (rank + 1) * 50e-6;
  while (MPI_Wtime() < until) {
  }
}

/* exact in a float: small integers */
static float value(int rank, int i, int it) { return (float)(rank * 100000 + i * 10 + it % 10); }

int main(int argc, char **argv) {
  const char *label = argc > 1 ? argv[1] : "install app";
  static float mine[N], all[N * 64];
  int provided, rank, nprocs;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (nprocs > 64) {
    if (rank == 0) fprintf(stderr, "%s: at most 64 processes\n", label);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  check("PAT_Init", PAT_Init());
  for (int it = 0; it < ITERATIONS; it++) {
    for (int i = 0; i < N; i++) mine[i] = value(rank, i, it);
    check("PAT_ProcessingStart", PAT_ProcessingStart());
    compute(rank);
    check("PAT_Edge", PAT_Edge(50.0));
    compute(rank);
    check("PAT_ProcessingEnd", PAT_ProcessingEnd());
    check("PAT_Allgather", PAT_Allgather(mine, N, MPI_FLOAT, all, N, MPI_FLOAT, MPI_COMM_WORLD));
    for (int r = 0; r < nprocs; r++)
      for (int i = 0; i < N; i++)
        if (all[r * N + i] != value(r, i, it)) {
          if (failures < 5)
            fprintf(stderr, "%s: rank %d, call %d: element %d of rank %d is %g, not %g\n", label, rank, it, i, r,
                    all[r * N + i], value(r, i, it));
          failures++;
        }
  }
  check("PAT_Finalize", PAT_Finalize());
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf("%s, P=%d: passed\n", label, nprocs);
    else
      printf("%s, P=%d: FAILED (%d errors)\n", label, nprocs, total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
