/* CPU time a process spends while it sleeps between all-gathers, and per
 * call in a back-to-back loop: run natively and under LD_PRELOAD=libpat_mpi.so,
 * the difference is what libpat (its background thread included) costs.
 * Plain MPI; getrusage(RUSAGE_SELF) counts every thread of the process.
 *
 *   idle SLEEP_S CALLS BLOCK_BYTES
 * SLEEP_S 0: back-to-back.  Prints, from rank 0, the mean over ranks of the
 * process's CPU seconds (user + system) and of that per second of wall time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_s(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
         1e-6 * (double)u.ru_stime.tv_usec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  double sleep_s = argc > 1 ? atof(argv[1]) : 2.0;
  int calls = argc > 2 ? atoi(argv[2]) : 5;
  size_t block = argc > 3 ? (size_t)atol(argv[3]) : 1024;
  char *send = calloc(block, 1), *recv = calloc(block * (size_t)P, 1);
  /* one call first: connections and libpat's set-up are not what is measured */
  MPI_Allgather(send, (int)block, MPI_CHAR, recv, (int)block, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double c0 = cpu_s(), t0 = MPI_Wtime();
  for (int i = 0; i < calls; i++) {
    if (sleep_s > 0) {
      struct timespec nap = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
      nanosleep(&nap, NULL);
    }
    MPI_Allgather(send, (int)block, MPI_CHAR, recv, (int)block, MPI_CHAR, MPI_COMM_WORLD);
  }
  double mine[2] = {cpu_s() - c0, MPI_Wtime() - t0}, sum[2];
  MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("P=%d sleep=%.3f calls=%d block=%zu cpu_s_per_rank=%.4f wall_s=%.3f cpu_per_wall=%.4f cpu_us_per_call=%.1f\n", P,
           sleep_s, calls, block, sum[0] / P, sum[1] / P, sum[0] / sum[1], 1e6 * sum[0] / P / calls);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
