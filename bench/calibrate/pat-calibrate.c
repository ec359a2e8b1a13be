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

int main(int argc, char **argv) {
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *algs = "ring,nex,rdb,bruck,lnbc,bdr,bslb,ard", *out = NULL;
  long min_bytes = 64, max_bytes = 4L << 20;
  int points = 10, min_reps = 5, max_reps = 200;
  double ci = 0.025, max_seconds = 10;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--algs") && v) algs = argv[++i];
    else if (!strcmp(a, "--min-bytes") && v) min_bytes = atol(argv[++i]);
    else if (!strcmp(a, "--max-bytes") && v) max_bytes = atol(argv[++i]);
    else if (!strcmp(a, "--points") && v) points = atoi(argv[++i]);
    else if (!strcmp(a, "--min-reps") && v) min_reps = atoi(argv[++i]);
    else if (!strcmp(a, "--max-reps") && v) max_reps = atoi(argv[++i]);
    else if (!strcmp(a, "--ci") && v) ci = atof(argv[++i]);
    else if (!strcmp(a, "--max-seconds") && v) max_seconds = atof(argv[++i]);
    else if (!strcmp(a, "--out") && v) out = argv[++i];
    else {
      if (rank == 0)
        fprintf(stderr, "usage: pat-calibrate [--algs a,b] [--min-bytes B] [--max-bytes B] [--points N] "
                        "[--min-reps N] [--max-reps N] [--ci X] [--max-seconds S] [--out FILE]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (points < 2 || min_bytes < 1 || max_bytes < min_bytes || min_reps < 2 || max_reps < min_reps) {
    if (rank == 0) fprintf(stderr, "pat-calibrate: bad arguments\n");
    MPI_Finalize();
    return 2;
  }
  if (PAT_Init() != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "pat-calibrate: PAT_Init failed\n");
    MPI_Finalize();
    return 1;
  }
  FILE *f = stdout;
  if (rank == 0 && out && !(f = fopen(out, "w"))) {
    perror(out);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&t));
    fprintf(f, "# pat-calibrate, P=%d, %s, balanced arrivals, value = mean elapsed time over ranks\n", P, date);
    fprintf(f, "# ci=%.3f min_reps=%d max_reps=%d max_seconds=%.1f\nalg,block_bytes,seconds\n", ci, min_reps, max_reps,
            max_seconds);
  }
  char *list = strdup(algs);
  double *samples = malloc((size_t)max_reps * sizeof *samples);
  char *sendbuf = malloc((size_t)max_bytes), *recvbuf = malloc((size_t)max_bytes * P);
  memset(sendbuf, rank, (size_t)max_bytes);
  for (char *alg = strtok(list, ","); alg; alg = strtok(NULL, ",")) {
    if (PAT_UseAlg(alg) != MPI_SUCCESS) {
      if (rank == 0) fprintf(stderr, "pat-calibrate: skipping unknown algorithm %s\n", alg);
      continue;
    }
    for (int k = 0; k < points; k++) {
      long bytes = (long)llround(min_bytes * pow((double)max_bytes / min_bytes, (double)k / (points - 1)));
      int n = 0, stop = 0, failed = 0;
      double t_start = now(), mean = 0;
      /* one untimed call per point warms connections and caches */
      if (PAT_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
        failed = 1;
      while (!stop && !failed) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = PAT_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        double e = MPI_Wtime() - t0, sum = 0;
        int bad = rc != MPI_SUCCESS, anybad = 0;
        MPI_Allreduce(&e, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (anybad) {
          failed = 1;
          break;
        }
        samples[n++] = sum / P;
        mean = 0;
        for (int i = 0; i < n; i++) mean += samples[i];
        mean /= n;
        double var = 0;
        for (int i = 0; i < n; i++) var += (samples[i] - mean) * (samples[i] - mean);
        double half = n > 1 ? t95(n) * sqrt(var / (n - 1) / n) : INFINITY;
        int enough = n >= min_reps && half <= ci * mean;
        int out_of_time = now() - t_start > max_seconds && n >= 2;
        stop = enough || n >= max_reps || out_of_time;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides for all */
      }
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
  if (rank == 0 && f != stdout) fclose(f);
  free(list);
  free(samples);
  free(sendbuf);
  free(recvbuf);
  PAT_Finalize();
  MPI_Finalize();
  return 0;
}
