/* The fluid replay reproduces the classic closed forms on balanced
 * arrivals, is deterministic, and the compiled programs the selection uses
 * (closed form, port groups shared by processor sharing) give what it gives
 * on every classic schedule under random arrivals, node maps and background
 * start times (bit for bit where no port is shared). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "model/model.h"
#include "model/model_prog.h"
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

/* replay twice (the replay must be deterministic); return the first */
static int replay2(const pat_sched *s, const double *a, pat_model_params *mp, double m, double *f, pat_model_result *res) {
  int P = s->P;
  double *f2 = malloc((size_t)P * sizeof *f2);
  pat_model_result r1 = {0}, r2 = {0};
  r1.f = f;
  r2.f = f2;
  int rc1 = pat_model_replay(s, a, mp, m, &r1);
  int rc2 = pat_model_replay(s, a, mp, m, &r2);
  int same = rc1 == rc2 && (rc1 != PAT_OK || (r1.ebar == r2.ebar && r1.r == r2.r && r1.transfers == r2.transfers &&
                                              memcmp(f, f2, (size_t)P * sizeof *f) == 0));
  if (!same) fprintf(stderr, "  replays differ (alg %d P=%d): rc %d/%d ebar %.17g/%.17g\n", s->alg, P, rc1, rc2, r1.ebar, r2.ebar);
  if (res) *res = r1;
  free(f2);
  return rc1 == PAT_OK && same;
}

/* The compiled program of s's algorithm against the replay's exits f (the
 * program defers on mesh steps: nothing to compare then), within the
 * rounding of f's origin and of processor sharing (test_select checks the
 * bit-exact agreement on small origins). */
static int prog_agrees(const pat_sched *s, int root, const double *a, const pat_model_params *mp, double m,
                       const double *f) {
  const int P = s->P;
  pat_prog *g;
  if (pat_prog_compile(&g, s->alg, P, root, 1) != PAT_OK) return 0;
  double amin = a ? a[0] : 0, *ar = malloc((size_t)P * sizeof *ar), *fp = malloc((size_t)P * sizeof *fp);
  for (int i = 0; a && i < P; i++) amin = a[i] < amin ? a[i] : amin;
  for (int i = 0; i < P; i++) ar[i] = a ? a[i] - amin : 0;
  pat_model_params m2 = *mp;
  m2.bg_start = mp->bg_start - amin;
  pat_model_result r = {0};
  r.f = fp;
  int rc = pat_prog_eval(g, ar, &m2, m, &r), ok = rc == PAT_OK || rc == PAT_MODEL_FALLBACK;
  for (int i = 0; i < P && rc == PAT_OK; i++) {
    /* f is on the arrivals' origin (epoch-like here): compare within its rounding */
    double want = f[i] - amin, tol = 4 * 2.2e-16 * fabs(amin) + 1e-9 * fabs(want) + 1e-15;
    if (fabs(fp[i] - want) > tol) {
      fprintf(stderr, "  alg %d P=%d rank %d: program %.17g, replay %.17g\n", s->alg, P, i, fp[i], want);
      ok = 0;
      break;
    }
  }
  pat_prog_free(g);
  free(ar);
  free(fp);
  return ok;
}

int main(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, ALPHA, BETA);
  double *f = malloc(4096 * sizeof *f), *a = malloc(4096 * sizeof *a);

  /* ---- closed forms, balanced arrivals ---- */
  for (int P = 2; P <= 70; P++) {
    pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, 0, 0, 0, NULL, NULL, NULL};
    pat_sched s;
    pat_model_result res;

    CHECK(pat_build(PAT_ALG_RING, &s, &args) == PAT_OK, "build ring");
    CHECK(replay2(&s, NULL, &mp, M, f, &res), "ring P=%d", P);
    for (int i = 0; i < P; i++) CHECK(close_to(f[i], (P - 1) * c(1)), "ring P=%d f[%d]=%g, expected %g", P, i, f[i], (P - 1) * c(1));
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

    /* LNBC: the P-1 senders of the gather share the root's receive port
     * (alpha once, then P-1 blocks through one port), then ceil(log2 P)
     * rounds of P-1 blocks. */
    for (int root = 0; root < P; root += 7) {
      args.root = root;
      CHECK(pat_build(PAT_ALG_LNBC, &s, &args) == PAT_OK, "build lnbc");
      CHECK(replay2(&s, NULL, &mp, M, f, &res), "lnbc P=%d", P);
      const double gather = ALPHA + (P - 1) * BETA * M;
      double lnbc = gather + ceil_log2(P) * c(P - 1);
      CHECK(close_to(f[root], lnbc), "lnbc P=%d root f=%g, expected %g", P, f[root], lnbc);
      CHECK(close_to(res.r, lnbc), "lnbc P=%d r=%g, expected %g", P, res.r, lnbc);
      /* relative rank v gets the vector in round floor(log2 v) */
      for (int v = 1; v < P; v++) {
        int j = 0;
        while ((2 << j) <= v) j++;
        int last = j; /* then it sends in rounds k > j while v + 2^k < P */
        for (int k = j + 1; (1 << k) < P; k++)
          if (v + (1 << k) < P) last = k;
        double expect = gather + (last + 1) * c(P - 1);
        int r = (v + root) % P;
        CHECK(close_to(f[r], expect), "lnbc P=%d root %d rank %d f=%g, expected %g", P, root, r, f[r], expect);
      }
      pat_sched_free(&s);
    }
  }

  /* ---- programs agree with the replay on random arrivals, bg_start, node maps ---- */
  int *node = malloc(4096 * sizeof *node);
  const int algs[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC, PAT_ALG_DIRECT};
  int cases = 0;
  for (int P = 1; P <= 48; P++)
    for (size_t ai = 0; ai < sizeof algs / sizeof *algs; ai++)
      for (int trial = 0; trial < 4; trial++) {
        pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, (int)(urand() * P), 0, 0, NULL, NULL, NULL};
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
        CHECK(prog_agrees(&s, args.root, a, &m2, M, f), "program vs replay: alg %s P=%d trial %d",
              pat_algorithms[algs[ai]].name, P, trial);
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
