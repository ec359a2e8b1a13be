/*
 * pat-calibrate: time every algorithm of the portfolio (native included) on
 * balanced arrivals at log-spaced block sizes: the measured times of the
 * model file (pat-fit copies them into it) and the data of the per-algorithm
 * fit.
 *
 *   mpirun -np P pat-calibrate [--algs native,ring,...] [--min-bytes 1] [--max-bytes 1m] [--points 11]
 *                              [--min-reps 5] [--max-reps 200] [--ci 0.025] [--max-seconds 10]
 *                              [--gap 2ms] [--b2b-max 16k] [--quick] [--out times.csv]
 *
 * Sizes: --points sizes from --min-bytes to --max-bytes per rank, evenly
 * spaced in log; the default, 1 B to 1 MiB in 11 sizes, is a factor of 4
 * between neighbours: it spans the balanced benchmark, lands on the
 * powers of two where MPI libraries switch protocols, and log-log
 * interpolation between factor-4 neighbours stays within 6% of any Hockney
 * curve (model/measured.h) at half the cost of factor 2 (1.5%).
 *
 * Order: size by size, and at one size the algorithms take turns
 * repetition by repetition (as pat-minibench interleaves its iterations), so
 * every algorithm of a size sees the same seconds of machine load: what the
 * selection compares is measured under the same conditions.
 *
 * One repetition: barrier, a pause of --gap (default 2 ms, sleeping; an
 * instrumented compute phase, below), timed
 * all-gather on every rank; its value is the mean elapsed time over ranks
 * (ē).  The pause makes the call what a call in an iterative code is, the
 * end of a compute phase, and not the tail of a barrier: on the emulated
 * cluster (8 ranks on 2 cores) DIRECT at 1 MiB took 177-187 ms straight
 * after the barrier and 138-141 ms after a pause of 1-20 ms (RING 137-141
 * either way), and pat-minibench, whose calls follow a compute phase,
 * measures 142 ms: without the pause the calibration ranked RING before
 * DIRECT where every measured loop ranks them the other way.
 *
 * The pause is instrumented as a compute phase (PAT_ProcessingStart,
 * PAT_Edge(50) half-way, PAT_ProcessingEnd), as pat-minibench's are, so
 * that an arrival-aware algorithm runs planned from a prediction of this
 * call, as auto runs it.  Uninstrumented, every algorithm's calls share one
 * call site whose history (BSLB's 0.5 s calls beside RING's 0.14 s)
 * predicted the arrivals: on the emulated cluster (P = 8, 1 MiB blocks)
 * BDR measured 161-207 ms and ARD 212-237, against 137 and 177-181
 * instrumented, and 140.5 and 178.7 in pat-minibench's balanced cell.  A
 * classic algorithm or NATIVE has nothing to plan: RING, NEX, BSLB and
 * RELAY measured 0.98-1.02x at 64 KiB-1 MiB either way; below 16 KiB
 * calibrations differ from run to run by up to 2x with or without it
 * (bench/results/2026-11-24-link/README.md).
 *
 * Back to back (--b2b-max, default 16 KiB): at blocks up to that size every
 * algorithm is timed a second way, its repetition a burst of B2B_CALLS
 * calls after the barrier and the pause, whose value is the mean of calls
 * 2..B2B_CALLS (ē over ranks).  Where a call's own cost is small, what came
 * before it matters: on the emulated cluster (P = 8) DIRECT at 64 B took
 * 405 us after a pause against NATIVE's 508, and 185 us against 90 back to
 * back in OSU's loop.  The model file keeps both ("time" and "b2b" lines),
 * and auto's static choice must win both ways (src/decide/engine.c).
 * An algorithm's point stops when the 95% confidence half-width of the
 * mean is within --ci of the mean (at least
 * --min-reps, at most --max-reps repetitions, or --max-seconds of its own
 * repetitions once it has 2).  A failed call ends that algorithm.
 * --quick (ci 0.05, 3 to 50 repetitions, 1 s per point) bounds a calibration
 * to about points x algorithms seconds even on a slow network; options after
 * or before it override its values.
 *
 * The link (P >= 2, before the algorithms): a ping-pong of rank 0 and rank
 * P/2 alone on the network, every other rank waiting in a barrier, at
 * PINGPONG_SMALL bytes and at the largest calibrated size capped at
 * PINGPONG_LARGE_MAX; a size's value is the minimum one-way time (half a
 * round trip) over PINGPONG_REPS round trips after PINGPONG_WARMUP untimed
 * ones: the rate a transfer gets when the ports around it are idle, which
 * pat-fit turns into the model file's "link" line.  Rank P/2 because
 * launchers place ranks in blocks by default (mpirun by slot, Slurm's block
 * distribution): on n >= 2 nodes holding P/n ranks each, rank P/2 is on
 * node n/2, never rank 0's, where rank 1 shares rank 0's node as soon as a
 * node holds two ranks; round-robin placement puts it on rank 0's node only
 * when n divides P/2.  On one node it is a shared-memory ping-pong (stderr
 * says when both ranks report the same host).  The small size gives alpha
 * (latency-bound); the large one beta, over the sizes the algorithms were
 * timed at; 1 MiB is bandwidth-bound on any network (alpha a few percent of
 * it at 100 Gbit/s) and keeps the round trips short on a slow one.  With a
 * largest size of PINGPONG_SMALL or less there is nothing to fit: no link.
 *
 * The reduction (after the link): rank 0 alone times MPI_Reduce_local of
 * doubles with MPI_SUM at REDUCE_SIZES sizes from REDUCE_MIN_BYTES up by 4,
 * the fastest of REDUCE_REPS calls after REDUCE_WARMUP untimed ones each:
 * what combining a received piece costs (pat-fit turns the times into the
 * model file's "gamma" line, seconds per byte).  The sizes reach past the
 * caches, where the large vectors an all-reduce combines live.
 *
 * Output lines "alg,block_bytes,seconds,mode" (mode gap or b2b; what pat-fit
 * reads), "link,bytes,seconds,pingpong" for the link's one-way times, and
 * "reduce,bytes,seconds,local" for the reduction's, preceded by comment
 * lines saying how they were made; progress on stderr.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/placement.h"
#include "pat.h"
#include "tools/cli.h"
#include "tools/platform.h"

#define MAX_ALGS 32
#define MAX_SIZES 64
#define B2B_CALLS 8 /* calls of a back-to-back repetition; the first is not counted */
#define PINGPONG_SMALL 8             /* bytes of the link's latency-bound size */
#define PINGPONG_LARGE_MAX (1 << 20) /* the link's large size: the largest calibrated one, at most this */
#define PINGPONG_WARMUP 3            /* untimed round trips per size: connections and protocol paths set up */
#define PINGPONG_REPS 10             /* timed round trips per size, the fastest kept */
#define PINGPONG_TAG 7
#define REDUCE_MIN_BYTES (16 << 10)
#define REDUCE_SIZES 5 /* 16 KiB .. 4 MiB */
#define REDUCE_WARMUP 2
#define REDUCE_REPS 10

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
  double ci, max_seconds, gap;
  uint64_t b2b_max; /* back-to-back times up to this block size (0: none) */
} calib_opts;

static const char usage_text[] =
    "usage: pat-calibrate [--algs a,b] [--min-bytes B] [--max-bytes B] [--points N] [--min-reps N] [--max-reps N]\n"
    "                     [--ci X] [--max-seconds S] [--gap T] [--b2b-max B] [--quick] [--out FILE]\n"
    "  --algs         algorithms to time (default: every one, native included)\n"
    "  --min-bytes, --max-bytes, --points  block sizes per rank, log-spaced (default 1, 1m, 11: factor 4)\n"
    "  --ci           stop a point when the 95% CI half-width is within this share of the mean (0.025)\n"
    "  --min-reps, --max-reps  repetitions per point (5, 200)\n"
    "  --max-seconds  time per point, once it has 2 repetitions (10s)\n"
    "  --gap          pause between the barrier and the timed call, as a compute phase (2ms; 0: none)\n"
    "  --b2b-max      also time calls back to back at blocks up to B (16k; 0: never)\n"
    "  --quick        --ci 0.05 --min-reps 3 --max-reps 50 --max-seconds 1 (explicit options win)\n"
    "  --out          the CSV (default: stdout)\n";

/* Names are checked when they run (PAT_UseAlg): an unknown one is skipped. */
static int add_alg(const char *opt, const char *name, int i, void *ctx, cli_error *err) {
  calib_opts *o = ctx;
  (void)opt, (void)err;
  snprintf(o->algs[i], sizeof o->algs[i], "%s", name);
  o->nalgs = i + 1;
  return 0;
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  calib_opts *o = opts;
  const char *v;
  int n;
  if (cli_args_is(a, "--quick")) return cli_args_flag(a, err); /* applied before the loop */
  if (cli_args_is(a, "--algs")) return cli_args_text(a, &v, err) || cli_list(a->opt, v, MAX_ALGS, add_alg, o, &n, err);
  if (cli_args_is(a, "--min-bytes")) return cli_args_bytes(a, 1, 2147483647, &o->min_bytes, err);
  if (cli_args_is(a, "--max-bytes")) return cli_args_bytes(a, 1, 2147483647, &o->max_bytes, err);
  if (cli_args_is(a, "--points")) return cli_args_int(a, 2, MAX_SIZES, &o->points, err);
  if (cli_args_is(a, "--min-reps")) return cli_args_int(a, 2, 1000000000, &o->min_reps, err);
  if (cli_args_is(a, "--max-reps")) return cli_args_int(a, 2, 1000000000, &o->max_reps, err);
  if (cli_args_is(a, "--ci")) return cli_args_real(a, 0, 1, &o->ci, err);
  if (cli_args_is(a, "--max-seconds")) return cli_args_time(a, CLI_S, &o->max_seconds, NULL, err);
  if (cli_args_is(a, "--gap")) return cli_args_time(a, CLI_S, &o->gap, NULL, err);
  if (cli_args_is(a, "--b2b-max")) return cli_args_bytes(a, 0, 2147483647, &o->b2b_max, err);
  if (cli_args_is(a, "--out")) return cli_args_text(a, &o->out, err);
  return cli_args_unknown(a, err);
}

/* The defaults: every algorithm of the portfolio, 1 B .. 1 MiB by factor 4;
 * --quick anywhere on the command line loosens the stopping rule. */
static void set_defaults(int argc, char **argv, calib_opts *o) {
  *o = (calib_opts){.min_bytes = 1, .max_bytes = 1 << 20, .points = 11, .min_reps = 5, .max_reps = 200,
                    .ci = 0.025, .max_seconds = 10, .gap = 2e-3, .b2b_max = 16384};
  for (int i = 0; i < PAT_AlgCount() && i < MAX_ALGS; i++) add_alg(NULL, PAT_AlgName(i), i, o, NULL);
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--quick") == 0) {
      o->ci = 0.05;
      o->min_reps = 3;
      o->max_reps = 50;
      o->max_seconds = 1;
    }
}

/* The options: 0, 1 for --help, or -1 with a message in *err. */
static int parse_options(int argc, char **argv, calib_opts *o, cli_error *err) {
  set_defaults(argc, argv, o);
  int rc = cli_args_parse(argc, argv, parse_option, o, err);
  if (rc) return rc;
  if (!(o->gap >= 0 && o->gap <= 10)) snprintf(err->text, sizeof err->text, "--gap must be within 0..10 s");
  else if (o->max_bytes < o->min_bytes) snprintf(err->text, sizeof err->text, "--max-bytes is below --min-bytes");
  else if (o->max_reps < o->min_reps) snprintf(err->text, sizeof err->text, "--max-reps is below --min-reps");
  else return 0;
  return -1;
}

/* The block sizes, log-spaced from min to max bytes, rounded, without
 * repeats (few whole sizes between close bounds).  Returns how many. */
static int block_sizes(const calib_opts *o, long *sizes) {
  int n = 0;
  for (int k = 0; k < o->points; k++) {
    double f = (double)k / (o->points - 1); /* points >= 2 */
    long b = (long)llround((double)o->min_bytes * pow((double)o->max_bytes / (double)o->min_bytes, f));
    if (n == 0 || b > sizes[n - 1]) sizes[n++] = b;
  }
  return n;
}

/* The nodes the ranks are on, as libpat's node map counts them: the groups
 * that share memory, each cut in groups of PAT_NODE_SIZE ranks where that is
 * set.  pat-fit writes it into the model file, and a job on another number
 * of nodes leaves that file out (its times were of another shape).
 * Collective over MPI_COMM_WORLD. */
static int calibration_nodes = 0;
static uint64_t calibration_placement = 0;
/* The nodes as libpat's node map makes them (shared-memory groups cut into PAT_NODE_SIZE consecutive ranks), and
 * which ranks shared one (the "# placement" comment: model/placement.h).  Returns the nodes, 0 if unknown. */
static int count_nodes(void) {
  MPI_Comm shared, node;
  int rank, size, leader, local_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared) != MPI_SUCCESS) return 0;
  MPI_Comm_rank(shared, &local_rank);
  const char *ns = getenv("PAT_NODE_SIZE");
  int cut = ns ? atoi(ns) : 0;
  if (MPI_Comm_split(shared, cut > 0 ? local_rank / cut : 0, rank, &node) != MPI_SUCCESS) node = MPI_COMM_NULL;
  MPI_Comm_free(&shared);
  if (node == MPI_COMM_NULL) return 0;
  leader = rank;
  MPI_Bcast(&leader, 1, MPI_INT, 0, node); /* its rank 0 is its lowest world rank */
  MPI_Comm_free(&node);
  int *leaders = malloc((size_t)size * sizeof *leaders), nodes = 0;
  if (!leaders) MPI_Abort(MPI_COMM_WORLD, 1); /* the others are in the all-gather below: no rank may skip it */
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) nodes += leaders[r] == r;
  calibration_placement = pat_placement_hash(size, leaders);
  free(leaders);
  return nodes;
}

static void print_header(FILE *f, int P, const calib_opts *o, const long *sizes, int nsizes) {
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&t));
  fprintf(f, "# pat-calibrate, P=%d, %s, balanced arrivals, value = mean elapsed time over ranks\n", P, date);
  /* short: pat-fit keeps the comments in the model's 256-character "made" text */
  fprintf(f, "# %d sizes %ld..%ld B, interleaved, ci=%.3f reps %d..%d max_seconds=%.1f gap=%gms b2b<=%ldB\n",
          nsizes, sizes[0], sizes[nsizes - 1], o->ci, o->min_reps, o->max_reps, o->max_seconds, o->gap * 1e3,
          (long)o->b2b_max);
  char platform[160];
  pat_platform_signature(platform, sizeof platform);
  fprintf(f, "# platform %s\n", platform); /* pat-fit carries it into the model file (tools/platform.h) */
  if (calibration_nodes > 0) fprintf(f, "# nodes %d\n", calibration_nodes); /* and this, as its "nodes" line */
  if (calibration_placement) fprintf(f, "# placement %016llx\n", (unsigned long long)calibration_placement);
  fprintf(f, "alg,block_bytes,seconds,mode\n");
}

/* The pause before a timed call (every rank alike). */
static void pause_for(double seconds) {
  if (seconds <= 0) return;
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* The pause before a timed call, as an instrumented code's compute phase
 * (header comment: why). */
static void compute_phase(double seconds) {
  PAT_ProcessingStart();
  pause_for(seconds / 2);
  PAT_Edge(50.0);
  pause_for(seconds / 2);
  PAT_ProcessingEnd();
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

/* One algorithm at one size: its repetitions so far and whether it is done. */
typedef struct point {
  double *samples; /* ē of each repetition (max_reps) */
  int n;
  double spent;    /* seconds of its own repetitions (rank 0's clock) */
  double mean;
  int done, failed;
} point;

/* A call of the current algorithm; every rank learns whether some rank's
 * failed.  *e: this rank's elapsed time. */
static int timed_call(long bytes, char *sendbuf, char *recvbuf, double *e) {
  double t0 = MPI_Wtime();
  int rc = PAT_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
  *e = MPI_Wtime() - t0;
  int bad = rc != MPI_SUCCESS, anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return anybad;
}

/* A burst of B2B_CALLS calls back to back; every rank learns whether some
 * rank's failed.  *e: this rank's mean elapsed time of calls 2.. */
static int timed_burst(long bytes, char *sendbuf, char *recvbuf, double *e) {
  int bad = 0;
  double t0 = 0;
  for (int k = 0; k < B2B_CALLS; k++) {
    if (k == 1) t0 = MPI_Wtime();
    bad |= PAT_Allgather(sendbuf, (int)bytes, MPI_BYTE, recvbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS;
  }
  *e = (MPI_Wtime() - t0) / (B2B_CALLS - 1);
  int anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return anybad;
}

/* One repetition of the current algorithm for pt; decides (rank 0's clock
 * and view for all) whether pt is done. */
static void repetition(const calib_opts *o, int b2b, long bytes, char *sendbuf, char *recvbuf, int P, point *pt) {
  double start = now(), e, sum = 0, half;
  MPI_Barrier(MPI_COMM_WORLD);
  compute_phase(o->gap);
  if (b2b ? timed_burst(bytes, sendbuf, recvbuf, &e) : timed_call(bytes, sendbuf, recvbuf, &e)) {
    pt->failed = pt->done = 1;
    return;
  }
  MPI_Allreduce(&e, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  pt->samples[pt->n++] = sum / P;
  mean_ci(pt->samples, pt->n, &pt->mean, &half);
  pt->spent += now() - start;
  int enough = pt->n >= o->min_reps && half <= o->ci * pt->mean;
  int out_of_time = pt->spent > o->max_seconds && pt->n >= 2;
  pt->done = enough || pt->n >= o->max_reps || out_of_time;
  MPI_Bcast(&pt->done, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* Every algorithm still running (alive[i]) at one size, taking turns
 * repetition by repetition after one untimed call each (connections and
 * caches warm); b2b: repetitions are bursts.  An algorithm whose call fails
 * is no longer alive. */
static void measure_size(const calib_opts *o, int b2b, long bytes, int *alive, point *pts, char *sendbuf,
                         char *recvbuf, int P) {
  double e;
  int left = 0;
  for (int i = 0; i < o->nalgs; i++) {
    pts[i].n = pts[i].done = pts[i].failed = 0;
    pts[i].spent = 0;
    if (!alive[i]) continue;
    PAT_UseAlg(o->algs[i]);
    if (timed_call(bytes, sendbuf, recvbuf, &e)) pts[i].failed = 1;
    else left++;
  }
  while (left > 0)
    for (int i = 0; i < o->nalgs; i++) {
      if (!alive[i] || pts[i].failed || pts[i].done) continue;
      PAT_UseAlg(o->algs[i]);
      repetition(o, b2b, bytes, sendbuf, recvbuf, P, &pts[i]);
      left -= pts[i].done;
    }
  for (int i = 0; i < o->nalgs; i++)
    if (pts[i].failed) alive[i] = 0;
}

/* Rank 0: the rows of one size (and progress on stderr). */
static void report_size(const calib_opts *o, int b2b, long bytes, const int *was_alive, const point *pts, FILE *f) {
  for (int i = 0; i < o->nalgs; i++) {
    if (!was_alive[i]) continue;
    if (pts[i].failed) {
      fprintf(stderr, "pat-calibrate: %s failed at %ld bytes; skipping it from here on\n", o->algs[i], bytes);
      continue;
    }
    fprintf(f, "%s,%ld,%.9g,%s\n", o->algs[i], bytes, pts[i].mean, b2b ? "b2b" : "gap");
    fprintf(stderr, "  %-6s %9ld B  %10.3f us  (%d reps)%s\n", o->algs[i], bytes, pts[i].mean * 1e6, pts[i].n,
            b2b ? " back to back" : "");
  }
  fflush(f);
}

/* Rank 0 and its peer bounce bytes back and forth; rank 0 returns the
 * minimum one-way time (half a round trip) of the timed round trips, the
 * peer 0.  The minimum: what the pair gets with nothing in its way. */
static double pingpong(int rank, int peer, long bytes, char *sendbuf, char *recvbuf) {
  double best = INFINITY;
  for (int k = 0; k < PINGPONG_WARMUP + PINGPONG_REPS; k++) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(sendbuf, (int)bytes, MPI_BYTE, peer, PINGPONG_TAG, MPI_COMM_WORLD);
      MPI_Recv(recvbuf, (int)bytes, MPI_BYTE, peer, PINGPONG_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recvbuf, (int)bytes, MPI_BYTE, 0, PINGPONG_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sendbuf, (int)bytes, MPI_BYTE, 0, PINGPONG_TAG, MPI_COMM_WORLD);
    }
    double one_way = (MPI_Wtime() - t0) / 2;
    if (k >= PINGPONG_WARMUP && one_way < best) best = one_way;
  }
  return rank == 0 ? best : 0;
}

/* The processor names of the pair, for rank 0 (the peer sends its own): a
 * pair on one host may not cross the network, so rank 0 warns on stderr. */
static void pair_hosts(int rank, int peer, char *host0, char *host1) {
  int len;
  MPI_Get_processor_name(rank == 0 ? host0 : host1, &len);
  if (rank == peer) MPI_Send(host1, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, PINGPONG_TAG, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(host1, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, PINGPONG_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    host1[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    if (strcmp(host0, host1) == 0)
      fprintf(stderr, "pat-calibrate: link: ranks 0 and %d both run on %s: the ping-pong may not cross the network\n",
              peer, host0);
  }
}

/* The link: a ping-pong of ranks 0 and P/2 at two sizes (header comment),
 * every other rank waiting in the barrier that ends it, so that the pair is
 * alone on the network.  Rank 0 writes its "link" rows.  Nothing with one
 * rank, or when the largest size is no larger than the small one. */
static void measure_link(const calib_opts *o, FILE *f, int rank, int P, char *sendbuf, char *recvbuf) {
  long sizes[2] = {PINGPONG_SMALL, o->max_bytes < PINGPONG_LARGE_MAX ? (long)o->max_bytes : PINGPONG_LARGE_MAX};
  if (P < 2 || sizes[1] <= sizes[0]) return;
  int peer = P / 2;
  char host0[MPI_MAX_PROCESSOR_NAME] = "", host1[MPI_MAX_PROCESSOR_NAME] = "";
  double t[2] = {0, 0};
  MPI_Barrier(MPI_COMM_WORLD); /* the pair starts once every rank has left what came before */
  if (rank == 0 || rank == peer) {
    pair_hosts(rank, peer, host0, host1);
    for (int i = 0; i < 2; i++) t[i] = pingpong(rank, peer, sizes[i], sendbuf, recvbuf);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* the other ranks wait here meanwhile */
  if (rank != 0) return;
  fprintf(f, "# link: ping-pong of ranks 0 (%s) and %d (%s) alone, min one-way time of %d round trips\n", host0,
          peer, host1, PINGPONG_REPS);
  for (int i = 0; i < 2; i++) {
    fprintf(f, "link,%ld,%.9g,pingpong\n", sizes[i], t[i]);
    fprintf(stderr, "  %-6s %9ld B  %10.3f us  one way, ranks 0 and %d alone\n", "link", sizes[i], t[i] * 1e6, peer);
  }
  fflush(f);
}

/* The reduction's cost per byte (header comment): rank 0 times
 * MPI_Reduce_local while the others wait in the barrier that ends it, and
 * writes its "reduce" rows. */
static void measure_reduce(FILE *f, int rank) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    size_t most = (size_t)REDUCE_MIN_BYTES << (2 * (REDUCE_SIZES - 1));
    double *in = malloc(most), *inout = malloc(most);
    if (in && inout) {
      for (size_t i = 0; i < most / sizeof *in; i++) in[i] = inout[i] = 1.0;
      fprintf(f, "# reduce: MPI_Reduce_local, MPI_SUM of doubles on rank 0, min of %d calls\n", REDUCE_REPS);
      for (int k = 0; k < REDUCE_SIZES; k++) {
        size_t bytes = (size_t)REDUCE_MIN_BYTES << (2 * k);
        double best = INFINITY;
        for (int j = 0; j < REDUCE_WARMUP + REDUCE_REPS; j++) {
          double t0 = MPI_Wtime();
          MPI_Reduce_local(in, inout, (int)(bytes / sizeof *in), MPI_DOUBLE, MPI_SUM);
          double t = MPI_Wtime() - t0;
          if (j >= REDUCE_WARMUP && t < best) best = t;
        }
        fprintf(f, "reduce,%zu,%.9g,local\n", bytes, best);
        fprintf(stderr, "  %-6s %9zu B  %10.3f us  MPI_Reduce_local, MPI_SUM of doubles\n", "reduce", bytes,
                best * 1e6);
      }
      fflush(f);
    }
    free(in);
    free(inout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The known algorithms of the list (alive[i] = 1); unknown ones are skipped
 * with a message. */
static void known_algs(const calib_opts *o, int rank, int *alive) {
  for (int i = 0; i < o->nalgs; i++) {
    alive[i] = PAT_UseAlg(o->algs[i]) == MPI_SUCCESS;
    if (!alive[i] && rank == 0) fprintf(stderr, "pat-calibrate: skipping unknown algorithm %s\n", o->algs[i]);
  }
}

/* The whole calibration: size by size, algorithms interleaved. */
static void calibrate(const calib_opts *o, FILE *f, int rank, int P) {
  long sizes[MAX_SIZES];
  int nsizes = block_sizes(o, sizes), alive[MAX_ALGS], was_alive[MAX_ALGS];
  point pts[MAX_ALGS];
  for (int i = 0; i < o->nalgs; i++) pts[i].samples = malloc((size_t)o->max_reps * sizeof(double));
  char *sendbuf = malloc((size_t)o->max_bytes), *recvbuf = malloc((size_t)o->max_bytes * P);
  memset(sendbuf, rank, (size_t)o->max_bytes);
  known_algs(o, rank, alive);
  if (rank == 0) {
    print_header(f, P, o, sizes, nsizes);
    fprintf(stderr, "pat-calibrate: P=%d, %d algorithms x %d sizes (%ld..%ld B), at most %.1f s per point\n", P,
            o->nalgs, nsizes, sizes[0], sizes[nsizes - 1], o->max_seconds);
  }
  double t0 = now();
  measure_link(o, f, rank, P, sendbuf, recvbuf);
  measure_reduce(f, rank);
  for (int k = 0; k < nsizes; k++) {
    for (int b2b = 0; b2b <= ((uint64_t)sizes[k] <= o->b2b_max); b2b++) {
      memcpy(was_alive, alive, sizeof alive);
      measure_size(o, b2b, sizes[k], alive, pts, sendbuf, recvbuf, P);
      if (rank == 0) report_size(o, b2b, sizes[k], was_alive, pts, f);
    }
  }
  if (rank == 0) fprintf(f, "# calibration took %.1f s\n", now() - t0);
  for (int i = 0; i < o->nalgs; i++) free(pts[i].samples);
  free(sendbuf);
  free(recvbuf);
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
  calibration_nodes = count_nodes();
  calibrate(&o, f, rank, P);
  if (rank == 0 && f != stdout) fclose(f);
  PAT_Finalize();
  MPI_Finalize();
  return 0;
}
