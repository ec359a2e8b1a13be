/* The replay reproduces the classic closed forms on balanced arrivals, and
 * its two engines agree bit for bit on every classic schedule under random
 * arrivals, node maps and background start times. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "model/model.h"
#include "testutil.h"

static const double ALPHA = 2.5e-5, BETA = 8e-9, M = 4096; /* m: block bytes */

static double c(double blocks) { return ALPHA + BETA * blocks * M; }
static int close_to(double x, double y) { return fabs(x - y) <= 1e-12 * fabs(y) + 1e-18; }
static int ceil_log2(int P) {
  int L = 0;
  while ((1 << L) < P) L++;
  return L;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void) { /* xorshift64, [0,1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* replay with both engines; check they agree exactly; return FAST's */
static int replay2(const pat_sched *s, const double *a, pat_model_params *mp, double m, double *f, pat_model_result *res) {
  int P = s->P;
  double *f2 = malloc((size_t)P * sizeof *f2);
  pat_model_result r1 = {0}, r2 = {0};
  r1.f = f;
  r2.f = f2;
  mp->engine = PAT_ENGINE_AUTO;
  int rc1 = pat_model_replay(s, a, mp, m, &r1);
  mp->engine = PAT_ENGINE_EVENT;
  int rc2 = pat_model_replay(s, a, mp, m, &r2);
  mp->engine = PAT_ENGINE_AUTO;
  int same = rc1 == rc2 && (rc1 != PAT_OK || (r1.ebar == r2.ebar && r1.r == r2.r && r1.transfers == r2.transfers &&
                                              memcmp(f, f2, (size_t)P * sizeof *f) == 0));
  if (!same) fprintf(stderr, "  engines differ (alg %d P=%d): rc %d/%d ebar %.17g/%.17g\n", s->alg, P, rc1, rc2, r1.ebar, r2.ebar);
  if (res) *res = r1;
  free(f2);
  return rc1 == PAT_OK && same;
}

int main(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, ALPHA, BETA);
  double *f = malloc(4096 * sizeof *f), *a = malloc(4096 * sizeof *a);

  /* ---- closed forms, balanced arrivals ---- */
  for (int P = 2; P <= 70; P++) {
    pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, 0, 0, 0};
    pat_sched s;
    pat_model_result res;

    CHECK(pat_build(PAT_ALG_RING, &s, &args) == PAT_OK, "build ring");
    CHECK(replay2(&s, NULL, &mp, M, f, &res), "ring P=%d", P);
    for (int i = 0; i < P; i++) CHECK(close_to(f[i], (P - 1) * c(1)), "ring P=%d f[%d]=%g, expected %g", P, i, f[i], (P - 1) * c(1));
    CHECK(res.engine == PAT_ENGINE_FAST, "ring should take the fast engine");
    pat_sched_free(&s);

    double nex = P % 2 ? (P - 1) * c(1) : c(1) + (P / 2 - 1) * c(2);
    CHECK(pat_build(PAT_ALG_NEX, &s, &args) == PAT_OK, "build nex");
    CHECK(replay2(&s, NULL, &mp, M, f, &res), "nex P=%d", P);
    for (int i = 0; i < P; i++) CHECK(close_to(f[i], nex), "nex P=%d f[%d]=%g, expected %g", P, i, f[i], nex);
    pat_sched_free(&s);

    double bruck = 0;
    for (int d = 1; d < P; d *= 2) bruck += c(d < P - d ? d : P - d);
    CHECK(pat_build(PAT_ALG_BRUCK, &s, &args) == PAT_OK, "build bruck");
    CHECK(replay2(&s, NULL, &mp, M, f, &res), "bruck P=%d", P);
    for (int i = 0; i < P; i++) CHECK(close_to(f[i], bruck), "bruck P=%d f[%d]=%g, expected %g", P, i, f[i], bruck);
    pat_sched_free(&s);

    CHECK(pat_build(PAT_ALG_RDB, &s, &args) == PAT_OK, "build rdb");
    CHECK(replay2(&s, NULL, &mp, M, f, &res), "rdb P=%d", P);
    if ((P & (P - 1)) == 0) {
      double rdb = ceil_log2(P) * ALPHA + (P - 1) * BETA * M;
      for (int i = 0; i < P; i++) CHECK(close_to(f[i], rdb), "rdb P=%d f[%d]=%g, expected %g", P, i, f[i], rdb);
    }
    pat_sched_free(&s);

    /* LNBC: the root's receive port serialises the gather (senders in rank
     * order on equal arrivals), then ceil(log2 P) rounds of P-1 blocks. */
    for (int root = 0; root < P; root += 7) {
      args.root = root;
      CHECK(pat_build(PAT_ALG_LNBC, &s, &args) == PAT_OK, "build lnbc");
      CHECK(replay2(&s, NULL, &mp, M, f, &res), "lnbc P=%d", P);
      double lnbc = (P - 1) * c(1) + ceil_log2(P) * c(P - 1);
      CHECK(close_to(f[root], lnbc), "lnbc P=%d root f=%g, expected %g", P, f[root], lnbc);
      CHECK(close_to(res.r, lnbc), "lnbc P=%d r=%g, expected %g", P, res.r, lnbc);
      /* relative rank v gets the vector in round floor(log2 v) */
      for (int v = 1; v < P; v++) {
        int j = 0;
        while ((2 << j) <= v) j++;
        int last = j; /* then it sends in rounds k > j while v + 2^k < P */
        for (int k = j + 1; (1 << k) < P; k++)
          if (v + (1 << k) < P) last = k;
        double expect = (P - 1) * c(1) + (last + 1) * c(P - 1);
        int r = (v + root) % P;
        CHECK(close_to(f[r], expect), "lnbc P=%d root %d rank %d f=%g, expected %g", P, root, r, f[r], expect);
      }
      pat_sched_free(&s);
    }
  }

  /* ---- engines agree on random arrivals, bg_start, node maps ---- */
  int *node = malloc(4096 * sizeof *node);
  const int algs[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC, PAT_ALG_DIRECT};
  int cases = 0;
  for (int P = 1; P <= 48; P++)
    for (size_t ai = 0; ai < sizeof algs / sizeof *algs; ai++)
      for (int trial = 0; trial < 4; trial++) {
        pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, (int)(urand() * P), 0, 0};
        pat_sched s;
        CHECK(pat_build(algs[ai], &s, &args) == PAT_OK, "build");
        double spread = trial == 0 ? 0 : (trial == 1 ? c(1) * 0.5 : c(1) * 20);
        for (int i = 0; i < P; i++) a[i] = 1.7e9 + spread * urand(); /* epoch-like origin */
        if (trial == 3) a[(int)(urand() * P)] += c(1) * 50;
        pat_model_params m2;
        pat_model_params_init(&m2, ALPHA, BETA);
        if (trial >= 2) {
          for (int i = 0; i < P; i++) node[i] = i / 4;
          m2.node = node;
          m2.dflt.has_intra = 1;
          m2.dflt.intra.alpha = ALPHA / 10;
          m2.dflt.intra.beta = BETA / 4;
          m2.bg_start = 1.7e9 + spread * 0.3;
        }
        CHECK(replay2(&s, a, &m2, M, f, NULL), "random PAP alg %s P=%d trial %d", pat_algorithms[algs[ai]].name, P, trial);
        /* everyone leaves after arriving; nobody before the last arrival's block could reach it */
        double amax = a[0];
        for (int i = 0; i < P; i++) amax = a[i] > amax ? a[i] : amax;
        for (int i = 0; i < P; i++) CHECK(f[i] >= a[i] && (P == 1 || f[i] >= amax), "f < a or f < max a");
        pat_sched_free(&s);
        cases++;
      }
  printf("closed forms ok; %d random cases agree\n", cases);
  free(node);
  free(f);
  free(a);
  return TEST_RESULT();
}
