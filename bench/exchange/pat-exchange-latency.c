/*
 * How long the arrival exchange takes and how long PAT_Allgather's caller
 * waits for it.
 *
 *   mpirun -np P pat-exchange-latency [--calls K] [--compute-ms T] [--alg NAME]
 *
 * Two runs of K calls each, all ranks arriving together (barrier, then a
 * compute phase of T ms, then a one-float all-gather with an arrival-aware
 * algorithm so every call needs the exchange):
 *   at-arrival  compute phase without an edge: each rank contributes its
 *               arrival when it reaches the call, so the caller waits for the
 *               whole exchange -- the wait is the exchange's latency;
 *   edge-50     an edge at half the phase: the prediction goes out early and
 *               the exchange completes in the background -- the wait is what
 *               an instrumented application pays per call.
 * Each call's wait comes from PAT_GetStats (exchange_wait_sum before and
 * after it); rank 0 prints mean, median, 90th percentile and maximum over
 * every call of every rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <pat.h>

#include "tools/cli.h"

static void sleep_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
  nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void run(const char *mode, int edge, int calls, double compute_ms, int P, int rank) {
  float mine = (float)rank, *all = malloc(sizeof(float) * (size_t)P);
  double *waits = malloc(sizeof(double) * (size_t)calls);
  for (int k = 0; k < calls; k++) {
    PAT_Stats before, after;
    MPI_Barrier(MPI_COMM_WORLD);
    PAT_ProcessingStart();
    sleep_ms(compute_ms / 2);
    if (edge) PAT_Edge(50.0);
    sleep_ms(compute_ms / 2);
    PAT_ProcessingEnd();
    PAT_GetStats(&before);
    int rc = PAT_Allgather(&mine, 1, MPI_FLOAT, all, 1, MPI_FLOAT, MPI_COMM_WORLD);
    PAT_GetStats(&after);
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "rank %d: PAT_Allgather failed: %s\n", rank, PAT_Error_string(rc));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < P; i++)
      if (all[i] != (float)i) {
        fprintf(stderr, "rank %d: wrong result\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    waits[k] = after.exchange_wait_sum - before.exchange_wait_sum;
  }
  double *every = rank == 0 ? malloc(sizeof(double) * (size_t)calls * (size_t)P) : NULL;
  MPI_Gather(waits, calls, MPI_DOUBLE, every, calls, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    size_t n = (size_t)calls * (size_t)P;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += every[i];
    qsort(every, n, sizeof(double), cmp_double);
    printf("%-10s P=%d calls=%d  wait per call (us): mean %.1f  median %.1f  p90 %.1f  max %.1f\n", mode, P, calls,
           1e6 * sum / (double)n, 1e6 * every[n / 2], 1e6 * every[n * 9 / 10], 1e6 * every[n - 1]);
  }
  free(every);
  free(waits);
  free(all);
}

static const char usage_text[] = "usage: pat-exchange-latency [--calls K] [--compute-ms T] [--alg NAME]\n";

typedef struct exchange_opts {
  int calls;
  double compute_ms;
  const char *alg;
} exchange_opts;

/* The options: 0, 1 for --help, or -1 with a message in *err. */
static int parse_options(int argc, char **argv, exchange_opts *o, cli_error *err) {
  *o = (exchange_opts){.calls = 200, .compute_ms = 2.0, .alg = "bdr"};
  cli_args a;
  cli_args_init(&a, argc, argv);
  while (cli_args_next(&a)) {
    int rc;
    if (cli_args_is(&a, "-h|--help")) return 1;
    if (cli_args_is(&a, "--calls")) rc = cli_args_int(&a, 1, 100000000, &o->calls, err);
    else if (cli_args_is(&a, "--compute-ms")) rc = cli_args_time(&a, CLI_MS, &o->compute_ms, NULL, err);
    else if (cli_args_is(&a, "--alg")) rc = cli_args_text(&a, &o->alg, err);
    else rc = cli_args_unknown(&a, err);
    if (rc) return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int provided, P, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  exchange_opts o;
  cli_error err;
  int parsed = parse_options(argc, argv, &o, &err);
  if (parsed) {
    if (rank == 0 && parsed < 0) fprintf(stderr, "pat-exchange-latency: %s\n", err.text);
    if (rank == 0) fprintf(parsed < 0 ? stderr : stdout, "%s", usage_text);
    MPI_Finalize();
    return parsed < 0 ? 2 : 0;
  }
  if (PAT_Init() != MPI_SUCCESS || PAT_UseAlg(o.alg) != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "pat-exchange-latency: %s\n", PAT_Error_string(MPI_ERR_OTHER));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  run("at-arrival", 0, o.calls, o.compute_ms, P, rank);
  run("edge-50", 1, o.calls, o.compute_ms, P, rank);
  PAT_Finalize();
  MPI_Finalize();
  return 0;
}
