/* Fitting recovers known (alpha, beta) from synthetic timings (exact, noisy,
 * with an outlier) for every classic algorithm; a negative slope is rejected
 * with a clear message; a negative alpha is clamped; the model file round
 * trips and malformed files give clear errors. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/fit.h"
#include "testutil.h"

static uint64_t rng = 0x853c49e6748fea9bull;
static double noise(void) { /* uniform in [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* the time the model predicts for alg at block size m (what a perfect machine would measure) */
static double predicted(int alg, int P, double alpha, double beta, double m, int metric) {
  pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, 0, 0, 0, NULL, NULL, NULL};
  pat_sched s;
  pat_build(alg, &s, &args);
  pat_model_params mp;
  pat_model_params_init(&mp, alpha, beta);
  pat_model_result r;
  memset(&r, 0, sizeof r);
  pat_model_replay(&s, NULL, &mp, m, &r);
  pat_sched_free(&s);
  return metric == PAT_FIT_RUNTIME ? r.r : r.ebar;
}

static int rel_close(double x, double y, double tol) { return fabs(x - y) <= tol * fabs(y); }

static int parse_fails(const char *text, const char *expect) {
  pat_model_params mp;
  char err[400] = "";
  int rc = pat_model_parse(text, "t.model", &mp, err, sizeof err);
  int ok = rc == PAT_EINVAL && strstr(err, expect) != NULL;
  if (!ok) fprintf(stderr, "  expected an error with \"%s\", got rc=%d \"%s\"\n", expect, rc, err);
  return ok;
}

/* pat_fit_line, the link's and gamma's fit: exact through two points, the slope of a line with a little
 * noise, an intercept below 0 clamped, falling or flat times refused.  Returns the failures. */
static int line_fits(void) {
  int bad = 0;
  pat_fit_result fr;
  double x2[2] = {8, 1048576}, t2[2] = {5e-6 + 8 * 1e-9, 5e-6 + 1048576 * 1e-9};
  bad += pat_fit_line(2, x2, t2, &fr) != PAT_OK || !rel_close(fr.alpha, 5e-6, 1e-9) || !rel_close(fr.beta, 1e-9, 1e-9);
  double x[5], t[5];
  for (int i = 0; i < 5; i++) { /* MPI_Reduce_local's sizes: 16 KiB .. 4 MiB */
    x[i] = 16384.0 * pow(4, i);
    t[i] = (2e-7 + 1.5e-10 * x[i]) * (1 + 0.01 * noise());
  }
  bad += pat_fit_line(5, x, t, &fr) != PAT_OK || !rel_close(fr.beta, 1.5e-10, 0.02);
  for (int i = 0; i < 5; i++) t[i] = 1.5e-10 * x[i] - 1e-6; /* below 0 at no bytes */
  bad += pat_fit_line(5, x, t, &fr) != PAT_OK || fr.alpha != 0 || !fr.alpha_clamped || !(fr.beta > 0);
  for (int i = 0; i < 5; i++) t[i] = 1e-3 - 1e-11 * x[i];
  bad += pat_fit_line(5, x, t, &fr) != PAT_EFIT;
  for (int i = 0; i < 5; i++) t[i] = 1e-3;
  bad += pat_fit_line(5, x, t, &fr) != PAT_EFIT || !strstr(fr.msg, "do not grow");
  return bad;
}

int main(void) {
  CHECK(line_fits() == 0, "pat_fit_line");
  const int algs[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC, PAT_ALG_DIRECT};
  const size_t nalgs = sizeof algs / sizeof *algs;
  double m[10], T[10];
  for (int i = 0; i < 10; i++) m[i] = 1024.0 * pow(2.0, i * 12.0 / 9); /* 1 KiB .. 4 MiB, log-spaced */
  pat_fit_result fr;

  /* ---- exact data: every classic algorithm, P a power of 2 or not ---- */
  const int Ps[] = {8, 6, 13};
  for (size_t pi = 0; pi < 3; pi++)
    for (size_t k = 0; k < nalgs; k++) {
      int P = Ps[pi], alg = algs[k];
      double alpha = 4e-5 * (1 + k), beta = 9e-9 / (1 + pi);
      for (int metric = 0; metric < 2; metric++) {
        for (int i = 0; i < 10; i++) T[i] = predicted(alg, P, alpha, beta, m[i], metric);
        pat_fit_opts o = {metric, 0, 0};
        int rc = pat_fit_alg(alg, P, 0, 10, m, T, &o, &fr);
        CHECK(rc == PAT_OK, "%s P=%d: %s", pat_algorithms[alg].name, P, fr.msg);
        CHECK(rel_close(fr.alpha, alpha, 1e-6) && rel_close(fr.beta, beta, 1e-6),
              "%s P=%d metric %d: alpha %g (want %g) beta %g (want %g)", pat_algorithms[alg].name, P, metric,
              fr.alpha, alpha, fr.beta, beta);
        CHECK(fr.n_down == 0 && fr.rel_max < 1e-6, "exact data: no outliers, residual %g", fr.rel_max);
      }
    }

  /* ---- 2% noise and one outlier (x2.5) ---- */
  for (size_t k = 0; k < nalgs; k++) {
    int P = 8, alg = algs[k];
    double alpha = 5e-5, beta = 8e-9;
    for (int i = 0; i < 10; i++) T[i] = predicted(alg, P, alpha, beta, m[i], PAT_FIT_EBAR) * (1 + 0.02 * noise());
    T[6] *= 2.5;
    CHECK(pat_fit_alg(alg, P, 0, 10, m, T, NULL, &fr) == PAT_OK, "%s noisy: %s", pat_algorithms[alg].name, fr.msg);
    CHECK(rel_close(fr.alpha, alpha, 0.06) && rel_close(fr.beta, beta, 0.03),
          "%s noisy: alpha %g (want %g) beta %g (want %g)", pat_algorithms[alg].name, fr.alpha, alpha, fr.beta, beta);
    CHECK(fr.n_down >= 1 && fr.rel_max > 0.5, "the outlier is down-weighted (n_down %d, max residual %g)", fr.n_down,
          fr.rel_max);
    CHECK(fr.rel_rms < 0.03, "rms of the good points %g", fr.rel_rms);
    /* plain least squares would be pulled far off by the outlier: the robust fit is not */
    double c1[10], c2[10];
    for (int i = 0; i < 10; i++) pat_fit_coeffs(alg, P, 0, m[i], alpha, beta, PAT_FIT_EBAR, &c1[i], &c2[i]);
    pat_fit_opts ls = {PAT_FIT_EBAR, 1e9, 0}; /* huge k: no down-weighting */
    pat_fit_result lsr;
    CHECK(pat_fit_linear(10, c1, c2, T, &ls, &lsr) == PAT_OK, "least squares");
    CHECK(fabs(lsr.beta / beta - 1) > fabs(fr.beta / beta - 1) || fabs(lsr.alpha / alpha - 1) > fabs(fr.alpha / alpha - 1),
          "the robust fit should beat least squares with an outlier");
  }

  /* ---- a negative slope is rejected with a clear message ---- */
  for (int i = 0; i < 10; i++) T[i] = 1e-2 - 1e-9 * m[i];
  CHECK(pat_fit_alg(PAT_ALG_RING, 8, 0, 10, m, T, NULL, &fr) == PAT_EFIT, "negative slope accepted");
  CHECK(strstr(fr.msg, "negative slope") && strstr(fr.msg, "rejected"), "message: %s", fr.msg);
  CHECK(fr.beta_free < 0, "unconstrained beta %g", fr.beta_free);

  /* ---- a negative intercept is clamped to 0 and beta refitted ---- */
  {
    double c1[6] = {7, 7, 7, 7, 7, 7}, c2[6], Tn[6];
    for (int i = 0; i < 6; i++) {
      c2[i] = 7 * 1000.0 * (1 << (2 * i));
      Tn[i] = 8e-9 * c2[i] - 2e-6 * c1[i]; /* alpha = -2 us */
    }
    CHECK(pat_fit_linear(6, c1, c2, Tn, NULL, &fr) == PAT_OK, "clamp: %s", fr.msg);
    CHECK(fr.alpha == 0 && fr.alpha_clamped && fr.alpha_free < 0 && fr.beta > 0, "alpha %g clamped %d", fr.alpha,
          fr.alpha_clamped);
    CHECK(strstr(fr.msg, "negative") != NULL, "note: %s", fr.msg);
    CHECK(rel_close(fr.beta, 8e-9, 0.05), "beta %g", fr.beta);
  }

  /* ---- sizes that cannot separate alpha and beta; bad points ---- */
  {
    double c1[3] = {7, 7, 7}, c2[3] = {7000, 7000, 7000}, Tb[3] = {1e-3, 1.1e-3, 0.9e-3};
    CHECK(pat_fit_linear(3, c1, c2, Tb, NULL, &fr) == PAT_EFIT && strstr(fr.msg, "cannot separate"), "%s", fr.msg);
    Tb[1] = -1;
    c2[1] = 14000;
    CHECK(pat_fit_linear(3, c1, c2, Tb, NULL, &fr) == PAT_EINVAL && strstr(fr.msg, "positive"), "%s", fr.msg);
    CHECK(pat_fit_linear(1, c1, c2, Tb, NULL, &fr) == PAT_EINVAL && strstr(fr.msg, "at least 2"), "%s", fr.msg);
  }

  /* ---- model file round trip ---- */
  pat_model_params mp, back;
  pat_model_params_init(&mp, 5.123456789012345e-05, 8.000000000000001e-09);
  mp.alg[PAT_ALG_RING].set = 1;
  mp.alg[PAT_ALG_RING].inter = (pat_hockney){4.1e-05, 7.9e-09};
  mp.alg[PAT_ALG_RING].has_intra = 1;
  mp.alg[PAT_ALG_RING].intra = (pat_hockney){1.3e-06, 1.1e-10};
  mp.alg[PAT_ALG_LNBC].set = 1;
  mp.alg[PAT_ALG_LNBC].inter = (pat_hockney){0, 1.0 / 3e8};
  mp.dflt.has_intra = 1;
  mp.dflt.intra = (pat_hockney){1e-6, 1e-10};
  mp.eager_bytes = 65536;
  snprintf(mp.made, sizeof mp.made, "test: P=8; synthetic # not a comment");
  char *text = pat_model_format(&mp);
  CHECK(text && strncmp(text, "# libpat model v2\n", 18) == 0, "header"); /* the version written */
  char err[400];
  CHECK(pat_model_parse(text, "rt", &back, err, sizeof err) == PAT_OK, "parse own output: %s", err);
  CHECK(memcmp(&back.dflt, &mp.dflt, sizeof mp.dflt) == 0 && memcmp(back.alg, mp.alg, sizeof mp.alg) == 0 &&
            back.eager_bytes == mp.eager_bytes && strcmp(back.made, mp.made) == 0,
        "round trip differs:\n%s\nmade: %s", text, back.made);
  CHECK(back.node == NULL && back.bg_start == -INFINITY && back.engine == PAT_ENGINE_AUTO, "per-call defaults");
  char path[] = "/tmp/pat_test_model_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  close(fd);
  CHECK(pat_model_write(path, &mp, err, sizeof err) == PAT_OK, "write: %s", err);
  memset(&back, 0, sizeof back);
  CHECK(pat_model_read(path, &back, err, sizeof err) == PAT_OK, "read: %s", err);
  CHECK(memcmp(back.alg, mp.alg, sizeof mp.alg) == 0, "file round trip");
  unlink(path);
  CHECK(pat_model_read("/nonexistent/x.model", &back, err, sizeof err) == PAT_EINVAL && strstr(err, "cannot open"),
        "missing file: %s", err);
  free(text);

  /* a minimal file, comments, CRLF, "inter" synonym */
  CHECK(pat_model_parse("# libpat model v1\r\n\n# comment\ndefault 1e-5 1e-9 # trailing\r\ninter ring 2e-5 2e-9\n",
                        "ok", &back, err, sizeof err) == PAT_OK,
        "minimal: %s", err);
  CHECK(back.dflt.inter.alpha == 1e-5 && back.alg[PAT_ALG_RING].set && back.alg[PAT_ALG_RING].inter.beta == 2e-9 &&
            !back.alg[PAT_ALG_NEX].set && back.eager_bytes == 0,
        "minimal values");

  /* ---- malformed files ---- */
  CHECK(parse_fails("", "empty"), "empty");
  CHECK(parse_fails("default 1 1\n", "not a libpat model file"), "no header");
  CHECK(parse_fails("# libpat model v3\ndefault 1 1\n", "model file version 3 is newer"), "version");
  CHECK(parse_fails("# libpat model vX\n", "bad version"), "bad version");
  CHECK(parse_fails("# libpat model v1\nring 1e-5 1e-9\n", "no \"default"), "no default");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\nrign 1 1\n", "t.model:3: unknown keyword \"rign\""),
        "unknown name, with line number");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\nintra foo 1 1\n", "unknown algorithm \"foo\""), "intra foo");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 abc\n", "beta \"abc\""), "bad number");
  CHECK(parse_fails("# libpat model v1\ndefault -1e-5 1e-9\n", "alpha \"-1e-5\""), "negative");
  CHECK(parse_fails("# libpat model v1\ndefault inf 1e-9\n", "alpha \"inf\""), "infinite");
  CHECK(parse_fails("# libpat model v1\ndefault 0 0\n", "both 0"), "zero");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5\n", "expected \"default <alpha> <beta>\""), "missing field");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9 3\n", "expected"), "extra field");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\ndefault 1e-5 1e-9\n", "given twice"), "duplicate");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\nintra ring 1e-6 1e-10\n", "needs a \"ring"),
        "intra without inter");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\neager -3\n", "eager <bytes>"), "bad eager");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\neager 10\neager 20\n", "eager given twice"),
        "eager twice");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\nintra\n", "expected \"intra"), "intra alone");
  return TEST_RESULT();
}
