/*
 * pat-arrival-bench: modelled comparison of the all-gather algorithms on
 * random process arrival patterns, and the cost of building the
 * arrival-aware schedules.
 *
 * For each P: `trials` PAPs with arrival delays uniform in [0, maxDelay]
 * (the mini-benchmark's pattern); every algorithm's schedule is built for the
 * predicted (= actual) PAP with tau = alpha + beta * block, replayed by the
 * cost model (src/model.h), and compared with the receive-port lower bound.
 * Prints mean ē, ē/ē_lb (ratio of the means) and the speed-up of the best
 * arrival-aware algorithm over the best classic one; then the CPU time to
 * build one rank's schedule (mean over ranks of one PAP) and every rank's.
 *
 *   pat-arrival-bench -P 8,16,48,128,1024 -N 1048576 --delay 50 --alpha 50 --gbit 1
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/algorithms.h"
#include "model/model.h"

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
          "  --no-build     skip the build timing\n");
}

int main(int argc, char **argv) {
  char plist[256] = "8,16,48,128,1024", alist[256] = "ring,nex,rdb,bruck,lnbc,bdr,bslb,ard";
  double N = 1048576, delay_ms = 50, alpha_us = 50, gbit = 1;
  int trials = 20, build = 1;
  static const struct option lo[] = {{"delay", 1, 0, 'd'}, {"alpha", 1, 0, 'a'}, {"gbit", 1, 0, 'g'},
                                     {"trials", 1, 0, 't'}, {"algs", 1, 0, 'A'}, {"seed", 1, 0, 's'},
                                     {"no-build", 0, 0, 'B'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "P:N:h", lo, NULL)) != -1) {
    switch (c) {
    case 'P': snprintf(plist, sizeof plist, "%s", optarg); break;
    case 'N': N = atof(optarg); break;
    case 'd': delay_ms = atof(optarg); break;
    case 'a': alpha_us = atof(optarg); break;
    case 'g': gbit = atof(optarg); break;
    case 't': trials = atoi(optarg); break;
    case 'A': snprintf(alist, sizeof alist, "%s", optarg); break;
    case 's': rng_state = strtoull(optarg, NULL, 0) | 1; break;
    case 'B': build = 0; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  int algs[PAT_ALG_COUNT], nalg = 0;
  for (char *tok = strtok(alist, ","); tok; tok = strtok(NULL, ",")) {
    int id = pat_alg_by_name(tok);
    if (id < 0 || !pat_algorithms[id].build) {
      fprintf(stderr, "pat-arrival-bench: no schedule for algorithm '%s' (valid: %s)\n", tok, pat_alg_names());
      return 2;
    }
    algs[nalg++] = id;
  }
  const double alpha = alpha_us * 1e-6, beta = 8e-9 / gbit;
  printf("# model: alpha = %.1f us, beta = %.3f ns/B (%.3g Gbit/s), N = %.0f floats, delays uniform in [0, %.1f] ms\n",
         alpha_us, beta * 1e9, gbit, N, delay_ms);

  for (char *tok = strtok(plist, ","); tok; tok = strtok(NULL, ",")) {
    const int P = atoi(tok);
    if (P < 2) continue;
    const double block = 4.0 * N / P, tau = alpha + beta * block;
    const int64_t tau_ns = (int64_t)llround(tau * 1e9);
    const int T = P > 256 ? (trials < 3 ? trials : 3) : trials;
    double *arr = malloc(P * sizeof *arr), *e = malloc(P * sizeof *e);
    int64_t *arr_ns = malloc(P * sizeof *arr_ns);
    double sum_e[PAT_ALG_COUNT] = {0}, sum_lb = 0;
    pat_model_params mp;
    pat_model_params_init(&mp, alpha, beta);
    for (int t = 0; t < T; t++) {
      for (int r = 0; r < P; r++) {
        arr_ns[r] = (int64_t)llround(urand() * delay_ms * 1e6);
        arr[r] = 1e-9 * (double)arr_ns[r];
      }
      sum_lb += pat_lower_bound(P, arr, tau, NULL);
      for (int k = 0; k < nalg; k++) {
        pat_build_args ba = {P, PAT_ALL_RANKS, arr_ns, tau_ns, 0, (int64_t)llround(alpha * 1e9)};
        pat_sched s;
        if (pat_build(algs[k], &s, &ba) != PAT_OK) {
          fprintf(stderr, "build of %s failed at P=%d\n", pat_algorithms[algs[k]].name, P);
          return 1;
        }
        pat_model_result res = {0};
        res.e = e;
        if (pat_model_replay(&s, arr, &mp, block, &res) != PAT_OK) {
          fprintf(stderr, "replay of %s failed at P=%d\n", pat_algorithms[algs[k]].name, P);
          return 1;
        }
        sum_e[algs[k]] += res.ebar;
        pat_sched_free(&s);
      }
    }
    const double lb = sum_lb / T;
    printf("\nP = %d: block %.0f B, tau = %.1f us, omega/tau ~ %.0f, %d PAPs, ē_lb = %.3f ms\n", P, block, tau * 1e6,
           delay_ms * 1e-3 / tau, T, lb * 1e3);
    printf("  %-6s %10s %8s\n", "alg", "ē (ms)", "ē/ē_lb");
    double best_classic = INFINITY, best_arrival = INFINITY;
    int bc = -1, ba_ = -1;
    for (int k = 0; k < nalg; k++) {
      double m = sum_e[algs[k]] / T;
      printf("  %-6s %10.3f %8.3f\n", pat_algorithms[algs[k]].name, m * 1e3, m / lb);
      if (pat_algorithms[algs[k]].flags & PAT_ALGF_ARRIVAL) {
        if (m < best_arrival) best_arrival = m, ba_ = algs[k];
      } else if (m < best_classic) {
        best_classic = m, bc = algs[k];
      }
    }
    if (bc >= 0 && ba_ >= 0)
      printf("  best classic %s, best arrival-aware %s: speed-up %.2fx\n", pat_algorithms[bc].name,
             pat_algorithms[ba_].name, best_classic / best_arrival);
    for (int k = 0; k < nalg && build; k++) {
      if (!(pat_algorithms[algs[k]].flags & PAT_ALGF_ARRIVAL)) continue;
      pat_build_args ba = {P, PAT_ALL_RANKS, arr_ns, tau_ns, 0, (int64_t)llround(alpha * 1e9)};
      pat_sched s;
      double t0 = now();
      int reps = 0;
      do { /* one rank's schedule, cycling over the ranks */
        ba.self = reps % P;
        pat_build(algs[k], &s, &ba);
        pat_sched_free(&s);
        reps++;
      } while (now() - t0 < 0.2 || reps < (P < 64 ? P : 64));
      double one = (now() - t0) / reps;
      ba.self = PAT_ALL_RANKS;
      t0 = now();
      pat_build(algs[k], &s, &ba);
      double all = now() - t0;
      printf("  build %-5s one rank %8.3f ms   all ranks %8.3f ms (%zu ops)\n", pat_algorithms[algs[k]].name,
             one * 1e3, all * 1e3, s.nops);
      pat_sched_free(&s);
    }
    free(arr);
    free(e);
    free(arr_ns);
  }
  return 0;
}
