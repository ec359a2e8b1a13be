/* bench/runs/counters/loop.c: PAT_Allgather of n bytes, iters times back to back; after
 * the first 200 calls, each rank's mean, median, 90th and 99th percentile per call, averaged over the
 * ranks, and rank 0's PAT_GetStats count of exchanged calls.  Build (from the repository root):
 *   mpicc -O2 -I include -o /tmp/loop bench/runs/counters/loop.c -L build -lpat -Wl,-rpath,$PWD/build
 * Run: pat-cluster run -x PAT_THREAD=0 -x PAT_ALG=auto|native -np 8 /tmp/loop 8 4000 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "pat.h"
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  PAT_Init();
  int rank, P; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &P);
  int n = argc > 1 ? atoi(argv[1]) : 1, iters = argc > 2 ? atoi(argv[2]) : 1200;
  char *s = calloc(n, 1), *r = calloc((size_t)n * P, 1);
  double *ts = calloc(iters, sizeof *ts); double t0 = MPI_Wtime(), worst = 0;
  for (int i = 0; i < iters; i++) { double a = MPI_Wtime(); PAT_Allgather(s, n, MPI_CHAR, r, n, MPI_CHAR, MPI_COMM_WORLD); double d = MPI_Wtime() - a; ts[i] = d; if (d > worst) worst = d; }
  double t = MPI_Wtime() - t0;
  int cmp(const void *a, const void *b);
  double sum = 0; for (int i = 200; i < iters; i++) sum += ts[i];
  double mean200 = sum / (iters - 200); qsort(ts + 200, iters - 200, sizeof *ts, cmp);
  double med = ts[200 + (iters - 200) / 2], p90 = ts[200 + (iters - 200) * 9 / 10], p99 = ts[200 + (iters - 200) * 99 / 100];
  double all[4] = {mean200, med, p90, p99}, avg[4]; MPI_Reduce(all, avg, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("after 200: mean %.1f median %.1f p90 %.1f p99 %.1f (rank avg)\n", avg[0]/P*1e6, avg[1]/P*1e6, avg[2]/P*1e6, avg[3]/P*1e6);
  PAT_Stats st; PAT_GetStats(&st);
  if (rank == 0) printf("n=%d iters=%d mean %.1f us worst %.1f us exchanged %lld of %lld\n", n, iters, t / iters * 1e6, worst * 1e6, st.exchanged_calls, st.calls);
  PAT_Finalize(); MPI_Finalize(); return 0;
}
int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
