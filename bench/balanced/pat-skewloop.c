/*
 * pat-skewloop: a plain MPI iterative loop whose ranks have a stable compute
 * skew -- rank r computes base + r * skew / (P - 1) ms each iteration, then
 * all-gathers its block.  The MPI program knows nothing of libpat; under
 * LD_PRELOAD of libpat_mpi its MPI_Allgather becomes libpat's, which must
 * notice the stable imbalance from the call site's history and use it.
 *
 *   mpirun -np 8 [-x LD_PRELOAD=.../libpat_mpi.so] pat-skewloop [-i 200] [-n 256k]
 *          [--base-ms 10] [--skew-ms 20] [--warmup 10]
 *
 * Compute is a sleep: on the emulated cluster all ranks share this
 * machine's two cores, and a sleep keeps one rank's compute from slowing
 * another's communication, as separate nodes would.  Prints the end-to-end
 * time of the measured iterations (max over ranks), the time in the
 * all-gather (max and mean over ranks) and a checksum of the data.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/cli.h"

typedef struct options {
  int iters, warmup;
  long long bytes;
  double base_ms, skew_ms;
} options;

static void sleep_until(double t) {
  for (;;) {
    double left = t - MPI_Wtime();
    if (left <= 0) return;
    struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

static int parse(int argc, char **argv, options *o) {
  *o = (options){.iters = 200, .warmup = 10, .bytes = 256 * 1024, .base_ms = 10, .skew_ms = 20};
  cli_args args;
  cli_error err;
  cli_args_init(&args, argc, argv);
  while (cli_args_next(&args)) {
    int rc = 0;
    if (cli_args_is(&args, "-i|--iters"))
      rc = cli_args_int(&args, 1, 1000000, &o->iters, &err);
    else if (cli_args_is(&args, "--warmup"))
      rc = cli_args_int(&args, 0, 1000000, &o->warmup, &err);
    else if (cli_args_is(&args, "-n|--bytes")) {
      uint64_t b;
      rc = cli_args_bytes(&args, 4, (uint64_t)1 << 30, &b, &err);
      o->bytes = (long long)b;
    } else if (cli_args_is(&args, "--base-ms"))
      rc = cli_args_real(&args, 0, 1e6, &o->base_ms, &err);
    else if (cli_args_is(&args, "--skew-ms"))
      rc = cli_args_real(&args, 0, 1e6, &o->skew_ms, &err);
    else
      rc = cli_args_unknown(&args, &err);
    if (rc) {
      fprintf(stderr, "pat-skewloop: %s\n", err.text);
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  options o;
  if (parse(argc, argv, &o)) MPI_Abort(MPI_COMM_WORLD, 2);
  size_t n = (size_t)o.bytes / sizeof(uint32_t);
  uint32_t *mine = malloc(n * sizeof *mine), *all = malloc(n * (size_t)P * sizeof *all);
  double my_ms = o.base_ms + (P > 1 ? o.skew_ms * rank / (P - 1) : 0);
  double t_gather = 0, t_start = 0;
  uint64_t checksum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < o.warmup + o.iters; it++) {
    if (it == o.warmup) {
      MPI_Barrier(MPI_COMM_WORLD);
      t_start = MPI_Wtime();
      t_gather = 0;
    }
    sleep_until(MPI_Wtime() + 1e-3 * my_ms);
    for (size_t i = 0; i < n; i += 512) mine[i] = (uint32_t)(it * 2654435761u + rank * 40503u + i);
    double t0 = MPI_Wtime();
    MPI_Allgather(mine, (int)n, MPI_UINT32_T, all, (int)n, MPI_UINT32_T, MPI_COMM_WORLD);
    t_gather += MPI_Wtime() - t0;
    for (int r = 0; r < P; r++)
      for (size_t i = 0; i < n; i += 512) checksum = checksum * 31 + all[(size_t)r * n + i];
  }
  double total = MPI_Wtime() - t_start, total_max, gather_max, gather_sum;
  MPI_Reduce(&total, &total_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t_gather, &gather_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t_gather, &gather_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  uint64_t sums[2] = {checksum, checksum}, low, high;
  MPI_Reduce(&sums[0], &low, 1, MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&sums[1], &high, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pat-skewloop: P=%d iters=%d bytes=%lld base_ms=%g skew_ms=%g total_s=%.6f allgather_max_s=%.6f "
           "allgather_mean_s=%.6f checksum=%016llx %s\n",
           P, o.iters, o.bytes, o.base_ms, o.skew_ms, total_max, gather_max, gather_sum / P,
           (unsigned long long)low, low == high ? "same-on-every-rank" : "DIFFERS");
  free(mine);
  free(all);
  MPI_Finalize();
  return 0;
}
