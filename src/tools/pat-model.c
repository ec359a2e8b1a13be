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
 *   pat-model --rate 200mbit --latency 50us --P 8 --coll allreduce --pap late --late-delay 100ms
 *
 * Run with --help for every option.  Pure model: no MPI.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/allreduce.h"
#include "tools/fit.h"
#include "model/measured.h"
#include "model/model_nbc.h"
#include "model/model_prog.h"
#include "model/select.h"
#include "tools/cli.h"

#define MAXP 4096
#define MAXLIST 64                  /* values in --sizes, --delays */
#define MAX_EXACT 9007199254740992u /* 2^53: counts and bytes are kept as doubles */

static void usage(FILE *f) {
  fprintf(f,
          "usage: pat-model [options]\n"
          "model (one of):\n"
          "  --model FILE          model file (per-algorithm parameters, see fit.h)\n"
          "  --alpha T --beta T    Hockney latency (s) and time per byte (s/B) for every algorithm\n"
          "  --rate R --latency T  the same from a link rate (1gbit, 10Gbit, 125MB: per second) and latency\n"
          "  --intra-rate R [--intra-latency T]  the intra-node pair (shared memory) of every algorithm,\n"
          "                        with --ppn (default: none, transfers inside a node cost as between nodes)\n"
          "  --eager BYTES         eager threshold (messages below it are eager; default: the file's, else 0)\n"
          "  --ppn K               K consecutive ranks per node: they share their node's link (one send and one\n"
          "                        receive port per node for transfers between nodes), intra-node parameters apply\n"
          "                        if the model has them, and the hierarchical algorithms are built for the nodes\n"
          "  --pace R|link         data-flow forwards paced as PAT_PACE does at rate R (500mbit), or at the\n"
          "                        model file's link line (default: no pacing)\n"
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
          "  --coll allreduce      the all-reduce of a vector of N floats (a segment, 4N/P bytes, is the block):\n"
          "                        its schedules (--algs among rdb, ring, rabenseifner, relay, hring, hrelay, slt),\n"
          "                        built for the pattern (the arrival-aware ones' order of arrival) and replayed,\n"
          "                        gamma per reduced byte (the model file's gamma line, else the default); the\n"
          "                        bound is the all-reduce's (docs/design.md section 1)\n"
          "  --sizes LIST          with --delays: table of the winner per (N, maxDelay)\n"
          "  --delays LIST         maxDelay values for the table (times, or multiples of tau: 4tau)\n"
          "  --bslb-roots K        BSLB: try the K earliest arrivals as root (default 1)\n"
          "  --timing              time schedule build, replay, compiled programs and selection at this P\n"
          "  --select-timing       only the selection's CPU time per call (CLOCK_THREAD_CPUTIME_ID), on the first\n"
          "                        pattern, with what it weighed\n"
          "  --overlap T           the non-blocking form (model_nbc.h): each rank posts at its arrival, computes\n"
          "                        T, then waits; libpat's schedules built for balanced arrivals and run from the\n"
          "                        post (RELAY, HRELAY ahead of it), MPI's own moving data only in the wait\n"
          "  --own-as ALG          with --overlap: MPI's own as this algorithm's blocking call (default ring)\n"
          "  --node-model          with --ppn: HRING and HRELAY by the node model (model_nodes.h, as auto where\n"
          "                        their replay is over its budget) instead of replaying them (P in the thousands)\n"
          "columns: ebar and r of the replay; as-auto, where the model file has measured times on this P,\n"
          "  is what auto predicts: the measured balanced time plus the replay's response to the pattern\n"
          "times: a number with s, ms, us or ns (plain numbers are seconds); counts and sizes (bytes):\n"
          "k, m, g = 2^10, 2^20, 2^30, either case (64k, 1M); rates: also a bare number in bit/s.\n",
          MAXP);
}

static int die(const char *fmt, const char *arg) {
  fprintf(stderr, "pat-model: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  exit(2);
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
  int P, pap, reps, late_rank, ppn, bslb_roots, timing, select_timing, node_model;
  int nbc, own_as; /* --overlap given: the non-blocking form's table; MPI's own modelled as own_as */
  int allreduce;   /* --coll allreduce: the all-reduce's schedules (algs: all-reduce ids) */
  const char *algs_text; /* --algs, named once the collective is known */
  double max_delay, late_delay, block, N, bg_start, overlap;
  int max_delay_tau, late_delay_tau, have_bg;
  uint64_t seed;
  const char *csv;
  unsigned algs;
} opts;

enum { PAP_UNIFORM, PAP_LATE, PAP_CSV }; /* the order of pap_kinds */
static const char *const pap_kinds[] = {"uniform", "late", "csv"};

/* How the model is given; NAN: not given. */
typedef struct model_args {
  const char *file;
  double alpha, beta, latency, rate, eager; /* s, s/B, s, s/B, bytes */
  double intra_latency, intra_rate;         /* s, s/B: the intra-node pair of every algorithm */
  double pace;                              /* s/B; 0: none; -1: the link line */
} model_args;

/* --sizes and --delays: the rows and columns of the table of winners. */
typedef struct table_axes {
  int nN, nD; /* 0: no table */
  double N[MAXLIST], D[MAXLIST];
  int D_tau[MAXLIST]; /* D[j] is a multiple of tau */
} table_axes;

typedef struct tool_args {
  opts o;
  model_args model;
  table_axes table;
} tool_args;

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
  double as_auto; /* what auto predicts: the measured level plus the replay's response; NAN without a level */
  int rc, root;
} pred;

/* mean ē (and r) of alg over the patterns; ē_lb alike */
static pred predict(pat_select_cache *cache, int alg, const opts *o, const pat_model_params *mp, double block,
                    const double *csv) {
  pred p = {0, 0, 0, NAN, 0, 0};
  const int P = o->P;
  int reps = o->pap == PAP_UNIFORM ? o->reps : 1;
  int64_t *a = malloc((size_t)P * sizeof *a);
  double *ad = malloc((size_t)P * sizeof *ad);
  double tau = pat_model_cost(mp->dflt.inter, block, 1.0);
  int64_t bg = o->have_bg ? (int64_t)llround(o->bg_start * 1e9) : PAT_NO_TIME;
  double flat[PAT_ALG_COUNT];
  pat_model_measured_levels(mp, P, block, flat);
  p.as_auto = isfinite(flat[alg]) ? 0 : NAN;
  for (int rep = 0; rep < reps; rep++) {
    make_pap(o, tau, rep, csv, a);
    int root = 0;
    if (alg == PAT_ALG_BSLB) { /* as the selection does: the earliest (of K) */
      pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = bg, .block_bytes = block, .mp = mp,
                          .allowed = 1u << PAT_ALG_BSLB, .bslb_roots = o->bslb_roots,
                          .hierarchical = mp->shared_links};
      pat_select_out so;
      if (pat_select(cache, &in, &so) == PAT_OK && so.status[PAT_ALG_BSLB] == PAT_OK) root = so.root_of[PAT_ALG_BSLB];
    }
    pat_model_result res;
    memset(&res, 0, sizeof res);
    int rc = pat_predict_nodes(cache, alg, root, P, a, bg, block, mp, o->node_model, &res);
    if (rc) {
      p.rc = rc;
      break;
    }
    pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = bg, .block_bytes = block, .mp = mp, .flat_s = flat,
                        .hierarchical = mp->shared_links};
    double as_auto;
    if (isfinite(p.as_auto))
      p.as_auto = pat_select_predict(cache, &in, alg, root, &as_auto) == PAT_OK ? p.as_auto + as_auto / reps : NAN;
    p.root = root;
    p.ebar += res.ebar / reps;
    p.r += res.r / reps;
    for (int i = 0; i < P; i++) ad[i] = (double)a[i] * 1e-9;
    p.lb += pat_lower_bound_nodes(P, ad, tau, mp->node, NULL) / reps;
  }
  free(a);
  free(ad);
  if (p.rc) p.as_auto = NAN;
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
  if (mp->pace_beta > 0) printf("#   forwards paced at %.0f Mbit/s\n", 8e-6 / mp->pace_beta);
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

/* ---- --timing ------------------------------------------------------------ */

/* The fastest of `reps` replays of sc by the given engine (s). */
static double best_replay(const pat_sched *sc, const double *ad, const pat_model_params *mp, int engine,
                         double block, int reps) {
  pat_model_params m = *mp;
  m.engine = engine;
  double best = 1e9;
  for (int k = 0; k < reps; k++) {
    pat_model_result res;
    memset(&res, 0, sizeof res);
    double t0 = now();
    pat_model_replay(sc, ad, &m, block, &res);
    double d = now() - t0;
    best = d < best ? d : best;
  }
  return best;
}

/* The fastest of `reps` evaluations of a compiled program (s); 1e9 without one. */
static double best_program(const pat_prog *g, const double *ad, const pat_model_params *mp, double block, int reps) {
  double best = 1e9;
  for (int k = 0; k < reps && g; k++) {
    pat_model_result res;
    memset(&res, 0, sizeof res);
    double t0 = now();
    pat_prog_eval(g, ad, mp, block, &res);
    double d = now() - t0;
    best = d < best ? d : best;
  }
  return best;
}

/* A classic algorithm: build, replay by both engines, compile, evaluate. */
static void time_classic(int P, int alg, const int64_t *a, const double *ad, const pat_model_params *mp,
                         double block) {
  pat_build_args args = {.P = P, .self = PAT_ALL_RANKS, .arrival = a};
  pat_sched sc;
  double t0 = now();
  int rc = pat_build(alg, &sc, &args);
  double tb = now() - t0;
  if (rc) {
    printf("%-6s build failed (%d)\n", pat_algorithms[alg].name, rc);
    return;
  }
  double replay = best_replay(&sc, ad, mp, PAT_ENGINE_AUTO, block, 5);
  double replay_event = best_replay(&sc, ad, mp, PAT_ENGINE_EVENT, block, sc.nops > 1000000 ? 1 : 5);
  size_t nops = sc.nops;
  pat_sched_free(&sc);
  pat_prog *g = NULL;
  t0 = now();
  pat_prog_compile(&g, alg, P, 0, 0);
  double compile = now() - t0;
  double program = best_program(g, ad, mp, block, 20);
  char b[5][32];
  printf("%-6s %10zu %11s %12s %12s %12s %12s%s\n", pat_algorithms[alg].name, nops, fmt_time(tb, b[0], 32),
         fmt_time(replay, b[1], 32), fmt_time(replay_event, b[2], 32), fmt_time(compile, b[3], 32),
         fmt_time(program, b[4], 32), g && pat_prog_is_uniform(g) ? "  (closed form)" : "");
  pat_prog_free(g);
}

/* An arrival-aware algorithm, built per call from the predicted pattern:
 * one rank's schedule, every rank's, and its replay. */
static void time_arrival(int P, int alg, const int64_t *a, const double *ad, const pat_model_params *mp,
                         double block) {
  pat_build_args one = pat_call_build_args(mp, alg, P, mp->node, 0, a, block, 0);
  pat_sched s1;
  double t0 = now();
  int rc = pat_build(alg, &s1, &one);
  double tone = now() - t0;
  if (rc) {
    printf("%-6s builder failed (%s)\n", pat_algorithms[alg].name, pat_status_string(rc));
    return;
  }
  pat_sched_free(&s1);
  pat_build_args all = pat_call_build_args(mp, alg, P, mp->node, PAT_ALL_RANKS, a, block, 0);
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

static const char *arrival_status(int status) {
  return status == PAT_OK                   ? "predicted (schedule built and replayed per call)"
         : status == PAT_SELECT_SKIPPED     ? "not considered"
         : status == PAT_SELECT_OVER_BUDGET ? "not considered: schedule over the per-call budget"
                                            : "skipped (builder failed)";
}

/* This thread's CPU time (s): what a selection costs its rank, robust to other work on shared CPUs. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The selection's CPU time per call: calls on a warm cache, in rounds of 20, for at least 0.5 s of
 * CPU; the mean of each round, and the smallest and median of those means. */
static void cpu_selection(pat_select_cache *c, const pat_select_in *in) {
  enum { ROUND = 20, MAX_ROUNDS = 200 };
  double mean[MAX_ROUNDS], total = 0;
  int rounds = 0;
  pat_select_out so;
  while (rounds < MAX_ROUNDS && (rounds < 5 || total < 0.5)) {
    double t0 = cpu_now();
    for (int k = 0; k < ROUND; k++) pat_select(c, in, &so);
    double d = cpu_now() - t0;
    total += d;
    mean[rounds++] = d / ROUND;
  }
  for (int i = 1; i < rounds; i++) /* insertion sort: a few hundred at most */
    for (int j = i; j > 0 && mean[j - 1] > mean[j]; j--) {
      double t = mean[j];
      mean[j] = mean[j - 1];
      mean[j - 1] = t;
    }
  char b1[32], b2[32];
  printf("select CPU time per call (CLOCK_THREAD_CPUTIME_ID, %d calls in %d rounds): median of round means %s, "
         "smallest %s\n",
         rounds * ROUND, rounds, fmt_time(mean[rounds / 2], b1, 32), fmt_time(mean[0], b2, 32));
}

/* The selection (auto): filling its cache, then 200 calls on a warm one. */
static void time_selection(const opts *o, const pat_model_params *mp, double block, const int64_t *a) {
  pat_select_cache c;
  pat_select_cache_init(&c);
  double t0 = now();
  pat_select_prepare(&c, o->P, o->algs, 0, 0);
  double tprep = now() - t0;
  pat_select_in in = {.P = o->P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME, .block_bytes = block, .mp = mp,
                      .allowed = o->algs, .bslb_roots = o->bslb_roots, .hierarchical = mp->shared_links};
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
  cpu_selection(&c, &in);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if ((pat_algorithms[alg].flags & (PAT_ALGF_ARRIVAL | PAT_ALGF_NODES)) && (o->algs & (1u << alg)))
      printf("  %s: %s\n", pat_algorithms[alg].name, arrival_status(so.status[alg]));
  pat_select_cache_free(&c);
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
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if ((pat_algorithms[alg].flags & PAT_ALGF_CLASSIC) && (o->algs & (1u << alg)))
      time_classic(P, alg, a, ad, mp, block);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if ((pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) && (o->algs & (1u << alg)))
      time_arrival(P, alg, a, ad, mp, block);
  time_selection(o, mp, block, a);
  free(a);
  free(ad);
}

/* --select-timing: the selection alone, on the first pattern. */
static void select_timing(const opts *o, const pat_model_params *mp, double block, double tau, const double *csv) {
  int64_t *a = malloc((size_t)o->P * sizeof *a);
  make_pap(o, tau, 0, csv, a);
  pat_select_cache c;
  pat_select_cache_init(&c);
  pat_select_prepare(&c, o->P, o->algs, 0, mp->node && pat_model_link(mp, PAT_ALG_RING)->has_intra);
  pat_select_in in = {.P = o->P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME, .block_bytes = block, .mp = mp,
                      .allowed = o->algs, .bslb_roots = o->bslb_roots, .hierarchical = mp->shared_links};
  pat_select_out so;
  pat_select(&c, &in, &so); /* warm */
  printf("# selection at P=%d: chooses %s\n", o->P, so.alg >= 0 ? pat_algorithms[so.alg].name : "none");
  cpu_selection(&c, &in);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if ((o->algs & (1u << alg)) && pat_algorithms[alg].build) {
      char b[32];
      printf("  %-6s %s%s\n", pat_algorithms[alg].name,
             so.status[alg] == PAT_OK ? fmt_time(so.ebar_ns[alg] * 1e-9, b, sizeof b) : "-",
             so.status[alg] == PAT_OK ? "" : so.status[alg] == PAT_SELECT_SKIPPED ? " (not considered)"
                                          : so.status[alg] == PAT_SELECT_OVER_BUDGET ? " (over the per-call budget)"
                                                                                     : " (builder failed)");
    }
  pat_select_cache_free(&c);
  free(a);
}

/* ---- options ------------------------------------------------------------- */

enum { OPT_TAKEN = 0, OPT_BAD = -1, OPT_OTHER = 1 }; /* what an option group made of the option */

/* A count or byte size, kept as a double (exact up to 2^53). */
static int count_as_double(cli_args *a, int bytes, uint64_t min, double *out, cli_error *err) {
  uint64_t v;
  if (bytes ? cli_args_bytes(a, min, MAX_EXACT, &v, err) : cli_args_count(a, min, MAX_EXACT, &v, err)) return OPT_BAD;
  *out = (double)v;
  return OPT_TAKEN;
}

static int model_option(cli_args *a, model_args *m, cli_error *err) {
  const char *v;
  double bits;
  if (cli_args_is(a, "--model")) return cli_args_text(a, &m->file, err);
  if (cli_args_is(a, "--alpha")) return cli_args_time(a, CLI_S, &m->alpha, NULL, err);
  if (cli_args_is(a, "--beta")) return cli_args_time(a, CLI_S, &m->beta, NULL, err);
  if (cli_args_is(a, "--latency")) return cli_args_time(a, CLI_S, &m->latency, NULL, err);
  if (cli_args_is(a, "--intra-latency")) return cli_args_time(a, CLI_S, &m->intra_latency, NULL, err);
  if (cli_args_is(a, "--intra-rate")) {
    if (cli_args_text(a, &v, err) || cli_rate(a->opt, v, &bits, err)) return OPT_BAD;
    m->intra_rate = 1.0 / (bits / 8);
    return OPT_TAKEN;
  }
  if (cli_args_is(a, "--eager")) return count_as_double(a, 1, 0, &m->eager, err);
  if (cli_args_is(a, "--pace")) {
    if (cli_args_text(a, &v, err)) return OPT_BAD;
    if (!strcmp(v, "link")) {
      m->pace = -1;
      return OPT_TAKEN;
    }
    if (cli_rate(a->opt, v, &bits, err)) return OPT_BAD;
    m->pace = 1.0 / (bits / 8);
    return OPT_TAKEN;
  }
  if (!cli_args_is(a, "--rate")) return OPT_OTHER;
  if (cli_args_text(a, &v, err) || cli_rate(a->opt, v, &bits, err)) return OPT_BAD;
  m->rate = 1.0 / (bits / 8); /* seconds per byte */
  return OPT_TAKEN;
}

static int pattern_option(cli_args *a, opts *o, cli_error *err) {
  const char *v;
  if (cli_args_is(a, "--P")) return cli_args_int(a, 1, MAXP, &o->P, err);
  if (cli_args_is(a, "--ppn")) return cli_args_int(a, 1, MAXP, &o->ppn, err);
  if (cli_args_is(a, "--max-delay")) return cli_args_time(a, CLI_S, &o->max_delay, &o->max_delay_tau, err);
  if (cli_args_is(a, "--seed")) return cli_args_count(a, 0, UINT64_MAX, &o->seed, err);
  if (cli_args_is(a, "--reps")) return cli_args_int(a, 1, 1000000, &o->reps, err);
  if (cli_args_is(a, "--late-rank")) return cli_args_int(a, 0, MAXP - 1, &o->late_rank, err);
  if (cli_args_is(a, "--late-delay")) return cli_args_time(a, CLI_S, &o->late_delay, &o->late_delay_tau, err);
  if (cli_args_is(a, "--pap"))
    return cli_args_text(a, &v, err) || cli_choice(a->opt, v, "pattern", pap_kinds, 3, &o->pap, err) ? OPT_BAD
                                                                                                     : OPT_TAKEN;
  if (cli_args_is(a, "--csv")) {
    o->pap = PAP_CSV;
    return cli_args_text(a, &o->csv, err);
  }
  if (cli_args_is(a, "--bg-start")) {
    o->have_bg = 1;
    return cli_args_time(a, CLI_S, &o->bg_start, NULL, err);
  }
  return OPT_OTHER;
}

/* --algs: the algorithms with a schedule, added to the mask. */
static int algs_option(cli_args *a, unsigned *mask, cli_error *err) {
  const char *names[PAT_ALG_COUNT], *v;
  int ids[MAXLIST], n;
  for (int i = 0; i < PAT_ALG_COUNT; i++) names[i] = pat_algorithms[i].build ? pat_algorithms[i].name : NULL;
  if (cli_args_text(a, &v, err) || cli_choice_list(a->opt, v, "algorithm", names, PAT_ALG_COUNT, ids, MAXLIST, &n, err))
    return OPT_BAD;
  for (int k = 0; k < n; k++) *mask |= 1u << ids[k];
  return OPT_TAKEN;
}

static int sizes_option(cli_args *a, table_axes *t, cli_error *err) {
  const char *v;
  uint64_t N[MAXLIST];
  if (cli_args_text(a, &v, err) || cli_count_list(a->opt, v, 1, MAX_EXACT, N, MAXLIST, &t->nN, err)) return OPT_BAD;
  for (int i = 0; i < t->nN; i++) t->N[i] = (double)N[i];
  return OPT_TAKEN;
}

static int output_option(cli_args *a, tool_args *g, cli_error *err) {
  const char *v;
  if (cli_args_is(a, "--N")) return count_as_double(a, 0, 1, &g->o.N, err);
  if (cli_args_is(a, "--block")) return count_as_double(a, 1, 1, &g->o.block, err);
  if (cli_args_is(a, "--algs")) return cli_args_text(a, &g->o.algs_text, err);
  if (cli_args_is(a, "--coll")) {
    static const char *const colls[] = {"allgather", "allreduce"};
    return cli_args_text(a, &v, err) || cli_choice(a->opt, v, "collective", colls, 2, &g->o.allreduce, err)
               ? OPT_BAD
               : OPT_TAKEN;
  }
  if (cli_args_is(a, "--sizes")) return sizes_option(a, &g->table, err);
  if (cli_args_is(a, "--delays"))
    return cli_args_text(a, &v, err) ||
                   cli_time_list(a->opt, v, CLI_S, g->table.D, g->table.D_tau, MAXLIST, &g->table.nD, err)
               ? OPT_BAD
               : OPT_TAKEN;
  if (cli_args_is(a, "--bslb-roots")) return cli_args_int(a, 1, MAXP, &g->o.bslb_roots, err);
  if (cli_args_is(a, "--timing")) {
    g->o.timing = 1;
    return cli_args_flag(a, err);
  }
  if (cli_args_is(a, "--select-timing")) {
    g->o.select_timing = 1;
    return cli_args_flag(a, err);
  }
  if (cli_args_is(a, "--node-model")) {
    g->o.node_model = 1;
    return cli_args_flag(a, err);
  }
  if (cli_args_is(a, "--overlap")) {
    g->o.nbc = 1;
    return cli_args_time(a, CLI_S, &g->o.overlap, NULL, err);
  }
  if (cli_args_is(a, "--own-as")) {
    unsigned mask = 0;
    int rc = algs_option(a, &mask, err);
    for (int i = 0; i < PAT_ALG_COUNT; i++)
      if (mask == 1u << i) g->o.own_as = i;
    if (rc == OPT_TAKEN && mask != 1u << g->o.own_as) die("%s", "--own-as takes one algorithm");
    return rc;
  }
  return OPT_OTHER;
}

static void set_defaults(tool_args *g) {
  memset(g, 0, sizeof *g);
  g->o.P = 8;
  g->o.reps = 1;
  g->o.seed = 1;
  g->o.late_rank = -1; /* P-1 */
  g->o.late_delay = 10;
  g->o.late_delay_tau = 1;
  g->o.N = 1048576;
  g->o.bslb_roots = 1;
  g->o.own_as = PAT_ALG_RING;
  g->model.alpha = g->model.beta = g->model.latency = g->model.rate = g->model.eager = NAN;
  g->model.intra_latency = g->model.intra_rate = NAN;
}

/* The options that only make sense together. */
static void check_options(const tool_args *g) {
  if ((g->table.nN > 0) != (g->table.nD > 0)) die("%s", "--sizes and --delays go together");
  if (g->table.nN && g->o.pap != PAP_UNIFORM) die("%s", "the table varies maxDelay: use --pap uniform");
  if (g->o.pap == PAP_CSV && !g->o.csv) die("%s", "--pap csv needs --csv FILE");
  if (g->o.nbc && g->table.nN) die("%s", "--overlap prints its own table: leave out --sizes and --delays");
  if (g->o.allreduce && (g->o.nbc || g->table.nN || g->o.timing || g->o.select_timing || g->o.node_model))
    die("%s", "--coll allreduce takes none of --overlap, --sizes, --delays, --timing, --select-timing, --node-model");
}

/* --algs' names: the all-gather's algorithms with a schedule, or the all-reduce's; every one by default. */
static void name_algs(opts *o) {
  const int n = o->allreduce ? PAT_ARED_COUNT : PAT_ALG_COUNT;
  const char *names[(int)PAT_ALG_COUNT + (int)PAT_ARED_COUNT];
  for (int i = 0; i < n; i++)
    names[i] = o->allreduce ? pat_allreduce_algorithms[i].name : pat_algorithms[i].build ? pat_algorithms[i].name : NULL;
  if (!o->algs_text) {
    for (int i = 0; i < n; i++)
      if (names[i]) o->algs |= 1u << i;
    return;
  }
  int ids[MAXLIST], k;
  cli_error err;
  if (cli_choice_list("--algs", o->algs_text, "algorithm", names, n, ids, MAXLIST, &k, &err)) die("%s", err.text);
  for (int i = 0; i < k; i++) o->algs |= 1u << ids[i];
}

/* One option, whichever group takes it: OPT_TAKEN, or OPT_BAD with a message in *err. */
static int tool_option(cli_args *a, void *opts, cli_error *err) {
  tool_args *g = opts;
  int rc = model_option(a, &g->model, err);
  if (rc == OPT_OTHER) rc = pattern_option(a, &g->o, err);
  if (rc == OPT_OTHER) rc = output_option(a, g, err);
  if (rc == OPT_OTHER) rc = cli_args_unknown(a, err);
  return rc == OPT_TAKEN ? OPT_TAKEN : OPT_BAD;
}

/* Parses the command line into *g; exits after --help (0) or a bad option (2). */
static void parse_options(int argc, char **argv, tool_args *g) {
  set_defaults(g);
  cli_args_parse_or_exit(argc, argv, tool_option, g, "pat-model", usage);
  check_options(g);
  name_algs(&g->o);
}

/* ---- main ---------------------------------------------------------------- */

static void load_model(const model_args *m, pat_model_params *mp) {
  if (m->file) {
    char err[512];
    if (pat_model_read(m->file, mp, err, sizeof err)) die("%s", err);
    if (!isnan(m->alpha) || !isnan(m->beta) || !isnan(m->rate) || !isnan(m->latency))
      die("%s", "--model and --alpha/--beta/--rate/--latency exclude each other");
  } else {
    double alpha = isnan(m->latency) ? m->alpha : m->latency, beta = isnan(m->rate) ? m->beta : m->rate;
    if (isnan(alpha) || isnan(beta)) die("%s", "give --model FILE, or --alpha and --beta, or --rate and --latency");
    pat_model_params_init(mp, alpha, beta);
    snprintf(mp->made, sizeof mp->made, "command line");
  }
  if (!isnan(m->eager)) mp->eager_bytes = m->eager;
  if (!isnan(m->intra_rate)) { /* every algorithm's intra-node pair */
    const pat_hockney intra = {isnan(m->intra_latency) ? 0 : m->intra_latency, m->intra_rate};
    mp->dflt.has_intra = 1;
    mp->dflt.intra = intra;
    for (int i = 0; i < PAT_ALG_COUNT; i++)
      if (mp->alg[i].set) mp->alg[i].has_intra = 1, mp->alg[i].intra = intra;
  }
  if (m->pace < 0 && !(mp->link_set && mp->link.beta > 0)) die("%s", "--pace link: the model has no link line");
  mp->pace_beta = m->pace < 0 ? mp->link.beta : m->pace;
}

/* Measured arrivals for --pap csv (their number is P), else NULL; the late rank. */
static double *load_pattern(opts *o) {
  double *csv = NULL;
  if (o->pap == PAP_CSV) {
    csv = malloc(MAXP * sizeof *csv);
    o->P = read_csv(o->csv, csv, MAXP);
  }
  if (o->late_rank < 0) o->late_rank = o->P - 1;
  if (o->late_rank >= o->P) die("%s", "--late-rank must be < P");
  return csv;
}

/* --ppn K: K consecutive ranks per node, sharing its link. */
static int *place_ranks(const opts *o, pat_model_params *mp) {
  if (o->ppn <= 1) return NULL;
  int *node = malloc((size_t)o->P * sizeof *node);
  for (int i = 0; i < o->P; i++) node[i] = i / o->ppn;
  mp->node = node;
  mp->shared_links = o->ppn < o->P; /* several nodes: auto weighs the hierarchical algorithms too */
  static pat_nodes map; /* made once, for every build and replay */
  if (pat_nodes_make(o->P, node, &map) == PAT_OK) mp->nodes = &map;
  return node;
}

/* The table of winners: the algorithm with the smallest predicted ē of one cell. */
static void winner_cell(pat_select_cache *cache, const opts *o, const pat_model_params *mp, double block, double D,
                        int D_tau, const double *csv, char *cell, size_t size) {
  opts c = *o;
  c.max_delay = D;
  c.max_delay_tau = D_tau;
  double best = INFINITY, best_classic = INFINITY;
  int win = -1;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(o->algs & (1u << alg))) continue;
    pred p = predict(cache, alg, &c, mp, block, csv);
    if (p.rc) continue;
    if (pat_quantise_ns(p.ebar) < pat_quantise_ns(best)) {
      best = p.ebar;
      win = alg;
    }
    if ((pat_algorithms[alg].flags & PAT_ALGF_CLASSIC) && p.ebar < best_classic) best_classic = p.ebar;
  }
  if (win < 0)
    snprintf(cell, size, "-");
  else if (pat_algorithms[win].flags & PAT_ALGF_ARRIVAL)
    snprintf(cell, size, "%s x%.2f", pat_algorithms[win].name, best_classic / best);
  else
    snprintf(cell, size, "%s", pat_algorithms[win].name);
}

static void print_winner_table(pat_select_cache *cache, const opts *o, const pat_model_params *mp,
                               const table_axes *t, const double *csv) {
  printf("# pattern: P=%d, uniform delays in [0, maxDelay], %d pattern(s) per cell (seeds %llu..)\n", o->P, o->reps,
         (unsigned long long)o->seed);
  printf("# cell: the algorithm with the smallest predicted mean e; for an arrival-aware winner, its speed-up\n"
         "# over the best classic algorithm (x1.23).  Rows: N floats in the vector; columns: maxDelay.\n");
  printf("%-10s", "N \\ delay");
  for (int j = 0; j < t->nD; j++) {
    char b[32];
    if (t->D_tau[j])
      snprintf(b, sizeof b, "%gtau", t->D[j]);
    else
      fmt_time(t->D[j], b, sizeof b);
    printf(" %16s", b);
  }
  printf("\n");
  for (int i = 0; i < t->nN; i++) {
    double block = 4.0 * t->N[i] / o->P;
    printf("%-10.0f", t->N[i]);
    for (int j = 0; j < t->nD; j++) {
      char cell[40];
      winner_cell(cache, o, mp, block, t->D[j], t->D_tau[j], csv, cell, sizeof cell);
      printf(" %16s", cell);
    }
    printf("\n");
  }
}

static void print_pattern_heading(const opts *o, double block, double tau, const double *csv) {
  char pap[200], b1[32], b2[32];
  describe_pap(o, tau, pap, sizeof pap);
  printf("# pattern: P=%d, %s\n", o->P, pap);
  printf("# size: block %.6g bytes", block);
  if (o->block <= 0) printf(" (N = %.0f floats)", o->N);
  printf("; tau = %s (default parameters)\n", fmt_time(tau, b1, sizeof b1));
  if (o->pap != PAP_UNIFORM || o->reps == 1) {
    int64_t *a = malloc((size_t)o->P * sizeof *a);
    make_pap(o, tau, 0, csv, a);
    int64_t mx = 0;
    for (int i = 0; i < o->P; i++) mx = a[i] > mx ? a[i] : mx;
    printf("# omega = %s, omega/tau = %.3g\n", fmt_time(mx * 1e-9, b2, sizeof b2), mx * 1e-9 / tau);
    free(a);
  }
}

/* One line per algorithm: predicted ē, r, ē/ē_lb, and where the model has a
 * measured level, what auto predicts (level + the replay's response to the
 * pattern); then the lower bound. */
static void print_alg_rows(pat_select_cache *cache, const opts *o, const pat_model_params *mp, double block,
                           const double *csv) {
  char b1[32], b2[32];
  printf("%-6s %12s %12s %9s %12s %s\n", "alg", "ebar", "r", "ebar/lb", "as-auto", "note");
  double lb = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(o->algs & (1u << alg))) continue;
    pred p = predict(cache, alg, o, mp, block, csv);
    if (p.rc) {
      printf("%-6s %12s %12s %9s %12s cannot predict (%s)\n", pat_algorithms[alg].name, "-", "-", "-", "-",
             pat_status_string(p.rc));
      continue;
    }
    lb = p.lb;
    char note[64] = "", b3[32] = "-";
    if (isfinite(p.as_auto)) fmt_time(p.as_auto, b3, sizeof b3);
    if (pat_algorithms[alg].flags & PAT_ALGF_ROOTED) snprintf(note, sizeof note, "root %d", p.root);
    printf("%-6s %12s %12s %9.3f %12s %s\n", pat_algorithms[alg].name, fmt_time(p.ebar, b1, sizeof b1),
           fmt_time(p.r, b2, sizeof b2), p.lb > 0 ? p.ebar / p.lb : INFINITY, b3, note);
  }
  printf("%-6s %12s\n", "lower", fmt_time(lb, b1, sizeof b1));
}

/* What the selection (PAT_ALG=auto) would run on the first pattern. */
static void print_auto_choice(pat_select_cache *cache, const opts *o, const pat_model_params *mp, double block,
                              double tau, const double *csv) {
  int64_t *a = malloc((size_t)o->P * sizeof *a);
  make_pap(o, tau, 0, csv, a);
  double flat[PAT_ALG_COUNT]; /* the measured levels, as the decision engine gives them (decide/engine.c) */
  pat_model_measured_levels(mp, o->P, block, flat);
  pat_select_in in = {.P = o->P,
                      .arrival_ns = a,
                      .flat_s = flat,
                      .bg_start_ns = o->have_bg ? (int64_t)llround(o->bg_start * 1e9) : PAT_NO_TIME,
                      .block_bytes = block,
                      .mp = mp,
                      .allowed = o->algs,
                      .bslb_roots = o->bslb_roots,
                      .hierarchical = mp->shared_links};
  pat_select_out so;
  if (pat_select(cache, &in, &so) == PAT_OK)
    printf("# auto would choose: %s%s\n", so.alg >= 0 ? pat_algorithms[so.alg].name : "none",
           so.balanced ? " (balanced pattern: classic or plan-ahead only)" : "");
  free(a);
}

/* --overlap: the non-blocking form's e-bar per algorithm and MPI's own (model_nbc.h), over the patterns. */
static void print_nbc_rows(pat_select_cache *cache, const opts *o, const pat_model_params *mp, double block,
                           double tau, const double *csv) {
  char b1[32], b2[32], b3[32];
  int reps = o->pap == PAP_UNIFORM ? o->reps : 1;
  int64_t *a = malloc((size_t)o->P * sizeof *a);
  if (!a) die("%s", "out of memory");
  printf("# non-blocking: compute %s after each post, then the wait\n", fmt_time(o->overlap, b1, sizeof b1));
  printf("%-12s %12s %12s %9s %s\n", "alg", "ebar", "emax", "ebar/lb", "note");
  double lb = 0;
  for (int alg = -1; alg < PAT_ALG_COUNT; alg++) {
    int id = alg < 0 ? PAT_ALG_NATIVE : alg; /* MPI's own first */
    if (alg >= 0 && !(o->algs & (1u << alg))) continue;
    pat_nbc_prediction sum = {0, 0, 0}, one;
    int rc = PAT_OK;
    for (int rep = 0; rep < reps && rc == PAT_OK; rep++) {
      make_pap(o, tau, rep, csv, a);
      rc = pat_model_nbc(cache, id, o->own_as, o->P, a, o->overlap, block, mp, &one);
      sum.ebar += one.ebar / reps;
      sum.emax += one.emax / reps;
      sum.lb += one.lb / reps;
    }
    char note[64] = "";
    if (alg < 0) snprintf(note, sizeof note, "as %s's blocking call after the compute", pat_algorithms[o->own_as].name);
    else if (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD) snprintf(note, sizeof note, "started ahead");
    if (rc != PAT_OK) {
      printf("%-12s %12s %12s %9s cannot predict (%s)\n", alg < 0 ? "mpi-own" : pat_algorithms[alg].name, "-", "-",
             "-", pat_status_string(rc));
      continue;
    }
    lb = sum.lb;
    printf("%-12s %12s %12s %9.3f %s\n", alg < 0 ? "mpi-own" : pat_algorithms[alg].name,
           fmt_time(sum.ebar, b1, sizeof b1), fmt_time(sum.emax, b2, sizeof b2), sum.ebar / sum.lb, note);
  }
  printf("%-12s %12s\n", "lower", fmt_time(lb, b3, sizeof b3));
  free(a);
}

/* --coll allreduce: each all-reduce's schedule, built for the pattern (predicted = actual arrivals) and for
 * pieces of the vector's bytes, replayed; ē, r and ē over the all-reduce's bound, over the patterns. */
static void print_allreduce_rows(const opts *o, const pat_model_params *mp, double block, double tau,
                                 const double *csv) {
  char b1[32], b2[32];
  const int P = o->P, reps = o->pap == PAP_UNIFORM ? o->reps : 1;
  int64_t *a = malloc((size_t)P * sizeof *a);
  double *ad = malloc((size_t)P * sizeof *ad);
  if (!a || !ad) die("%s", "out of memory");
  printf("# all-reduce of %.6g bytes, gamma %.3g s/B%s\n", block * P, mp->gamma, mp->gamma_set ? "" : " (the default)");
  printf("%-13s %12s %12s %9s\n", "alg", "ebar", "r", "ebar/lb");
  double lb = 0; /* the bound, the same for every algorithm */
  for (int rep = 0; rep < reps; rep++) {
    make_pap(o, tau, rep, csv, a);
    for (int i = 0; i < P; i++) ad[i] = (double)a[i] * 1e-9;
    lb += pat_lower_bound_allreduce(P, ad, tau, mp->node, NULL) / reps;
  }
  for (int id = 0; id < PAT_ARED_COUNT; id++) {
    if (!(o->algs & (1u << id))) continue;
    double ebar = 0, r = 0;
    int rc = PAT_OK;
    for (int rep = 0; rep < reps && rc == PAT_OK; rep++) {
      make_pap(o, tau, rep, csv, a);
      for (int i = 0; i < P; i++) ad[i] = (double)a[i] * 1e-9;
      pat_build_args ba = {.P = P, .self = PAT_ALL_RANKS, .arrival = a, .tau = (int64_t)llround(tau * 1e9),
                           .node = mp->node, .block_bytes = (int64_t)block};
      pat_sched s;
      pat_model_result res;
      memset(&res, 0, sizeof res);
      rc = pat_build_allreduce(id, &s, &ba);
      if (rc == PAT_OK) {
        rc = pat_model_replay(&s, ad, mp, block, &res);
        pat_sched_free(&s);
      }
      ebar += res.ebar / reps;
      r += res.r / reps;
    }
    if (rc != PAT_OK) {
      printf("%-13s %12s %12s %9s cannot predict (%s)\n", pat_allreduce_algorithms[id].name, "-", "-", "-",
             pat_status_string(rc));
      continue;
    }
    printf("%-13s %12s %12s %9.3f\n", pat_allreduce_algorithms[id].name, fmt_time(ebar, b1, sizeof b1),
           fmt_time(r, b2, sizeof b2), lb > 0 ? ebar / lb : INFINITY);
  }
  printf("%-13s %12s\n", "lower", fmt_time(lb, b1, sizeof b1));
  free(a);
  free(ad);
}

static void print_predictions(pat_select_cache *cache, const opts *o, const pat_model_params *mp,
                              const double *csv) {
  double block = o->block > 0 ? o->block : 4.0 * o->N / o->P;
  double tau = pat_model_cost(mp->dflt.inter, block, 1.0);
  print_pattern_heading(o, block, tau, csv);
  if (o->allreduce) {
    print_allreduce_rows(o, mp, block, tau, csv);
    return;
  }
  if (o->nbc) {
    print_nbc_rows(cache, o, mp, block, tau, csv);
    return;
  }
  print_alg_rows(cache, o, mp, block, csv);
  if (o->reps == 1 || o->pap != PAP_UNIFORM) print_auto_choice(cache, o, mp, block, tau, csv);
  if (o->timing) timing(o, mp, block);
  if (o->select_timing) select_timing(o, mp, block, tau, csv);
}

int main(int argc, char **argv) {
  tool_args g;
  parse_options(argc, argv, &g);
  pat_model_params mp;
  load_model(&g.model, &mp);
  double *csv = load_pattern(&g.o);
  int *node = place_ranks(&g.o, &mp);

  /* header: the command line and the parameters */
  printf("#");
  for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  print_model(&mp, &g.o);

  pat_select_cache cache;
  pat_select_cache_init(&cache);
  if (g.table.nN)
    print_winner_table(&cache, &g.o, &mp, &g.table, csv);
  else
    print_predictions(&cache, &g.o, &mp, csv);
  pat_select_cache_free(&cache);
  free(csv);
  free(node);
  return 0;
}
