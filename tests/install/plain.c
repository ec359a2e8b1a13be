/* A program that knows nothing of libpat: plain MPI_Allgather, for the
 * installed drop-in preloaded as the module file names it (PAT_MPI_PRELOAD).
 * Every element gathered is compared with the value its owner put there;
 * rank 0 prints "install plain MPI, P=<P>: passed" and the exit status is 0
 * only then.  That libpat ran the calls is the report's to show
 * (PAT_REPORT=1, run_install_test.sh). */
#include <mpi.h>
#include <stdio.h>

enum { N = 500, ITERATIONS = 8 };

int main(int argc, char **argv) {
  static int mine[N], all[N * 64];
  int rank, nprocs, failures = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (nprocs > 64) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int it = 0; it < ITERATIONS; it++) {
    for (int i = 0; i < N; i++) mine[i] = rank * 100000 + i * 10 + it;
    if (MPI_Allgather(mine, N, MPI_INT, all, N, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS) failures++;
    for (int r = 0; r < nprocs; r++)
      for (int i = 0; i < N; i++)
        if (all[r * N + i] != r * 100000 + i * 10 + it) failures++;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf("install plain MPI, P=%d: passed\n", nprocs);
    else
      printf("install plain MPI, P=%d: FAILED (%d errors)\n", nprocs, total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
