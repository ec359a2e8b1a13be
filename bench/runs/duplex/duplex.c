/* Port efficiency probe (plain MPI, one rank per emulated host): how fast a
 * host's send and receive ports move data when they carry one flow, many
 * flows, or both directions at once.  Each pattern moves `block` bytes per
 * flow, all flows posted at once after a barrier and a 2 ms pause; the time
 * is the slowest rank's, median of `reps`.  Efficiency = the busiest port's
 * bytes at the link rate / the time.
 *
 *   duplex RATE_MBIT BLOCK_BYTES REPS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* flows[i] = {from, to}; returns the median over reps of the slowest rank's time */
static double run(int nflows, const int (*flows)[2], size_t block, int reps, char *buf, char *rbuf) {
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  double *t = malloc(sizeof(double) * (size_t)reps);
  MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)(2 * nflows));
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    struct timespec nap = {0, 2000000};
    nanosleep(&nap, NULL);
    double t0 = MPI_Wtime();
    int n = 0;
    for (int i = 0; i < nflows; i++) {
      if (flows[i][1] == rank) MPI_Irecv(rbuf + (size_t)i * block, (int)block, MPI_CHAR, flows[i][0], i, MPI_COMM_WORLD, &rq[n++]);
    }
    for (int i = 0; i < nflows; i++) {
      if (flows[i][0] == rank) MPI_Isend(buf, (int)block, MPI_CHAR, flows[i][1], i, MPI_COMM_WORLD, &rq[n++]);
    }
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    double mine = MPI_Wtime() - t0, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[r] = worst;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  double m = t[reps / 2];
  free(t);
  free(rq);
  return m;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  double mbit = argc > 1 ? atof(argv[1]) : 500;
  size_t block = argc > 2 ? (size_t)atol(argv[2]) : 524288;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  int maxf = P * P;
  int (*f)[2] = malloc(sizeof(int[2]) * (size_t)maxf);
  char *buf = calloc(block, 1), *rbuf = calloc(block * (size_t)maxf, 1);
  double tau = (double)block * 8 / (mbit * 1e6);
  if (rank == 0) printf("pattern,flows,busiest_port_blocks,time_ms,efficiency\n");
#define REPORT(name, n, busiest)                                                                   \
  do {                                                                                              \
    double tm = run(n, (const int(*)[2])f, block, reps, buf, rbuf);                                 \
    if (rank == 0) printf("%s,%d,%d,%.2f,%.3f\n", name, n, busiest, 1e3 * tm, (busiest) * tau / tm); \
  } while (0)
  int n;
  /* one flow 0 -> 1, sent as k blocks in a row */
  for (int k = 1; k <= 7; k += 6) {
    n = 0;
    for (int i = 0; i < k; i++) f[n][0] = 0, f[n][1] = 1, n++;
    char name[64];
    snprintf(name, sizeof name, "one-pair-%dblocks", k);
    REPORT(name, n, k);
  }
  /* both directions of one pair: 0 <-> 1, 7 blocks each way */
  n = 0;
  for (int i = 0; i < 7; i++) f[n][0] = 0, f[n][1] = 1, n++, f[n][0] = 1, f[n][1] = 0, n++;
  REPORT("pair-both-ways", n, 7);
  /* fan-out 0 -> 1..P-1 */
  n = 0;
  for (int j = 1; j < P; j++) f[n][0] = 0, f[n][1] = j, n++;
  REPORT("fan-out", n, P - 1);
  /* incast 1..P-1 -> 0 */
  n = 0;
  for (int j = 1; j < P; j++) f[n][0] = j, f[n][1] = 0, n++;
  REPORT("incast", n, P - 1);
  /* fan-out and incast at once on rank 0 */
  n = 0;
  for (int j = 1; j < P; j++) f[n][0] = 0, f[n][1] = j, n++, f[n][0] = j, f[n][1] = 0, n++;
  REPORT("fan-out+incast", n, P - 1);
  /* shifted pairs: i -> i+1 (every port one flow each way, a ring step), 7 blocks */
  n = 0;
  for (int k = 0; k < P - 1; k++)
    for (int i = 0; i < P; i++) f[n][0] = i, f[n][1] = (i + 1) % P, n++;
  REPORT("ring-shift-7blocks", n, P - 1);
  /* one-way halves: ranks 0..P/2-1 send 7 blocks to their partner in the other half */
  n = 0;
  for (int k = 0; k < P - 1; k++)
    for (int i = 0; i < P / 2; i++) f[n][0] = i, f[n][1] = i + P / 2, n++;
  REPORT("halves-one-way-7blocks", n, P - 1);
  /* the mesh (DIRECT) */
  n = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < P; j++)
      if (i != j) f[n][0] = i, f[n][1] = j, n++;
  REPORT("mesh", n, P - 1);
  MPI_Finalize();
  return 0;
}
