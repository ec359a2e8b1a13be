/*
 * pat-arrival-bench: modelled comparison of the all-gather algorithms on
 * random process arrival patterns, and the cost of building the
 * arrival-aware schedules.
 *
 * For each P: `trials` PAPs with arrival delays uniform in [0, maxDelay]
 * (the mini-benchmark's pattern); every algorithm's schedule is built for the
 * predicted (= actual) PAP with tau = alpha + beta * block, replayed by the
 * cost model (src/model/model.h), and compared with the receive-port lower
 * bound.  Prints mean ē, ē/ē_lb (ratio of the means) and the speed-up of the
 * best arrival-aware algorithm over the best classic one; then the CPU time
 * to build one rank's schedule (mean over ranks of one PAP) and every rank's.
 *
 *   pat-arrival-bench -P 8,16,48,128,1024 -N 1048576 --delay 50 --alpha 50 --gbit 1
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/algorithms.h"
#include "model/model.h"
#include "tools/cli.h"

#define MAXLIST 64 /* values of -P and --algs */
#define MAXP 65536

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: robust on a busy machine */
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 88172645463325252ull;
static double urand(void) { /* [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: pat-arrival-bench [options]\n"
          "  -P LIST        process counts (default 8,16,48,128,1024)\n"
          "  -N FLOATS      floats in the gathered vector (default 1048576)\n"
          "  --delay MS     maximal arrival delay, uniform in [0, MS] (default 50)\n"
          "  --alpha US     latency per message, microseconds (default 50)\n"
          "  --gbit G       link bandwidth, Gbit/s (default 1)\n"
          "  --trials T     PAPs per P (default 20; fewer above P=256)\n"
          "  --algs LIST    algorithms (default ring,nex,rdb,bruck,lnbc,bdr,bslb,ard)\n"
          "  --seed S       PRNG seed\n"
          "  --no-build     skip the build timing\n"
          "counts: k, m, g = 2^10, 2^20, 2^30 (-N 1M); times: also with a unit (--delay 500us).\n");
}

/* ---- options ------------------------------------------------------------- */

typedef struct bench_opts {
  int P[MAXLIST], nP;
  int algs[MAXLIST], nalg;
  double N, delay_ms, alpha_us, gbit;
  int trials, build;
} bench_opts;

static const int default_P[] = {8, 16, 48, 128, 1024};
static const char default_algs[] = "ring,nex,rdb,bruck,lnbc,bdr,bslb,ard";

static int algs_option(const char *opt, const char *list, bench_opts *o, cli_error *err) {
  const char *names[PAT_ALG_COUNT]; /* the algorithms with a schedule */
  for (int i = 0; i < PAT_ALG_COUNT; i++) names[i] = pat_algorithms[i].build ? pat_algorithms[i].name : NULL;
  return cli_choice_list(opt, list, "algorithm", names, PAT_ALG_COUNT, o->algs, MAXLIST, &o->nalg, err);
}

static int P_option(cli_args *a, bench_opts *o, cli_error *err) {
  const char *v;
  uint64_t P[MAXLIST];
  if (cli_args_text(a, &v, err) || cli_count_list(a->opt, v, 2, MAXP, P, MAXLIST, &o->nP, err)) return -1;
  for (int i = 0; i < o->nP; i++) o->P[i] = (int)P[i];
  return 0;
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  bench_opts *o = opts;
  const char *v;
  uint64_t n;
  if (cli_args_is(a, "--no-build")) {
    o->build = 0;
    return cli_args_flag(a, err);
  }
  if (cli_args_is(a, "-P")) return P_option(a, o, err);
  if (cli_args_is(a, "--delay")) return cli_args_time(a, CLI_MS, &o->delay_ms, NULL, err);
  if (cli_args_is(a, "--alpha")) return cli_args_time(a, CLI_US, &o->alpha_us, NULL, err);
  if (cli_args_is(a, "--gbit")) return cli_args_real(a, 1e-9, 1e9, &o->gbit, err);
  if (cli_args_is(a, "--trials")) return cli_args_int(a, 1, 1000000, &o->trials, err);
  if (cli_args_is(a, "--algs")) return cli_args_text(a, &v, err) || algs_option(a->opt, v, o, err) ? -1 : 0;
  if (cli_args_is(a, "-N")) {
    if (cli_args_count(a, 1, 9007199254740992u, &n, err)) return -1; /* exact as a double */
    o->N = (double)n;
    return 0;
  }
  if (cli_args_is(a, "--seed")) {
    if (cli_args_count(a, 0, UINT64_MAX, &n, err)) return -1;
    rng_state = n | 1;
    return 0;
  }
  return cli_args_unknown(a, err);
}

/* Parses the command line into *o; exits after --help (0) or a bad option (2). */
static void parse_options(int argc, char **argv, bench_opts *o) {
  *o = (bench_opts){.N = 1048576, .delay_ms = 50, .alpha_us = 50, .gbit = 1, .trials = 20, .build = 1};
  cli_args_parse_or_exit(argc, argv, parse_option, o, "pat-arrival-bench", usage);
  if (!o->nP) {
    o->nP = (int)(sizeof default_P / sizeof *default_P);
    memcpy(o->P, default_P, sizeof default_P);
  }
  cli_error unused; /* the default list is valid */
  if (!o->nalg) algs_option("--algs", default_algs, o, &unused);
}

/* ---- one P --------------------------------------------------------------- */

/* The model at one P: the block, its time tau, and the PAPs to try. */
typedef struct setup {
  int P, trials;
  double alpha, beta, block, tau;
  int64_t tau_ns;
  pat_model_params mp;
} setup;

static setup make_setup(const bench_opts *o, int P) {
  setup s = {.P = P, .alpha = o->alpha_us * 1e-6, .beta = 8e-9 / o->gbit};
  s.block = 4.0 * o->N / P;
  s.tau = s.alpha + s.beta * s.block;
  s.tau_ns = (int64_t)llround(s.tau * 1e9);
  s.trials = P > 256 ? (o->trials < 3 ? o->trials : 3) : o->trials;
  pat_model_params_init(&s.mp, s.alpha, s.beta);
  return s;
}

/* One random PAP: arrival delays uniform in [0, delay_ms]. */
static void random_pap(const bench_opts *o, int P, int64_t *arr_ns, double *arr) {
  for (int r = 0; r < P; r++) {
    arr_ns[r] = (int64_t)llround(urand() * o->delay_ms * 1e6);
    arr[r] = 1e-9 * (double)arr_ns[r];
  }
}

/* ē of alg for one PAP, added to *sum; -1 after saying what failed. */
static int add_ebar(const setup *s, int alg, const int64_t *arr_ns, const double *arr, double *e, double *sum) {
  pat_build_args ba = {.P = s->P, .self = PAT_ALL_RANKS, .arrival = arr_ns, .tau = s->tau_ns, .alpha = (int64_t)llround(s->alpha * 1e9)};
  pat_sched sc;
  if (pat_build(alg, &sc, &ba) != PAT_OK) {
    fprintf(stderr, "build of %s failed at P=%d\n", pat_algorithms[alg].name, s->P);
    return -1;
  }
  pat_model_result res = {0};
  res.e = e;
  int rc = pat_model_replay(&sc, arr, &s->mp, s->block, &res);
  pat_sched_free(&sc);
  if (rc != PAT_OK) {
    fprintf(stderr, "replay of %s failed at P=%d\n", pat_algorithms[alg].name, s->P);
    return -1;
  }
  *sum += res.ebar;
  return 0;
}

/* Sums of ē per algorithm and of ē_lb over the trials; arr_ns keeps the last PAP. */
static int simulate(const bench_opts *o, const setup *s, int64_t *arr_ns, double *sum_e, double *sum_lb) {
  const int P = s->P;
  double *arr = malloc(P * sizeof *arr), *e = malloc(P * sizeof *e);
  int rc = 0;
  for (int t = 0; t < s->trials && !rc; t++) {
    random_pap(o, P, arr_ns, arr);
    *sum_lb += pat_lower_bound(P, arr, s->tau, NULL);
    for (int k = 0; k < o->nalg && !rc; k++) rc = add_ebar(s, o->algs[k], arr_ns, arr, e, &sum_e[o->algs[k]]);
  }
  free(arr);
  free(e);
  return rc;
}

static void print_results(const bench_opts *o, const setup *s, const double *sum_e, double sum_lb) {
  const double lb = sum_lb / s->trials;
  printf("\nP = %d: block %.0f B, tau = %.1f us, omega/tau ~ %.0f, %d PAPs, ē_lb = %.3f ms\n", s->P, s->block,
         s->tau * 1e6, o->delay_ms * 1e-3 / s->tau, s->trials, lb * 1e3);
  printf("  %-6s %10s %8s\n", "alg", "ē (ms)", "ē/ē_lb");
  double best_classic = INFINITY, best_arrival = INFINITY;
  int bc = -1, ba = -1;
  for (int k = 0; k < o->nalg; k++) {
    int alg = o->algs[k];
    double m = sum_e[alg] / s->trials;
    printf("  %-6s %10.3f %8.3f\n", pat_algorithms[alg].name, m * 1e3, m / lb);
    if (pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) {
      if (m < best_arrival) best_arrival = m, ba = alg;
    } else if (m < best_classic) {
      best_classic = m, bc = alg;
    }
  }
  if (bc >= 0 && ba >= 0)
    printf("  best classic %s, best arrival-aware %s: speed-up %.2fx\n", pat_algorithms[bc].name,
           pat_algorithms[ba].name, best_classic / best_arrival);
}

/* CPU time to build one rank's schedule (cycling over the ranks) and every rank's. */
static void time_build(const setup *s, int alg, const int64_t *arr_ns) {
  const int P = s->P;
  pat_build_args ba = {.P = P, .self = PAT_ALL_RANKS, .arrival = arr_ns, .tau = s->tau_ns, .alpha = (int64_t)llround(s->alpha * 1e9)};
  pat_sched sc;
  double t0 = now();
  int reps = 0;
  do {
    ba.self = reps % P;
    pat_build(alg, &sc, &ba);
    pat_sched_free(&sc);
    reps++;
  } while (now() - t0 < 0.2 || reps < (P < 64 ? P : 64));
  double one = (now() - t0) / reps;
  ba.self = PAT_ALL_RANKS;
  t0 = now();
  pat_build(alg, &sc, &ba);
  double all = now() - t0;
  printf("  build %-5s one rank %8.3f ms   all ranks %8.3f ms (%zu ops)\n", pat_algorithms[alg].name, one * 1e3,
         all * 1e3, sc.nops);
  pat_sched_free(&sc);
}

static int bench_P(const bench_opts *o, int P) {
  setup s = make_setup(o, P);
  int64_t *arr_ns = malloc(P * sizeof *arr_ns);
  double sum_e[PAT_ALG_COUNT] = {0}, sum_lb = 0;
  int rc = simulate(o, &s, arr_ns, sum_e, &sum_lb);
  if (!rc) print_results(o, &s, sum_e, sum_lb);
  for (int k = 0; k < o->nalg && o->build && !rc; k++)
    if (pat_algorithms[o->algs[k]].flags & PAT_ALGF_ARRIVAL) time_build(&s, o->algs[k], arr_ns);
  free(arr_ns);
  return rc;
}

int main(int argc, char **argv) {
  bench_opts o;
  parse_options(argc, argv, &o);
  printf("# model: alpha = %.1f us, beta = %.3f ns/B (%.3g Gbit/s), N = %.0f floats, delays uniform in [0, %.1f] ms\n",
         o.alpha_us, 8e-9 / o.gbit * 1e9, o.gbit, o.N, o.delay_ms);
  for (int i = 0; i < o.nP; i++)
    if (bench_P(&o, o.P[i])) return 1;
  return 0;
}
