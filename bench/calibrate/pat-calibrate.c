/*
 * pat-calibrate: time each algorithm on balanced arrivals at log-spaced
 * block sizes, for fitting the cost model per algorithm (pat-fit).
 *
 *   mpirun -np P pat-calibrate [--algs ring,nex,...] [--min-bytes 64] [--max-bytes 4194304]
 *                              [--points 10] [--min-reps 5] [--max-reps 200] [--ci 0.025]
 *                              [--max-seconds 10] [--out times.csv]
 *
 * Each point repeats: barrier, timed all-gather on every rank; the measured
 * value of one repetition is the mean elapsed time over ranks (ē).  A point
 * stops when the 95% confidence half-width of the mean is within --ci of the
 * mean (at least --min-reps, at most --max-reps repetitions or --max-seconds).
 * Output lines "alg,block_bytes,seconds" (what pat-fit reads), preceded by
 * comment lines saying how they were made; progress on stderr.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pat.h"
#include "tools/cli.h"

#define MAX_ALGS 32

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Student t quantile (two-sided 95%) for n-1 degrees of freedom. */
static double t95(int n) {
  static const double t[] = {0, 12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086};
  int df = n - 1;
  if (df < 1) return INFINITY;
  return df <= 20 ? t[df] : (df <= 30 ? 2.042 : (df <= 60 ? 2.000 : 1.96));
}

typedef struct calib_opts {
  char algs[MAX_ALGS][32];
  int nalgs;
  const char *out;
  uint64_t min_bytes, max_bytes;
  int points, min_reps, max_reps;
  double ci, max_seconds;
} calib_opts;

static const char usage_text[] = "usage: pat-calibrate [--algs a,b] [--min-bytes B] [--max-bytes B] [--points N] "
                                 "[--min-reps N] [--max-reps N] [--ci X] [--max-seconds S] [--out FILE]\n";

/* Names are checked when they run (PAT_UseAlg): an unknown one is skipped. */
static int add_alg(const char *opt, const char *name, int i, void *ctx, cli_error *err) {
  calib_opts *o = ctx;
  (void)opt, (void)err;
  snprintf(o->algs[i], sizeof o->algs[i], "%s", name);
  o->nalgs = i + 1;
  return 0;
}

static int parse_option(cli_args *a, calib_opts *o, cli_error *err) {
  const char *v;
  int n;
  if (cli_args_is(a, "--algs")) return cli_args_text(a, &v, err) || cli_list(a->opt, v, MAX_ALGS, add_alg, o, &n, err);
  if (cli_args_is(a, "--min-bytes")) return cli_args_bytes(a, 1, 2147483647, &o->min_bytes, err);
  if (cli_args_is(a, "--max-bytes")) return cli_args_bytes(a, 1, 2147483647, &o->max_bytes, err);
  if (cli_args_is(a, "--points")) return cli_args_int(a, 2, 1000000, &o->points, err);
  if (cli_args_is(a, "--min-reps")) return cli_args_int(a, 2, 1000000000, &o->min_reps, err);
  if (cli_args_is(a, "--max-reps")) return cli_args_int(a, 2, 1000000000, &o->max_reps, err);
  if (cli_args_is(a, "--ci")) return cli_args_real(a, 0, 1, &o->ci, err);
  if (cli_args_is(a, "--max-seconds")) return cli_args_time(a, CLI_S, &o->max_seconds, NULL, err);
  if (cli_args_is(a, "--out")) return cli_args_text(a, &o->out, err);
  return cli_args_unknown(a, err);
}

/* The options: 0, 1 for --help, or -1 with a message in *err. */
static int parse_options(int argc, char **argv, calib_opts *o, cli_error *err) {
  *o = (calib_opts){.min_bytes = 64, .max_bytes = 4L << 20, .points = 10, .min_reps = 5, .max_reps = 200,
                    .ci = 0.025, .max_seconds = 10};
  int n;
  cli_list("--algs", "ring,nex,rdb,bruck,lnbc,bdr,bslb,ard", MAX_ALGS, add_alg, o, &n, err);
  cli_args a;
  cli_args_init(&a, argc, argv);
  while (cli_args_next(&a)) {
    if (cli_args_is(&a, "-h|--help")) return 1;
    if (parse_option(&a, o, err)) return -1;
  }
  if (o->max_bytes < o->min_bytes) snprintf(err->text, sizeof err->text, "--max-bytes is below --min-bytes");
  else if (o->max_reps < o->min_reps) snprintf(err->text, sizeof err->text, "--max-reps is below --min-reps");
  else return 0;
  return -1;
}

static void print_header(FILE *f, int P, const calib_opts *o) {
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&t));
  fprintf(f, "# pat-calibrate, P=%d, %s, balanced arrivals, value = mean elapsed time over ranks\n", P, date);
  fprintf(f, "# ci=%.3f min_reps=%d max_reps=%d max_seconds=%.1f\nalg,block_bytes,seconds\n", o->ci, o->min_reps,
          o->max_reps, o->max_seconds);
}

/* Mean and 95% confidence half-width of samples[0..n). */
static void mean_ci(const double *samples, int n, double *mean, double *half) {
  *mean = 0;
  for (int i = 0; i < n; i++) *mean += samples[i];
  *mean /= n;
  double var = 0;
  for (int i = 0; i < n; i++) var += (samples[i] - *mean) * (samples[i] - *mean);
  *half = n > 1 ? t95(n) * sqrt(var / (n - 1) / n) : INFINITY;
}

/* One point: timed all-gathers of `bytes` until the mean is known well
 * enough; *mean is ē, *reps how many.  Returns 1 if a call failed. */
static int measure_point(const calib_opts *o, long bytes, char *sendbuf, char *recvbuf, double *samples, int P,
                         double *mean, int *reps) {
  int n = 0, stop = 0;
  double t_start = now();
  *mean = 0;
  /* one untimed call per point warms connections and caches */
  if (PAT_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
    return 1;
  while (!stop) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = PAT_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    double e = MPI_Wtime() - t0, sum = 0, half;
    int bad = rc != MPI_SUCCESS, anybad = 0;
    MPI_Allreduce(&e, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) return 1;
    samples[n++] = sum / P;
    mean_ci(samples, n, mean, &half);
    int enough = n >= o->min_reps && half <= o->ci * *mean;
    int out_of_time = now() - t_start > o->max_seconds && n >= 2;
    stop = enough || n >= o->max_reps || out_of_time;
    MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides for all */
  }
  *reps = n;
  return 0;
}

/* Every point of one algorithm, log-spaced from min to max bytes; a failed
 * point ends the algorithm. */
static void calibrate_alg(const calib_opts *o, const char *alg, FILE *f, int rank, int P, char *sendbuf,
                          char *recvbuf, double *samples) {
  for (int k = 0; k < o->points; k++) {
    long bytes = (long)llround((double)o->min_bytes *
                               pow((double)o->max_bytes / (double)o->min_bytes, (double)k / (o->points - 1)));
    double mean;
    int n = 0, failed = measure_point(o, bytes, sendbuf, recvbuf, samples, P, &mean, &n);
    if (rank == 0) {
      if (failed) {
        fprintf(stderr, "pat-calibrate: %s failed at %ld bytes; skipping it\n", alg, bytes);
      } else {
        fprintf(f, "%s,%ld,%.9g\n", alg, bytes, mean);
        fflush(f);
        fprintf(stderr, "  %-6s %9ld B  %10.3f us  (%d reps)\n", alg, bytes, mean * 1e6, n);
      }
    }
    if (failed) break;
  }
}

int main(int argc, char **argv) {
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  calib_opts o;
  cli_error err;
  int parsed = parse_options(argc, argv, &o, &err);
  if (parsed) {
    if (rank == 0 && parsed < 0) fprintf(stderr, "pat-calibrate: %s\n%s", err.text, usage_text);
    if (rank == 0 && parsed > 0) printf("%s", usage_text);
    MPI_Finalize();
    return parsed < 0 ? 2 : 0;
  }
  if (PAT_Init() != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "pat-calibrate: PAT_Init failed\n");
    MPI_Finalize();
    return 1;
  }
  FILE *f = stdout;
  if (rank == 0 && o.out && !(f = fopen(o.out, "w"))) {
    perror(o.out);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) print_header(f, P, &o);
  double *samples = malloc((size_t)o.max_reps * sizeof *samples);
  char *sendbuf = malloc((size_t)o.max_bytes), *recvbuf = malloc((size_t)o.max_bytes * P);
  memset(sendbuf, rank, (size_t)o.max_bytes);
  for (int i = 0; i < o.nalgs; i++) {
    if (PAT_UseAlg(o.algs[i]) == MPI_SUCCESS)
      calibrate_alg(&o, o.algs[i], f, rank, P, sendbuf, recvbuf, samples);
    else if (rank == 0)
      fprintf(stderr, "pat-calibrate: skipping unknown algorithm %s\n", o.algs[i]);
  }
  if (rank == 0 && f != stdout) fclose(f);
  free(samples);
  free(sendbuf);
  free(recvbuf);
  PAT_Finalize();
  MPI_Finalize();
  return 0;
}
