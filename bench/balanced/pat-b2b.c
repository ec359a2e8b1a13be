/* pat-b2b: the back-to-back balanced all-gather loop (issue 14).
 *
 * A plain MPI program (libpat is not linked: it arrives with LD_PRELOAD of
 * libpat_mpi.so) that times, per block size, back-to-back calls of
 *
 *   MPI_Allgather   libpat's all-gather when libpat_mpi is preloaded
 *   PMPI_Allgather  the MPI library's own all-gather, always
 *
 * side by side in one run.  Per size: a few warm-up calls, a probe that sets
 * K (calls per block) so the size takes about --time-per-size, --warmup-rounds
 * untimed rounds, then --rounds rounds (fewer, at least MIN_ROUNDS, when the
 * machine slows down so much that the size passes --max-time-per-size).  A round is one block of K calls of
 * each, in an order drawn per round from --seed (the same on every rank); a
 * barrier precedes each block, nothing separates the calls inside it (as in
 * OSU's osu_allgather).
 *
 * Metric.  A block's time on a rank, from the end of its barrier to the end
 * of its K-th call, divided by K: that rank's mean time per call.  Reduced
 * over ranks by the maximum (default; --metric mean for the mean, which is
 * what OSU's "Avg Latency" reports): in a back-to-back loop the ranks are
 * coupled and, for large K, all agree within one call's skew; where they do
 * not, the slowest rank is the time the job loses, and an overhead that
 * libpat puts on one rank only is not divided by P.  The CSV keeps max, mean
 * and min over ranks of every block.
 *
 * Statistics (rank 0, per size).  The median over rounds of each; the ratio
 * of the medians (MPI / PMPI); its 95% confidence interval by a paired
 * percentile bootstrap over rounds (a round's two blocks ran in the same
 * minute of machine load, so they are resampled together; --bootstrap
 * resamples, seeded from --seed).  Over sizes: the geometric mean of the
 * ratios, with a CI from the same resamples, and the worst size.
 *
 * Checks.  Every call: the first and last byte of every rank's block carry a
 * stamp of (rank, call number), poisoned in the receive buffer before the
 * call and compared after it (2P bytes: a stale or missing block is seen
 * without touching the rest).  After every block, outside the timed region:
 * the whole receive buffer.  Whether libpat ran the calls: libpat's own
 * counter (PAT_GetStats, looked up at run time) must grow by one per
 * MPI_Allgather; "libpat: yes" in the header only if it did on every rank.
 *
 * Exit status: 0; 1 a wrong result; 2 bad usage; 4 --require-libpat and
 * libpat did not run every MPI_Allgather.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <mpi.h>

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pat.h" /* for PAT_Stats only: nothing of libpat is linked */
#include "tools/cli.h"

#define MAX_SIZES 64
#define MAX_ALGS 16
#define MAX_ROUNDS 100000
#define MIN_ROUNDS 5 /* before a size may stop at --max-time-per-size */

enum { IMPL_PMPI, IMPL_MPI, NIMPL };    /* PMPI_Allgather (MPI's own), MPI_Allgather (libpat?) */
enum { RED_MAX, RED_MEAN, RED_MIN, NRED }; /* reductions over ranks of a block's time */
enum { EXIT_WRONG = 1, EXIT_USAGE = 2, EXIT_NOT_LIBPAT = 4 };

static const char *const impl_name[NIMPL] = {"PMPI_Allgather", "MPI_Allgather"};
static const char *const metric_names[] = {"max", "mean"};

typedef struct options {
  uint64_t sizes[MAX_SIZES]; /* bytes per rank */
  int nsizes;
  uint64_t min_bytes, max_bytes;
  int factor;                /* sizes min, min*factor, ... max unless --sizes */
  int rounds, warmup_rounds;
  int calls;                 /* fixed K; 0: scaled by the probe */
  int calls_min, calls_max;
  double time_per_size;      /* s */
  double max_time_per_size;  /* s; 0: 10 x time_per_size */
  int metric;                /* RED_MAX or RED_MEAN */
  int bootstrap;
  uint64_t seed;
  int check_calls;           /* stamp and check every call */
  int require_libpat;
  int inject_error;          /* testing: the last rank spoils a received byte */
  const char *csv;
} options;

/* libpat's functions, found at run time; NULL when libpat is not loaded. */
typedef struct libpat {
  int (*get_stats)(PAT_Stats *);
  const char *(*alg_name)(int);
  int (*alg_count)(void);
  int active;            /* libpat ran the probe call on every rank */
  long long calls_start; /* its count after the probe */
} libpat;

typedef struct bench {
  MPI_Comm comm;
  int rank, P;
  unsigned char *send, *recv;
  int check_calls;
  int inject_error;
  unsigned long seq;     /* calls made, both kinds: the stamps */
  long long mpi_calls;   /* MPI_Allgather calls made since the probe */
  long long wrong;       /* wrong bytes seen on this rank */
  libpat pat;
} bench;

/* One size's measurements (times on rank 0, reduced over ranks). */
typedef struct size_result {
  uint64_t bytes;
  int K;
  int rounds;                 /* timed rounds done */
  double *t[NIMPL][NRED];     /* per round, s per call */
  int *mpi_first;             /* per round: MPI_Allgather's block ran first */
  long long (*algs)[MAX_ALGS]; /* per round: libpat's algorithms in its block (rank 0) */
  double seconds;             /* wall time of the whole size */
  double med[NIMPL], ratio, lo, hi;
  double *boot;               /* the bootstrap's ratios */
} size_result;

/* ---------------------------------------------------------------- random */
static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- options */
static void usage(FILE *f) {
  fprintf(f,
    "usage: mpirun -np P [-x LD_PRELOAD=libpat_mpi.so] pat-b2b [options]\n"
    "Back-to-back balanced loop: MPI_Allgather (libpat when preloaded) against\n"
    "PMPI_Allgather (the MPI library's own), interleaved, per block size.\n"
    "  --sizes LIST         bytes per rank, e.g. 1,64,4K,1M (overrides the next three)\n"
    "  --min-bytes B        smallest size (default 1)\n"
    "  --max-bytes B        largest size (default 1M)\n"
    "  --factor F           each size F times the previous: 2 or 4 (default 2)\n"
    "  --rounds R           timed rounds per size (default 30)\n"
    "  --warmup-rounds W    untimed rounds per size before them (default 1)\n"
    "  --time-per-size T    time to aim at per size, sets K (default 1s; bare number: s)\n"
    "  --max-time-per-size T  stop a size's rounds after T (at least 5 rounds; default\n"
    "                       10 x --time-per-size): a bound when the machine slows down\n"
    "  --calls K            fixed calls per block (default: scaled by a probe)\n"
    "  --calls-min K        scaled K at least (default 2)\n"
    "  --calls-max K        scaled K at most (default 10000)\n"
    "  --metric max|mean    reduction over ranks of a block's time per call (default max)\n"
    "  --bootstrap B        resamples for the confidence intervals (default 2000)\n"
    "  --seed S             order of each round and the bootstrap (default 1)\n"
    "  --csv FILE           raw per-round numbers (written, not appended)\n"
    "  --no-call-check      skip the stamp check of every call (blocks are still checked)\n"
    "  --require-libpat     exit 4 unless libpat ran every MPI_Allgather\n"
    "  --inject-error       testing: the last rank spoils a received byte after every\n"
    "                       MPI_Allgather (the checks must report it: exit 1)\n"
    "Exit status: 0; 1 a wrong result; 2 bad usage; 4 see --require-libpat.\n");
}

static void set_defaults(options *o) {
  memset(o, 0, sizeof *o);
  o->min_bytes = 1;
  o->max_bytes = 1 << 20;
  o->factor = 2;
  o->rounds = 30;
  o->warmup_rounds = 1;
  o->calls_min = 2;
  o->calls_max = 10000;
  o->time_per_size = 1.0;
  o->metric = RED_MAX;
  o->bootstrap = 2000;
  o->seed = 1;
  o->check_calls = 1;
}

static int size_item(const char *opt, const char *item, int index, void *ctx, cli_error *err) {
  return cli_bytes(opt, item, 1, 1 << 30, &((options *)ctx)->sizes[index], err);
}

static int flag_option(cli_args *a, options *o, cli_error *err) {
  if (cli_args_is(a, "--no-call-check")) o->check_calls = 0;
  else if (cli_args_is(a, "--inject-error")) o->inject_error = 1;
  else o->require_libpat = 1;
  return cli_args_flag(a, err);
}

/* Powers of two only: 2 or 4. */
static int factor_option(cli_args *a, options *o, cli_error *err) {
  if (cli_args_int(a, 2, 4, &o->factor, err)) return -1;
  if (o->factor != 3) return 0;
  snprintf(err->text, sizeof err->text, "--factor: 3 is not offered (2 or 4)");
  return -1;
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  options *o = opts;
  const char *v;
  if (cli_args_is(a, "--no-call-check|--require-libpat|--inject-error")) return flag_option(a, o, err);
  if (cli_args_is(a, "--sizes"))
    return cli_args_text(a, &v, err) || cli_list(a->opt, v, MAX_SIZES, size_item, o, &o->nsizes, err);
  if (cli_args_is(a, "--min-bytes")) return cli_args_bytes(a, 1, 1 << 30, &o->min_bytes, err);
  if (cli_args_is(a, "--max-bytes")) return cli_args_bytes(a, 1, 1 << 30, &o->max_bytes, err);
  if (cli_args_is(a, "--factor")) return factor_option(a, o, err);
  if (cli_args_is(a, "--rounds")) return cli_args_int(a, 1, MAX_ROUNDS, &o->rounds, err);
  if (cli_args_is(a, "--warmup-rounds")) return cli_args_int(a, 0, MAX_ROUNDS, &o->warmup_rounds, err);
  if (cli_args_is(a, "--time-per-size")) return cli_args_time(a, CLI_S, &o->time_per_size, NULL, err);
  if (cli_args_is(a, "--max-time-per-size")) return cli_args_time(a, CLI_S, &o->max_time_per_size, NULL, err);
  if (cli_args_is(a, "--calls")) return cli_args_int(a, 1, 100000000, &o->calls, err);
  if (cli_args_is(a, "--calls-min")) return cli_args_int(a, 1, 100000000, &o->calls_min, err);
  if (cli_args_is(a, "--calls-max")) return cli_args_int(a, 1, 100000000, &o->calls_max, err);
  if (cli_args_is(a, "--metric"))
    return cli_args_text(a, &v, err) || cli_choice(a->opt, v, "metric", metric_names, 2, &o->metric, err);
  if (cli_args_is(a, "--bootstrap")) return cli_args_int(a, 100, 1000000, &o->bootstrap, err);
  if (cli_args_is(a, "--seed")) return cli_args_count(a, 0, UINT64_MAX, &o->seed, err);
  if (cli_args_is(a, "--csv")) return cli_args_text(a, &o->csv, err);
  return cli_args_unknown(a, err);
}

/* min, min*factor, ... up to max (max itself included). */
static int size_ladder(options *o, cli_error *err) {
  if (o->min_bytes > o->max_bytes) {
    snprintf(err->text, sizeof err->text, "--min-bytes is larger than --max-bytes");
    return -1;
  }
  o->nsizes = 0;
  for (uint64_t s = o->min_bytes; s <= o->max_bytes && o->nsizes < MAX_SIZES; s *= (uint64_t)o->factor)
    o->sizes[o->nsizes++] = s;
  if (o->sizes[o->nsizes - 1] != o->max_bytes && o->nsizes < MAX_SIZES) o->sizes[o->nsizes++] = o->max_bytes;
  return 0;
}

/* 0, 1 for --help, or -1 with a message in *err. */
static int parse_args(int argc, char **argv, options *o, cli_error *err) {
  set_defaults(o);
  int rc = cli_args_parse(argc, argv, parse_option, o, err);
  if (rc) return rc;
  if (o->max_time_per_size <= 0) o->max_time_per_size = 10 * o->time_per_size;
  if (o->calls_min > o->calls_max) {
    snprintf(err->text, sizeof err->text, "--calls-min is larger than --calls-max");
    return -1;
  }
  return o->nsizes > 0 ? 0 : size_ladder(o, err);
}

/* ---------------------------------------------------------------- libpat */
typedef int (*stats_fn)(PAT_Stats *);
typedef const char *(*name_fn)(int);
typedef int (*count_fn)(void);

static void find_libpat(libpat *p) {
  memset(p, 0, sizeof *p);
  /* object pointers to function pointers: through memcpy, as ISO C allows */
  void *s = dlsym(RTLD_DEFAULT, "PAT_GetStats"), *n = dlsym(RTLD_DEFAULT, "PAT_AlgName"),
       *c = dlsym(RTLD_DEFAULT, "PAT_AlgCount");
  if (!s || !n || !c) return;
  memcpy(&p->get_stats, &s, sizeof s);
  memcpy(&p->alg_name, &n, sizeof n);
  memcpy(&p->alg_count, &c, sizeof c);
}

/* libpat's call count, -1 if it is not there or not running. */
static long long libpat_calls(const libpat *p, PAT_Stats *st) {
  PAT_Stats local;
  if (!st) st = &local;
  if (!p->get_stats || p->get_stats(st) != MPI_SUCCESS) return -1;
  return st->calls;
}

/* One MPI_Allgather of one int: did libpat count it, on every rank? */
static void probe_libpat(bench *b) {
  int in = b->rank, *out = malloc(sizeof(int) * (size_t)b->P);
  long long before = libpat_calls(&b->pat, NULL);
  MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, b->comm);
  long long after = libpat_calls(&b->pat, NULL);
  int mine = before >= 0 && after == before + 1, all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, b->comm);
  b->pat.active = all;
  b->pat.calls_start = after;
  free(out);
}

static const char *libpat_status(const libpat *p) {
  if (p->active) return "yes (libpat_mpi intercepts MPI_Allgather)";
  if (p->get_stats) return "no (libpat is loaded but did not run MPI_Allgather: PAT_Init failed?)";
  return "no (libpat_mpi is not loaded: both columns are the MPI library's own all-gather)";
}

/* ---------------------------------------------------------------- data */
/* Byte i of rank r's block in call `seq` of a block of n bytes: the first
 * and last bytes are stamps of (r, seq), the others a fixed pattern. */
static unsigned char expected(int r, unsigned long seq, size_t i, size_t n) {
  if (i == n - 1) return (unsigned char)(0x5a ^ (r * 13 + seq * 7));
  if (i == 0) return (unsigned char)(0xa5 ^ (r * 29 + seq * 11));
  return (unsigned char)(r * 37 + i * 11 + (i >> 9) + 1);
}

static void fill_body(bench *b, size_t n) {
  for (size_t i = 0; i < n; i++) b->send[i] = expected(b->rank, 0, i, n);
}

/* Stamps in the send buffer, poison where they land in the receive buffer. */
static void prepare_call(bench *b, size_t n) {
  b->send[0] = expected(b->rank, b->seq, 0, n);
  b->send[n - 1] = expected(b->rank, b->seq, n - 1, n);
  if (!b->check_calls) return;
  for (int r = 0; r < b->P; r++) {
    unsigned char *blk = b->recv + (size_t)r * n;
    blk[0] = (unsigned char)~expected(r, b->seq, 0, n);
    blk[n - 1] = (unsigned char)~expected(r, b->seq, n - 1, n);
  }
}

static long long check_ends(const bench *b, size_t n) {
  long long wrong = 0;
  for (int r = 0; r < b->P; r++) {
    const unsigned char *blk = b->recv + (size_t)r * n;
    wrong += blk[0] != expected(r, b->seq, 0, n);
    wrong += n > 1 && blk[n - 1] != expected(r, b->seq, n - 1, n);
  }
  return wrong;
}

static long long check_all(const bench *b, size_t n) {
  long long wrong = 0;
  for (int r = 0; r < b->P; r++) {
    const unsigned char *blk = b->recv + (size_t)r * n;
    for (size_t i = 0; i < n; i++) wrong += blk[i] != expected(r, b->seq, i, n);
  }
  return wrong;
}

/* ---------------------------------------------------------------- timing */
static void one_call(bench *b, int impl, size_t n) {
  b->seq++;
  prepare_call(b, n);
  if (impl == IMPL_MPI) {
    MPI_Allgather(b->send, (int)n, MPI_CHAR, b->recv, (int)n, MPI_CHAR, b->comm);
    b->mpi_calls++;
    if (b->inject_error && b->rank == b->P - 1) b->recv[0] ^= 1;
  } else {
    PMPI_Allgather(b->send, (int)n, MPI_CHAR, b->recv, (int)n, MPI_CHAR, b->comm);
  }
  if (b->check_calls) b->wrong += check_ends(b, n);
}

/* A barrier, then K calls back to back; this rank's time per call (s). */
static double run_block(bench *b, int impl, size_t n, int K) {
  MPI_Barrier(b->comm);
  double t0 = MPI_Wtime();
  for (int k = 0; k < K; k++) one_call(b, impl, n);
  double t = MPI_Wtime() - t0;
  b->wrong += check_all(b, n);
  return t / K;
}

static double median_at(const double *v, const int *idx, int n, double *scratch);

/* Time of a block of m calls of each all-gather, on the slowest rank (s). */
static double pair_time(bench *b, size_t n, int m) {
  double t = (run_block(b, IMPL_MPI, n, m) + run_block(b, IMPL_PMPI, n, m)) * m;
  PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, b->comm);
  return t;
}

/* K for a size, the same on every rank (the times are all-reduced): m
 * doubles until a pair of blocks (m calls of each) takes 2 ms; the median of
 * PROBES such pairs gives the time of a pair of calls, and K makes the
 * size's rounds (warm-up included) last about --time-per-size.  Both
 * all-gathers count, so a slow one cannot stretch the size beyond it. */
#define PROBES 5
static int calls_for_size(bench *b, const options *o, size_t n) {
  if (o->calls > 0) return o->calls;
  int m = 1;
  while (pair_time(b, n, m) < 2e-3 && m < o->calls_max) m = m * 2 < o->calls_max ? m * 2 : o->calls_max;
  double per[PROBES], scratch[PROBES];
  for (int i = 0; i < PROBES; i++) per[i] = pair_time(b, n, m) / m;
  double k = ceil(o->time_per_size / (o->rounds + o->warmup_rounds) / median_at(per, NULL, PROBES, scratch));
  if (k < o->calls_min) k = o->calls_min;
  if (k > o->calls_max) k = o->calls_max;
  return (int)k;
}

/* libpat's per-algorithm counts now (zeros when it is not running). */
static void alg_counts(const bench *b, long long out[MAX_ALGS]) {
  PAT_Stats st;
  memset(out, 0, sizeof(long long) * MAX_ALGS);
  if (!b->pat.active || libpat_calls(&b->pat, &st) < 0) return;
  memcpy(out, st.calls_per_alg, sizeof(long long) * MAX_ALGS);
}

/* One timed block of MPI_Allgather; libpat's algorithms in it into algs. */
static double mpi_block(bench *b, size_t n, int K, long long algs[MAX_ALGS]) {
  long long before[MAX_ALGS];
  alg_counts(b, before);
  double t = run_block(b, IMPL_MPI, n, K);
  alg_counts(b, algs);
  for (int a = 0; a < MAX_ALGS; a++) algs[a] -= before[a];
  return t;
}

static int size_result_alloc(size_result *s, int rounds, int B) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < NIMPL; i++)
    for (int r = 0; r < NRED; r++) s->t[i][r] = calloc((size_t)rounds, sizeof(double));
  s->mpi_first = calloc((size_t)rounds, sizeof(int));
  s->algs = calloc((size_t)rounds, sizeof *s->algs);
  s->boot = calloc((size_t)B, sizeof(double));
  return s->t[NIMPL - 1][NRED - 1] && s->mpi_first && s->algs && s->boot ? 0 : -1;
}

static void size_result_free(size_result *s) {
  for (int i = 0; i < NIMPL; i++)
    for (int r = 0; r < NRED; r++) free(s->t[i][r]);
  free(s->mpi_first);
  free(s->algs);
  free(s->boot);
}

/* Max, sum and min over ranks of local[round][impl], into s on rank 0. */
static void reduce_times(const bench *b, double *local, int rounds, size_result *s) {
  int n = NIMPL * rounds;
  double *out[NRED];
  for (int r = 0; r < NRED; r++) out[r] = malloc(sizeof(double) * (size_t)n);
  PMPI_Reduce(local, out[RED_MAX], n, MPI_DOUBLE, MPI_MAX, 0, b->comm);
  PMPI_Reduce(local, out[RED_MEAN], n, MPI_DOUBLE, MPI_SUM, 0, b->comm);
  PMPI_Reduce(local, out[RED_MIN], n, MPI_DOUBLE, MPI_MIN, 0, b->comm);
  for (int i = 0; i < NIMPL; i++)
    for (int k = 0; k < rounds; k++) {
      s->t[i][RED_MAX][k] = out[RED_MAX][k * NIMPL + i];
      s->t[i][RED_MEAN][k] = out[RED_MEAN][k * NIMPL + i] / b->P;
      s->t[i][RED_MIN][k] = out[RED_MIN][k * NIMPL + i];
    }
  for (int r = 0; r < NRED; r++) free(out[r]);
}

/* Whether the size has taken longer than the bound (on the slowest rank). */
static int over_time(const bench *b, double start, double bound) {
  double t = MPI_Wtime() - start;
  PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, b->comm);
  return t > bound;
}

/* One timed round: a block of each, in the drawn order; local[impl]. */
static void timed_round(bench *b, size_t n, int K, int mpi_first, double local[NIMPL], long long algs[MAX_ALGS]) {
  for (int j = 0; j < 2; j++) {
    int impl = (j == 0) == mpi_first ? IMPL_MPI : IMPL_PMPI;
    local[impl] = impl == IMPL_MPI ? mpi_block(b, n, K, algs) : run_block(b, impl, n, K);
  }
}

/* Warm-up, probe, warm-up rounds, timed rounds of one size. */
static void measure_size(bench *b, const options *o, int index, size_result *s) {
  size_t n = (size_t)o->sizes[index];
  double start = MPI_Wtime(), *local = malloc(sizeof(double) * NIMPL * (size_t)o->rounds);
  long long scratch[MAX_ALGS];
  uint64_t rng = o->seed * 0x100000001b3ULL + (uint64_t)index;
  fill_body(b, n);
  s->bytes = n;
  run_block(b, IMPL_MPI, n, 2);
  run_block(b, IMPL_PMPI, n, 2);
  s->K = calls_for_size(b, o, n);
  for (int w = 0; w < o->warmup_rounds; w++) {
    mpi_block(b, n, s->K, scratch);
    run_block(b, IMPL_PMPI, n, s->K);
  }
  s->rounds = 0;
  while (s->rounds < o->rounds) {
    int k = s->rounds++;
    s->mpi_first[k] = (int)(splitmix64(&rng) & 1);
    timed_round(b, n, s->K, s->mpi_first[k], local + k * NIMPL, s->algs[k]);
    if (s->rounds >= MIN_ROUNDS && s->rounds < o->rounds && over_time(b, start, o->max_time_per_size)) break;
  }
  reduce_times(b, local, s->rounds, s);
  free(local);
  MPI_Barrier(b->comm);
  s->seconds = MPI_Wtime() - start;
}

/* ---------------------------------------------------------------- statistics */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[idx[0..n)] (all of v when idx is NULL); scratch holds n. */
static double median_at(const double *v, const int *idx, int n, double *scratch) {
  for (int i = 0; i < n; i++) scratch[i] = v[idx ? idx[i] : i];
  qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
  return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* The q-quantile of sorted v[0..n), linear between order statistics. */
static double quantile(const double *v, int n, double q) {
  double pos = q * (n - 1);
  int i = (int)pos;
  return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* Medians, their ratio, and its paired percentile-bootstrap 95% CI. */
static void size_stats(size_result *s, const options *o, int index) {
  int R = s->rounds, *idx = malloc(sizeof(int) * (size_t)R);
  double *scratch = malloc(sizeof(double) * (size_t)(R > o->bootstrap ? R : o->bootstrap));
  const double *x = s->t[IMPL_MPI][o->metric], *y = s->t[IMPL_PMPI][o->metric];
  uint64_t rng = (o->seed ^ 0x6a09e667f3bcc909ULL) + (uint64_t)index * 0x9e3779b9ULL;
  s->med[IMPL_MPI] = median_at(x, NULL, R, scratch);
  s->med[IMPL_PMPI] = median_at(y, NULL, R, scratch);
  s->ratio = s->med[IMPL_MPI] / s->med[IMPL_PMPI];
  for (int k = 0; k < o->bootstrap; k++) {
    for (int i = 0; i < R; i++) idx[i] = (int)(splitmix64(&rng) % (uint64_t)R);
    s->boot[k] = median_at(x, idx, R, scratch) / median_at(y, idx, R, scratch);
  }
  memcpy(scratch, s->boot, sizeof(double) * (size_t)o->bootstrap);
  qsort(scratch, (size_t)o->bootstrap, sizeof *scratch, cmp_double);
  s->lo = quantile(scratch, o->bootstrap, 0.025);
  s->hi = quantile(scratch, o->bootstrap, 0.975);
  free(idx);
  free(scratch);
}

/* ---------------------------------------------------------------- output */
static const char *fmt_size(uint64_t bytes, char *buf, size_t len) {
  if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0) snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
  else snprintf(buf, len, "%llu B", (unsigned long long)bytes);
  return buf;
}

/* "ring=40;nex=2" (sep ";" and "=") or "ring 95% nex 5%" (sep " ", percent). */
static void fmt_algs(const bench *b, const long long *algs, int percent, char *buf, size_t len) {
  long long total = 0;
  size_t used = 0;
  buf[0] = 0;
  for (int a = 0; a < MAX_ALGS; a++) total += algs[a];
  int count = b->pat.alg_count ? b->pat.alg_count() : 0;
  for (int a = 0; a < MAX_ALGS && a < count && used < len; a++) {
    if (!algs[a]) continue;
    const char *name = b->pat.alg_name(a);
    if (percent)
      used += (size_t)snprintf(buf + used, len - used, "%s%s %.0f%%", used ? " " : "", name,
                               100.0 * (double)algs[a] / (double)total);
    else
      used += (size_t)snprintf(buf + used, len - used, "%s%s=%lld", used ? ";" : "", name, algs[a]);
  }
  if (!buf[0] && percent) snprintf(buf, len, "-");
}

static int count_hosts(const bench *b) {
  char name[MPI_MAX_PROCESSOR_NAME] = {0}, *all = NULL;
  int len, hosts = 0;
  MPI_Get_processor_name(name, &len);
  if (b->rank == 0) all = calloc((size_t)b->P, MPI_MAX_PROCESSOR_NAME);
  PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, b->comm);
  for (int i = 0; b->rank == 0 && i < b->P; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = !strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, all + (size_t)j * MPI_MAX_PROCESSOR_NAME);
    hosts += !seen;
  }
  free(all);
  return hosts;
}

static void print_header(const bench *b, const options *o, int hosts) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING], when[64], lo[32], hi[32];
  int len;
  time_t now = time(NULL);
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, ",\n")] = 0;
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
  const char *alg = getenv("PAT_ALG"), *model = getenv("PAT_MODEL");
  printf("pat-b2b: back-to-back balanced loop, MPI_Allgather (libpat when preloaded) against PMPI_Allgather"
         " (the MPI library's own)\n");
  printf("libpat: %s\n", libpat_status(&b->pat));
  printf("settings: PAT_ALG=%s PAT_MODEL=%s\n", alg && *alg ? alg : "(unset: auto)",
         model && *model ? model : "(unset)");
  printf("P=%d on %d host%s, %s, %s\n", b->P, hosts, hosts == 1 ? "" : "s", lib, when);
  printf("sizes: %d, %s%s%s per rank; rounds %d (+%d warm-up; fewer if a size passes %.0f s); K %s;"
         " order of each round drawn from seed %llu\n",
         o->nsizes, fmt_size(o->sizes[0], lo, sizeof lo), o->nsizes > 1 ? " to " : "",
         o->nsizes > 1 ? fmt_size(o->sizes[o->nsizes - 1], hi, sizeof hi) : "",
         o->rounds, o->warmup_rounds, o->max_time_per_size, o->calls ? "fixed" : "scaled to the time per size", (unsigned long long)o->seed);
  printf("metric: block time / K on each rank, %s over ranks; median over rounds; ratio = MPI/PMPI medians;"
         " 95%% CI: paired bootstrap over rounds (%d resamples)\n",
         metric_names[o->metric], o->bootstrap);
  fflush(stdout);
}

static void print_columns(void) {
  printf("%9s %6s %3s %12s %12s %7s %17s %7s  %s\n", "size", "K", "R", "PMPI_us", "MPI_us", "ratio", "95% CI", "s",
         "libpat algorithms");
  fflush(stdout);
}

static void print_row(const bench *b, const size_result *s) {
  char size[32], algs[256], ci[40];
  long long total[MAX_ALGS] = {0};
  for (int k = 0; k < s->rounds; k++)
    for (int a = 0; a < MAX_ALGS; a++) total[a] += s->algs[k][a];
  snprintf(ci, sizeof ci, "[%.3f, %.3f]", s->lo, s->hi);
  fmt_algs(b, total, 1, algs, sizeof algs);
  printf("%9s %6d %3d %12.3f %12.3f %7.3f %17s %7.1f  %s\n", fmt_size(s->bytes, size, sizeof size), s->K, s->rounds,
         s->med[IMPL_PMPI] * 1e6, s->med[IMPL_MPI] * 1e6, s->ratio, ci, s->seconds, algs);
  fflush(stdout);
}

static const char csv_header[] = "P,size_bytes,round,impl,first,calls,max_us,mean_us,min_us,libpat_algs\n";

/* Every timed block of a size: one row per round and all-gather. */
static void csv_rows(FILE *f, const bench *b, const size_result *s) {
  char algs[256];
  for (int k = 0; k < s->rounds; k++)
    for (int i = 0; i < NIMPL; i++) {
      algs[0] = 0;
      if (i == IMPL_MPI) fmt_algs(b, s->algs[k], 0, algs, sizeof algs);
      fprintf(f, "%d,%llu,%d,%s,%d,%d,%.4f,%.4f,%.4f,%s\n", b->P, (unsigned long long)s->bytes, k, impl_name[i],
              (i == IMPL_MPI) == s->mpi_first[k], s->K, s->t[i][RED_MAX][k] * 1e6, s->t[i][RED_MEAN][k] * 1e6,
              s->t[i][RED_MIN][k] * 1e6, algs);
    }
  fflush(f);
}

/* The geometric mean of the ratios over sizes and its CI: resample k of
 * every size (independent draws) gives the k-th geometric mean. */
static void geomean(const size_result *res, const options *o, double *g, double *lo, double *hi) {
  double sum = 0, *gm = malloc(sizeof(double) * (size_t)o->bootstrap);
  for (int i = 0; i < o->nsizes; i++) sum += log(res[i].ratio);
  *g = exp(sum / o->nsizes);
  for (int k = 0; k < o->bootstrap; k++) {
    double sk = 0;
    for (int i = 0; i < o->nsizes; i++) sk += log(res[i].boot[k]);
    gm[k] = exp(sk / o->nsizes);
  }
  qsort(gm, (size_t)o->bootstrap, sizeof *gm, cmp_double);
  *lo = quantile(gm, o->bootstrap, 0.025);
  *hi = quantile(gm, o->bootstrap, 0.975);
  free(gm);
}

static void print_summary(const size_result *res, const options *o, long long wrong, const char *calls,
                          double total) {
  double g, glo, ghi;
  int w = 0;
  char size[32];
  geomean(res, o, &g, &glo, &ghi);
  for (int i = 1; i < o->nsizes; i++)
    if (res[i].ratio > res[w].ratio) w = i;
  printf("summary: %d sizes, geometric mean of ratios %.3f [95%% CI %.3f, %.3f], worst %.3f at %s"
         " [%.3f, %.3f]; wrong bytes %lld; %s; total %.1f s\n",
         o->nsizes, g, glo, ghi, res[w].ratio, fmt_size(res[w].bytes, size, sizeof size), res[w].lo, res[w].hi,
         wrong, calls, total);
}

/* Whether libpat ran every MPI_Allgather since the probe (on every rank);
 * rank 0's counts in words. */
static int libpat_ran_all(const bench *b, char *words, size_t len) {
  long long now = libpat_calls(&b->pat, NULL);
  long long ran = b->pat.active && now >= 0 ? now - b->pat.calls_start : 0;
  int mine = b->pat.active && ran == b->mpi_calls, all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, b->comm);
  snprintf(words, len, "libpat ran %lld of %lld MPI_Allgather calls%s", ran, b->mpi_calls,
           all ? "" : (b->pat.active ? " (NOT all, on some rank)" : ""));
  return all;
}

/* ---------------------------------------------------------------- main */
static int alloc_buffers(bench *b, const options *o) {
  uint64_t max = 0;
  for (int i = 0; i < o->nsizes; i++)
    if (o->sizes[i] > max) max = o->sizes[i];
  void *s = NULL, *r = NULL;
  if (posix_memalign(&s, 4096, (size_t)max) || posix_memalign(&r, 4096, (size_t)max * (size_t)b->P)) {
    free(s);
    return -1;
  }
  b->send = s;
  b->recv = r;
  memset(b->send, 0, (size_t)max);
  memset(b->recv, 0, (size_t)max * (size_t)b->P);
  return 0;
}

/* Rank 0 opens the CSV; every rank learns whether it could. */
static FILE *open_csv(const bench *b, const options *o, int *ok) {
  FILE *f = NULL;
  *ok = 1;
  if (b->rank == 0 && o->csv) {
    f = fopen(o->csv, "w");
    if (f) fputs(csv_header, f);
    else fprintf(stderr, "pat-b2b: cannot write %s\n", o->csv);
    *ok = f != NULL;
  }
  PMPI_Bcast(ok, 1, MPI_INT, 0, b->comm);
  return f;
}

/* Every size in turn: measure, then (rank 0) statistics, row, CSV rows. */
static void measure_all(bench *b, const options *o, size_result *res, FILE *csv) {
  if (b->rank == 0) print_columns();
  for (int i = 0; i < o->nsizes; i++) {
    if (size_result_alloc(&res[i], o->rounds, o->bootstrap)) {
      fprintf(stderr, "pat-b2b: out of memory\n");
      MPI_Abort(b->comm, 1);
    }
    measure_size(b, o, i, &res[i]);
    if (b->rank != 0) continue;
    size_stats(&res[i], o, i);
    print_row(b, &res[i]);
    if (csv) csv_rows(csv, b, &res[i]);
  }
}

/* After the measurements: wrong results and libpat's count over all ranks,
 * the summary; the exit status. */
static int finish(bench *b, const options *o, size_result *res, double total) {
  long long wrong = 0;
  char calls[160];
  PMPI_Allreduce(&b->wrong, &wrong, 1, MPI_LONG_LONG, MPI_SUM, b->comm);
  int all = libpat_ran_all(b, calls, sizeof calls);
  if (b->rank == 0) {
    print_summary(res, o, wrong, calls, total);
    if (wrong) printf("pat-b2b: WRONG RESULTS: %lld bytes differ from what was sent\n", wrong);
  }
  if (wrong) return EXIT_WRONG;
  return o->require_libpat && !all ? EXIT_NOT_LIBPAT : 0;
}

static int usage_exit(int rank, int rc, const cli_error *err) {
  if (rank == 0 && rc > 0) usage(stdout);
  if (rank == 0 && rc < 0) fprintf(stderr, "pat-b2b: %s\n", err->text);
  MPI_Finalize();
  return rc > 0 ? 0 : EXIT_USAGE;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  bench b;
  memset(&b, 0, sizeof b);
  b.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(b.comm, &b.rank);
  MPI_Comm_size(b.comm, &b.P);
  options o;
  cli_error err = {{0}};
  int rc = parse_args(argc, argv, &o, &err), csv_ok;
  if (rc) return usage_exit(b.rank, rc, &err);
  b.check_calls = o.check_calls;
  b.inject_error = o.inject_error;
  find_libpat(&b.pat);
  probe_libpat(&b);
  if (alloc_buffers(&b, &o)) {
    fprintf(stderr, "pat-b2b: cannot allocate the buffers\n");
    MPI_Abort(b.comm, 1);
  }
  int hosts = count_hosts(&b);
  FILE *csv = open_csv(&b, &o, &csv_ok);
  if (b.rank == 0) print_header(&b, &o, hosts);
  if (!csv_ok || (o.require_libpat && !b.pat.active)) {
    if (b.rank == 0 && csv_ok) printf("pat-b2b: --require-libpat: libpat is not running MPI_Allgather\n");
    MPI_Finalize();
    return csv_ok ? EXIT_NOT_LIBPAT : EXIT_USAGE;
  }
  size_result *res = calloc((size_t)o.nsizes, sizeof *res);
  double t0 = MPI_Wtime();
  measure_all(&b, &o, res, csv);
  rc = finish(&b, &o, res, MPI_Wtime() - t0);
  if (csv) fclose(csv);
  for (int i = 0; i < o.nsizes; i++) size_result_free(&res[i]);
  free(res);
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return rc;
}
