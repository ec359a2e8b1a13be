/*
 * pat-model: predict ē of every algorithm under the cost model, for a
 * process arrival pattern described on the command line, at any P up to
 * 4096; or a table of the winner per (N, maxDelay) like the mini-benchmark's.
 *
 *   pat-model --rate 1gbit --latency 50us --P 48 --N 1M --max-delay 50ms
 *   pat-model --model cluster.model --P 1024 --pap late --late-delay 20ms
 *   pat-model --alpha 50us --beta 8ns --P 16 --pap csv --csv arrivals.csv
 *   pat-model --rate 1gbit --latency 50us --P 48 --sizes 1k,64k,1M --delays 0,5ms,50ms --reps 5
 *   pat-model --rate 1gbit --latency 50us --P 1024 --timing
 *
 * Run with --help for every option.  Pure model: no MPI.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "model/fit.h"
#include "model/model_prog.h"
#include "model/select.h"

#define MAXP 4096

static void usage(FILE *f) {
  fprintf(f,
          "usage: pat-model [options]\n"
          "model (one of):\n"
          "  --model FILE          model file (per-algorithm parameters, see fit.h)\n"
          "  --alpha T --beta T    Hockney latency (s) and time per byte (s/B) for every algorithm\n"
          "  --rate R --latency T  the same from a link rate (1gbit, 10Gbit, 125MB: per second) and latency\n"
          "  --eager BYTES         eager threshold (messages below it are eager; default: the file's, else 0)\n"
          "  --ppn K               K consecutive ranks per node (intra-node parameters apply if the model has them)\n"
          "pattern:\n"
          "  --P N                 processes, 1..%d (default 8)\n"
          "  --pap KIND            uniform (default): delays uniform in [0, maxDelay]; late: one late rank;\n"
          "                        csv: measured arrivals from --csv\n"
          "  --max-delay T         uniform: maxDelay (e.g. 50ms, 2tau; default 0)\n"
          "  --seed S              uniform: first seed (default 1)\n"
          "  --reps K              uniform: average over K patterns, seeds S..S+K-1 (default 1)\n"
          "  --late-rank R         late: the late rank (default P-1)\n"
          "  --late-delay T        late: how late (default 10tau)\n"
          "  --csv FILE            csv: one arrival per line, \"t\" or \"rank,t\", seconds\n"
          "  --bg-start T          background threads start at T after the first arrival (default: any time)\n"
          "size:\n"
          "  --N N                 floats in the gathered vector (k = 2^10, M = 2^20; default 1M); block = 4N/P bytes\n"
          "  --block BYTES         block bytes instead of --N\n"
          "output:\n"
          "  --algs LIST           algorithms to predict (default: all with a schedule)\n"
          "  --sizes LIST          with --delays: table of the winner per (N, maxDelay)\n"
          "  --delays LIST         maxDelay values for the table (times, or multiples of tau: 4tau)\n"
          "  --bslb-roots K        BSLB: try the K earliest arrivals as root (default 1)\n"
          "  --timing              time schedule build, replay, compiled programs and selection at this P\n"
          "times: a number with s, ms, us or ns (plain numbers are seconds); sizes: bytes.\n",
          MAXP);
}

static int die(const char *fmt, const char *arg) {
  fprintf(stderr, "pat-model: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  exit(2);
}

/* a time: seconds, or with s/ms/us/ns; with tau_ok, "<x>tau" gives -x (caller scales) */
static double parse_time(const char *s, int tau_ok, int *is_tau) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || v < 0) die("bad time \"%s\"", s);
  if (is_tau) *is_tau = 0;
  if (*end == '\0' || strcasecmp(end, "s") == 0) return v;
  if (strcasecmp(end, "ms") == 0) return v * 1e-3;
  if (strcasecmp(end, "us") == 0) return v * 1e-6;
  if (strcasecmp(end, "ns") == 0) return v * 1e-9;
  if (tau_ok && is_tau && strcasecmp(end, "tau") == 0) {
    *is_tau = 1;
    return v;
  }
  die("bad time unit in \"%s\" (s, ms, us, ns%s)", s);
  return 0;
}

static double parse_count(const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || v < 0) die("bad number \"%s\"", s);
  if (*end == 'k' || *end == 'K') v *= 1024, end++;
  else if (*end == 'M') v *= 1048576, end++;
  else if (*end == 'G') v *= 1073741824.0, end++;
  if (*end) die("bad number \"%s\" (k, M, G suffixes)", s);
  return v;
}

/* link rate -> seconds per byte */
static double parse_rate(const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !(v > 0) || !isfinite(v)) die("bad rate \"%s\"", s);
  char unit[32];
  snprintf(unit, sizeof unit, "%s", end);
  size_t n = strlen(unit);
  if (n >= 2 && strcmp(unit + n - 2, "/s") == 0) unit[n - 2] = '\0';
  static const struct { const char *u; double bytes_per_s; } units[] = {
      {"bit", 0.125}, {"kbit", 125.0}, {"mbit", 125e3}, {"gbit", 125e6}, {"tbit", 125e9},
      {"B", 1},       {"kB", 1e3},     {"MB", 1e6},     {"GB", 1e9},     {"bps", 0.125},
  };
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if ((units[i].u[0] == 'B' || units[i].u[1] == 'B') ? strcmp(unit, units[i].u) == 0
                                                        : strcasecmp(unit, units[i].u) == 0)
      return 1.0 / (v * units[i].bytes_per_s);
  die("bad rate unit in \"%s\" (bit, kbit, mbit, gbit, B, kB, MB, GB; optional /s)", s);
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* splitmix64: portable, seedable */
static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct opts {
  int P, pap, reps, late_rank, ppn, bslb_roots, timing;
  double max_delay, late_delay, block, N, bg_start;
  int max_delay_tau, late_delay_tau, have_bg;
  uint64_t seed;
  const char *csv;
  unsigned algs;
  char *sizes, *delays;
} opts;

enum { PAP_UNIFORM, PAP_LATE, PAP_CSV };

static int read_csv(const char *path, double *a, int maxp) {
  FILE *f = fopen(path, "r");
  if (!f) die("cannot open %s", path);
  char line[512];
  int n = 0, lineno = 0;
  for (int i = 0; i < maxp; i++) a[i] = NAN;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (!*p || *p == '#') continue;
    if (!isdigit((unsigned char)*p) && *p != '.' && *p != '-' && *p != '+') continue; /* header */
    char *comma = strchr(p, ',');
    int rank = n;
    double t;
    char *end;
    if (comma) {
      rank = (int)strtol(p, &end, 10);
      if (end != comma || rank < 0 || rank >= maxp) die("bad rank on a line of %s", path);
      p = comma + 1;
    }
    t = strtod(p, &end);
    while (isspace((unsigned char)*end)) end++;
    if (end == p || *end || !isfinite(t)) die("bad arrival time on a line of %s", path);
    if (rank >= maxp) die("too many ranks in %s", path);
    a[rank] = t;
    if (rank + 1 > n) n = rank + 1;
  }
  fclose(f);
  for (int i = 0; i < n; i++)
    if (isnan(a[i])) die("%s: a rank has no arrival", path);
  if (n < 1) die("%s: no arrivals", path);
  return n;
}

/* the arrivals (ns) of pattern number rep */
static void make_pap(const opts *o, double tau, int rep, const double *csv, int64_t *a) {
  const int P = o->P;
  if (o->pap == PAP_CSV) {
    double mn = csv[0];
    for (int i = 1; i < P; i++) mn = csv[i] < mn ? csv[i] : mn;
    for (int i = 0; i < P; i++) a[i] = (int64_t)llround((csv[i] - mn) * 1e9);
    return;
  }
  if (o->pap == PAP_LATE) {
    double late = o->late_delay_tau ? o->late_delay * tau : o->late_delay;
    for (int i = 0; i < P; i++) a[i] = 0;
    a[o->late_rank] = (int64_t)llround(late * 1e9);
    return;
  }
  double md = o->max_delay_tau ? o->max_delay * tau : o->max_delay;
  uint64_t s = o->seed + (uint64_t)rep;
  for (int i = 0; i < P; i++) {
    double u = (double)(mix(&s) >> 11) / 9007199254740992.0;
    a[i] = (int64_t)llround(u * md * 1e9);
  }
}

typedef struct pred {
  double ebar, r, lb;
  int rc, root;
} pred;

/* mean ē (and r) of alg over the patterns; ē_lb alike */
static pred predict(pat_select_cache *cache, int alg, const opts *o, const pat_model_params *mp, double block,
                    const double *csv) {
  pred p = {0, 0, 0, 0, 0};
  const int P = o->P;
  int reps = o->pap == PAP_UNIFORM ? o->reps : 1;
  int64_t *a = malloc((size_t)P * sizeof *a);
  double *ad = malloc((size_t)P * sizeof *ad);
  double tau = pat_model_cost(mp->dflt.inter, block, 1.0);
  int64_t bg = o->have_bg ? (int64_t)llround(o->bg_start * 1e9) : PAT_NO_TIME;
  for (int rep = 0; rep < reps; rep++) {
    make_pap(o, tau, rep, csv, a);
    int root = 0;
    if (alg == PAT_ALG_BSLB) { /* as the selection does: the earliest (of K) */
      pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = bg, .block_bytes = block, .mp = mp,
                          .allowed = 1u << PAT_ALG_BSLB, .bslb_roots = o->bslb_roots};
      pat_select_out so;
      if (pat_select(cache, &in, &so) == PAT_OK && so.status[PAT_ALG_BSLB] == PAT_OK) root = so.root_of[PAT_ALG_BSLB];
    }
    pat_model_result res;
    memset(&res, 0, sizeof res);
    int rc = pat_predict(cache, alg, root, P, a, bg, block, mp, &res);
    if (rc) {
      p.rc = rc;
      break;
    }
    p.root = root;
    p.ebar += res.ebar / reps;
    p.r += res.r / reps;
    for (int i = 0; i < P; i++) ad[i] = (double)a[i] * 1e-9;
    p.lb += pat_lower_bound(P, ad, tau, NULL) / reps;
  }
  free(a);
  free(ad);
  return p;
}

static const char *fmt_time(double s, char *buf, size_t n) {
  double v = fabs(s);
  if (v >= 1)
    snprintf(buf, n, "%.4g s", s);
  else if (v >= 1e-3)
    snprintf(buf, n, "%.4g ms", s * 1e3);
  else if (v >= 1e-6 || v == 0)
    snprintf(buf, n, "%.4g us", s * 1e6);
  else
    snprintf(buf, n, "%.4g ns", s * 1e9);
  return buf;
}

static void print_model(const pat_model_params *mp, const opts *o) {
  char b1[32], b2[32];
  printf("# model: %s\n", mp->made[0] ? mp->made : "(no description)");
  printf("#   default: alpha %s, beta %.4g s/B (%.4g Gbit/s)", fmt_time(mp->dflt.inter.alpha, b1, sizeof b1),
         mp->dflt.inter.beta, mp->dflt.inter.beta > 0 ? 8e-9 / mp->dflt.inter.beta : INFINITY);
  if (mp->dflt.has_intra)
    printf("; intra: alpha %s, beta %.4g s/B", fmt_time(mp->dflt.intra.alpha, b2, sizeof b2), mp->dflt.intra.beta);
  printf("\n");
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (mp->alg[i].set) {
      printf("#   %-7s: alpha %s, beta %.4g s/B", pat_algorithms[i].name,
             fmt_time(mp->alg[i].inter.alpha, b1, sizeof b1), mp->alg[i].inter.beta);
      if (mp->alg[i].has_intra)
        printf("; intra: alpha %s, beta %.4g s/B", fmt_time(mp->alg[i].intra.alpha, b2, sizeof b2),
               mp->alg[i].intra.beta);
      printf("\n");
    }
  printf("#   eager threshold: %.0f bytes%s; ranks per node: %d\n", mp->eager_bytes,
         mp->eager_bytes > 0 ? "" : " (all rendezvous)", o->ppn ? o->ppn : 1);
}

static void describe_pap(const opts *o, double tau, char *buf, size_t n) {
  char b[32];
  if (o->pap == PAP_CSV)
    snprintf(buf, n, "measured arrivals from %s", o->csv);
  else if (o->pap == PAP_LATE)
    snprintf(buf, n, "rank %d late by %s", o->late_rank,
             fmt_time(o->late_delay_tau ? o->late_delay * tau : o->late_delay, b, sizeof b));
  else
    snprintf(buf, n, "uniform delays in [0, %s], seeds %llu..%llu",
             fmt_time(o->max_delay_tau ? o->max_delay * tau : o->max_delay, b, sizeof b),
             (unsigned long long)o->seed, (unsigned long long)(o->seed + (uint64_t)o->reps - 1));
}

static void timing(const opts *o, const pat_model_params *mp, double block) {
  const int P = o->P;
  printf("\n# timing at P=%d (best of 5 unless noted; wall clock)\n", P);
  printf("%-6s %10s %11s %12s %12s %12s %12s\n", "alg", "ops", "build", "replay", "replay-event", "compile",
         "program");
  int64_t *a = malloc((size_t)P * sizeof *a);
  double *ad = malloc((size_t)P * sizeof *ad);
  uint64_t s = 7;
  double tau = pat_model_cost(mp->dflt.inter, block, 1.0);
  for (int i = 0; i < P; i++) {
    a[i] = (int64_t)llround((double)(mix(&s) >> 11) / 9007199254740992.0 * 20 * tau * 1e9);
    ad[i] = (double)a[i] * 1e-9;
  }
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(pat_algorithms[alg].flags & PAT_ALGF_CLASSIC) || !(o->algs & (1u << alg))) continue;
    pat_build_args args = {P, PAT_ALL_RANKS, a, 0, 0, 0};
    pat_sched sc;
    double t0 = now();
    int rc = pat_build(alg, &sc, &args);
    double tb = now() - t0;
    if (rc) {
      printf("%-6s build failed (%d)\n", pat_algorithms[alg].name, rc);
      continue;
    }
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    pat_model_params m = *mp;
    pat_model_result res;
    for (int k = 0; k < 5; k++) {
      memset(&res, 0, sizeof res);
      m.engine = PAT_ENGINE_AUTO;
      t0 = now();
      pat_model_replay(&sc, ad, &m, block, &res);
      double d = now() - t0;
      best[0] = d < best[0] ? d : best[0];
    }
    for (int k = 0; k < (sc.nops > 1000000 ? 1 : 5); k++) {
      m.engine = PAT_ENGINE_EVENT;
      t0 = now();
      pat_model_replay(&sc, ad, &m, block, &res);
      double d = now() - t0;
      best[1] = d < best[1] ? d : best[1];
    }
    size_t nops = sc.nops;
    pat_sched_free(&sc);
    pat_prog *g = NULL;
    t0 = now();
    pat_prog_compile(&g, alg, P, 0, 0);
    best[2] = now() - t0;
    for (int k = 0; k < 20 && g; k++) {
      memset(&res, 0, sizeof res);
      t0 = now();
      pat_prog_eval(g, ad, mp, block, &res);
      double d = now() - t0;
      best[3] = d < best[3] ? d : best[3];
    }
    char b[6][32];
    printf("%-6s %10zu %11s %12s %12s %12s %12s%s\n", pat_algorithms[alg].name, nops, fmt_time(tb, b[0], 32),
           fmt_time(best[0], b[1], 32), fmt_time(best[1], b[2], 32), fmt_time(best[2], b[3], 32),
           fmt_time(best[3], b[4], 32), g && pat_prog_is_uniform(g) ? "  (closed form)" : "");
    pat_prog_free(g);
  }
  /* arrival-aware algorithms: built per call from the predicted pattern */
  int64_t tau_ns = pat_quantise_ns(tau);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) || !(o->algs & (1u << alg))) continue;
    pat_build_args one = {P, 0, a, tau_ns, 0, pat_quantise_ns(mp->dflt.inter.alpha)};
    pat_sched s1;
    double t0 = now();
    int rc = pat_build(alg, &s1, &one);
    double tone = now() - t0;
    if (rc) {
      printf("%-6s builder failed (%s)\n", pat_algorithms[alg].name, pat_status_string(rc));
      continue;
    }
    pat_sched_free(&s1);
    pat_build_args all = {P, PAT_ALL_RANKS, a, tau_ns, 0, pat_quantise_ns(mp->dflt.inter.alpha)};
    pat_sched sa;
    t0 = now();
    rc = pat_build(alg, &sa, &all);
    double tall = now() - t0;
    pat_model_result res;
    memset(&res, 0, sizeof res);
    t0 = now();
    if (!rc) rc = pat_model_replay(&sa, ad, mp, block, &res);
    double trep = now() - t0;
    char b[3][32];
    printf("%-6s %10zu build one rank %s, all ranks %s, replay %s (engine %s)%s\n", pat_algorithms[alg].name,
           rc ? (size_t)0 : sa.nops, fmt_time(tone, b[0], 32), fmt_time(tall, b[1], 32), fmt_time(trep, b[2], 32),
           res.engine == PAT_ENGINE_FAST ? "fast" : "event", rc ? " FAILED" : "");
    if (!rc) pat_sched_free(&sa);
  }
  pat_select_cache c;
  pat_select_cache_init(&c);
  double t0 = now();
  pat_select_prepare(&c, P, o->algs, 0, 0);
  double tprep = now() - t0;
  pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME, .block_bytes = block, .mp = mp,
                      .allowed = o->algs, .bslb_roots = o->bslb_roots};
  pat_select_out so;
  double best = 1e9, worst = 0, sum = 0;
  for (int k = 0; k < 200; k++) {
    t0 = now();
    pat_select(&c, &in, &so);
    double d = now() - t0;
    best = d < best ? d : best;
    worst = d > worst ? d : worst;
    sum += d;
  }
  char b1[32], b2[32], b3[32], b4[32];
  printf("select (warm cache, 200 calls): best %s, mean %s, worst %s -> %s; cache fill (once per P): %s\n",
         fmt_time(best, b1, 32), fmt_time(sum / 200, b2, 32), fmt_time(worst, b3, 32),
         so.alg >= 0 ? pat_algorithms[so.alg].name : "none", fmt_time(tprep, b4, 32));
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if ((pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) && (o->algs & (1u << alg)))
      printf("  %s: %s\n", pat_algorithms[alg].name,
             so.status[alg] == PAT_OK                   ? "predicted (schedule built and replayed per call)"
             : so.status[alg] == PAT_SELECT_SKIPPED     ? "not considered"
             : so.status[alg] == PAT_SELECT_OVER_BUDGET ? "not considered: schedule over the per-call budget"
                                                        : "skipped (builder failed)");
  pat_select_cache_free(&c);
  free(a);
  free(ad);
}

int main(int argc, char **argv) {
  opts o;
  memset(&o, 0, sizeof o);
  o.P = 8;
  o.reps = 1;
  o.seed = 1;
  o.late_rank = -1;
  o.late_delay = 10;
  o.late_delay_tau = 1;
  o.N = 1048576;
  o.bslb_roots = 1;
  o.algs = 0;
  const char *model = NULL;
  double alpha = NAN, beta = NAN, latency = NAN, rate = NAN, eager = NAN;
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i];
    if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(k, "--timing")) {
      o.timing = 1;
      continue;
    }
    if (i + 1 >= argc) die("%s needs a value (see --help)", k);
    const char *v = argv[++i];
    int tau;
    if (!strcmp(k, "--model")) model = v;
    else if (!strcmp(k, "--alpha")) alpha = parse_time(v, 0, NULL);
    else if (!strcmp(k, "--beta")) beta = parse_time(v, 0, NULL);
    else if (!strcmp(k, "--latency")) latency = parse_time(v, 0, NULL);
    else if (!strcmp(k, "--rate")) rate = parse_rate(v);
    else if (!strcmp(k, "--eager")) eager = parse_count(v);
    else if (!strcmp(k, "--ppn")) o.ppn = (int)parse_count(v);
    else if (!strcmp(k, "--P")) o.P = (int)parse_count(v);
    else if (!strcmp(k, "--pap")) {
      if (!strcmp(v, "uniform")) o.pap = PAP_UNIFORM;
      else if (!strcmp(v, "late")) o.pap = PAP_LATE;
      else if (!strcmp(v, "csv")) o.pap = PAP_CSV;
      else die("--pap: uniform, late or csv, not \"%s\"", v);
    } else if (!strcmp(k, "--max-delay")) {
      o.max_delay = parse_time(v, 1, &tau);
      o.max_delay_tau = tau;
    } else if (!strcmp(k, "--seed")) o.seed = (uint64_t)parse_count(v);
    else if (!strcmp(k, "--reps")) o.reps = (int)parse_count(v);
    else if (!strcmp(k, "--late-rank")) o.late_rank = (int)parse_count(v);
    else if (!strcmp(k, "--late-delay")) {
      o.late_delay = parse_time(v, 1, &tau);
      o.late_delay_tau = tau;
    } else if (!strcmp(k, "--csv")) {
      o.csv = v;
      o.pap = PAP_CSV;
    } else if (!strcmp(k, "--bg-start")) {
      o.bg_start = parse_time(v, 0, NULL);
      o.have_bg = 1;
    } else if (!strcmp(k, "--N")) o.N = parse_count(v);
    else if (!strcmp(k, "--block")) o.block = parse_count(v);
    else if (!strcmp(k, "--algs")) {
      char *list = strdup(v), *save = NULL;
      for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int id = pat_alg_by_name(t);
        if (id < 0 || !pat_algorithms[id].build) die("--algs: no schedule for \"%s\"", t);
        o.algs |= 1u << id;
      }
      free(list);
    } else if (!strcmp(k, "--sizes")) o.sizes = strdup(v);
    else if (!strcmp(k, "--delays")) o.delays = strdup(v);
    else if (!strcmp(k, "--bslb-roots")) o.bslb_roots = (int)parse_count(v);
    else die("unknown option %s (see --help)", k);
  }
  /* model */
  pat_model_params mp;
  if (model) {
    char err[512];
    if (pat_model_read(model, &mp, err, sizeof err)) die("%s", err);
    if (!isnan(alpha) || !isnan(beta) || !isnan(rate) || !isnan(latency))
      die("%s", "--model and --alpha/--beta/--rate/--latency exclude each other");
  } else {
    if (!isnan(rate)) beta = rate;
    if (!isnan(latency)) alpha = latency;
    if (isnan(alpha) || isnan(beta))
      die("%s", "give --model FILE, or --alpha and --beta, or --rate and --latency");
    pat_model_params_init(&mp, alpha, beta);
    snprintf(mp.made, sizeof mp.made, "command line");
  }
  if (!isnan(eager)) mp.eager_bytes = eager;
  if (!o.algs)
    for (int i = 0; i < PAT_ALG_COUNT; i++)
      if (pat_algorithms[i].build) o.algs |= 1u << i;
  double *csv = NULL;
  if (o.pap == PAP_CSV) {
    if (!o.csv) die("%s", "--pap csv needs --csv FILE");
    csv = malloc(MAXP * sizeof *csv);
    int n = read_csv(o.csv, csv, MAXP);
    o.P = n;
  }
  if (o.P < 1 || o.P > MAXP) die("P must be 1..4096%s", "");
  if (o.late_rank < 0) o.late_rank = o.P - 1;
  if (o.late_rank >= o.P) die("%s", "--late-rank must be < P");
  if (o.reps < 1) o.reps = 1;
  int *node = NULL;
  if (o.ppn > 1) {
    node = malloc((size_t)o.P * sizeof *node);
    for (int i = 0; i < o.P; i++) node[i] = i / o.ppn;
    mp.node = node;
  }

  /* header: the command line and the parameters */
  printf("#");
  for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  print_model(&mp, &o);

  pat_select_cache cache;
  pat_select_cache_init(&cache);

  if (o.sizes || o.delays) {
    if (!o.sizes || !o.delays) die("%s", "--sizes and --delays go together");
    double Ns[64], D[64];
    int dtau[64], nN = 0, nD = 0;
    char *save = NULL;
    for (char *t = strtok_r(o.sizes, ",", &save); t && nN < 64; t = strtok_r(NULL, ",", &save)) Ns[nN++] = parse_count(t);
    save = NULL;
    for (char *t = strtok_r(o.delays, ",", &save); t && nD < 64; t = strtok_r(NULL, ",", &save)) {
      D[nD] = parse_time(t, 1, &dtau[nD]);
      nD++;
    }
    if (o.pap != PAP_UNIFORM) die("%s", "the table varies maxDelay: use --pap uniform");
    printf("# pattern: P=%d, uniform delays in [0, maxDelay], %d pattern(s) per cell (seeds %llu..)\n", o.P, o.reps,
           (unsigned long long)o.seed);
    printf("# cell: the algorithm with the smallest predicted mean e; for an arrival-aware winner, its speed-up\n"
           "# over the best classic algorithm (x1.23).  Rows: N floats in the vector; columns: maxDelay.\n");
    printf("%-10s", "N \\ delay");
    for (int j = 0; j < nD; j++) {
      char b[32];
      if (dtau[j])
        snprintf(b, sizeof b, "%gtau", D[j]);
      else
        fmt_time(D[j], b, sizeof b);
      printf(" %16s", b);
    }
    printf("\n");
    for (int i = 0; i < nN; i++) {
      double block = 4.0 * Ns[i] / o.P;
      printf("%-10.0f", Ns[i]);
      for (int j = 0; j < nD; j++) {
        opts c = o;
        c.max_delay = D[j];
        c.max_delay_tau = dtau[j];
        double best = INFINITY, best_classic = INFINITY;
        int win = -1;
        for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
          if (!(o.algs & (1u << alg))) continue;
          pred p = predict(&cache, alg, &c, &mp, block, csv);
          if (p.rc) continue;
          if (pat_quantise_ns(p.ebar) < pat_quantise_ns(best)) {
            best = p.ebar;
            win = alg;
          }
          if ((pat_algorithms[alg].flags & PAT_ALGF_CLASSIC) && p.ebar < best_classic) best_classic = p.ebar;
        }
        char cell[40];
        if (win < 0)
          snprintf(cell, sizeof cell, "-");
        else if (pat_algorithms[win].flags & PAT_ALGF_ARRIVAL)
          snprintf(cell, sizeof cell, "%s x%.2f", pat_algorithms[win].name, best_classic / best);
        else
          snprintf(cell, sizeof cell, "%s", pat_algorithms[win].name);
        printf(" %16s", cell);
      }
      printf("\n");
    }
  } else {
    double block = o.block > 0 ? o.block : 4.0 * o.N / o.P;
    double tau = pat_model_cost(mp.dflt.inter, block, 1.0);
    char pap[200], b1[32], b2[32];
    describe_pap(&o, tau, pap, sizeof pap);
    printf("# pattern: P=%d, %s\n", o.P, pap);
    printf("# size: block %.6g bytes", block);
    if (o.block <= 0) printf(" (N = %.0f floats)", o.N);
    printf("; tau = %s (default parameters)\n", fmt_time(tau, b1, sizeof b1));
    if (o.pap != PAP_UNIFORM || o.reps == 1) {
      int64_t *a = malloc((size_t)o.P * sizeof *a);
      make_pap(&o, tau, 0, csv, a);
      int64_t mx = 0;
      for (int i = 0; i < o.P; i++) mx = a[i] > mx ? a[i] : mx;
      printf("# omega = %s, omega/tau = %.3g\n", fmt_time(mx * 1e-9, b2, sizeof b2), mx * 1e-9 / tau);
      free(a);
    }
    printf("%-6s %12s %12s %9s %s\n", "alg", "ebar", "r", "ebar/lb", "note");
    double lb = 0;
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
      if (!(o.algs & (1u << alg))) continue;
      pred p = predict(&cache, alg, &o, &mp, block, csv);
      if (p.rc) {
        printf("%-6s %12s %12s %9s cannot predict (%s)\n", pat_algorithms[alg].name, "-", "-", "-",
               pat_status_string(p.rc));
        continue;
      }
      lb = p.lb;
      char note[64] = "";
      if (pat_algorithms[alg].flags & PAT_ALGF_ROOTED) snprintf(note, sizeof note, "root %d", p.root);
      printf("%-6s %12s %12s %9.3f %s\n", pat_algorithms[alg].name, fmt_time(p.ebar, b1, sizeof b1),
             fmt_time(p.r, b2, sizeof b2), p.lb > 0 ? p.ebar / p.lb : INFINITY, note);
    }
    printf("%-6s %12s\n", "lower", fmt_time(lb, b1, sizeof b1));
    if (o.reps == 1 || o.pap != PAP_UNIFORM) {
      int64_t *a = malloc((size_t)o.P * sizeof *a);
      make_pap(&o, tau, 0, csv, a);
      pat_select_in in = {.P = o.P,
                          .arrival_ns = a,
                          .bg_start_ns = o.have_bg ? (int64_t)llround(o.bg_start * 1e9) : PAT_NO_TIME,
                          .block_bytes = block,
                          .mp = &mp,
                          .allowed = o.algs,
                          .bslb_roots = o.bslb_roots};
      pat_select_out so;
      if (pat_select(&cache, &in, &so) == PAT_OK)
        printf("# auto would choose: %s%s\n", so.alg >= 0 ? pat_algorithms[so.alg].name : "none",
               so.balanced ? " (balanced pattern: classic only)" : "");
      free(a);
    }
    if (o.timing) timing(&o, &mp, block);
  }
  pat_select_cache_free(&cache);
  free(csv);
  free(node);
  free(o.sizes);
  free(o.delays);
  return 0;
}
