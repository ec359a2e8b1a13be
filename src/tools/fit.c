/* Fitting (alpha, beta) per algorithm by robust regression on replays (see fit.h). */
#include "tools/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dcmp(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* median of |r|, n > 0 (tmp: n doubles) */
static double median_abs(int n, const double *r, double *tmp) {
  for (int i = 0; i < n; i++) tmp[i] = fabs(r[i]);
  qsort(tmp, (size_t)n, sizeof *tmp, dcmp);
  return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

/* Huber IRLS for y = 1 ~ a x1 + b x2 (two = 0: b only, a = 0).  Writes the
 * weights to w.  Returns iterations. */
static int irls(int n, const double *x1, const double *x2, int two, double k, int max_iter, double *a, double *b,
                double *w, double *r, double *tmp, double *scale) {
  for (int i = 0; i < n; i++) w[i] = 1;
  double pa = NAN, pb = NAN;
  int it;
  for (it = 1; it <= max_iter; it++) {
    double s11 = 0, s12 = 0, s22 = 0, t1 = 0, t2 = 0;
    for (int i = 0; i < n; i++) {
      s11 += w[i] * x1[i] * x1[i];
      s12 += w[i] * x1[i] * x2[i];
      s22 += w[i] * x2[i] * x2[i];
      t1 += w[i] * x1[i];
      t2 += w[i] * x2[i];
    }
    if (two) {
      double det = s11 * s22 - s12 * s12;
      *a = (t1 * s22 - t2 * s12) / det;
      *b = (s11 * t2 - s12 * t1) / det;
    } else {
      *a = 0;
      *b = t2 / s22;
    }
    for (int i = 0; i < n; i++) r[i] = 1 - *a * x1[i] - *b * x2[i];
    double s = 1.4826 * median_abs(n, r, tmp);
    if (s < 1e-9) s = 1e-9; /* near-perfect data: every point keeps full weight */
    *scale = s;
    for (int i = 0; i < n; i++) w[i] = fabs(r[i]) <= k * s ? 1.0 : k * s / fabs(r[i]);
    if (fabs(*a - pa) <= 1e-13 * fabs(*a) + 1e-300 && fabs(*b - pb) <= 1e-13 * fabs(*b) + 1e-300) break;
    pa = *a;
    pb = *b;
  }
  return it > max_iter ? max_iter : it;
}

/* Every point usable: a positive finite time, finite coefficients >= 0.
 * Returns PAT_OK or PAT_EINVAL with the reason in out->msg. */
static int check_points(int n, const double *c1, const double *c2, const double *T, pat_fit_result *out) {
  if (n < 2) {
    snprintf(out->msg, sizeof out->msg, "need at least 2 measured sizes, got %d", n);
    return PAT_EINVAL;
  }
  for (int i = 0; i < n; i++) {
    if (!(T[i] > 0) || !isfinite(T[i])) {
      snprintf(out->msg, sizeof out->msg, "point %d: measured time %g is not a positive number", i, T[i]);
      return PAT_EINVAL;
    }
    if (!(c1[i] >= 0) || !(c2[i] >= 0) || !isfinite(c1[i]) || !isfinite(c2[i])) {
      snprintf(out->msg, sizeof out->msg, "point %d: model coefficients %g, %g are not finite and >= 0", i, c1[i],
               c2[i]);
      return PAT_EINVAL;
    }
  }
  return PAT_OK;
}

/* Can the sizes tell alpha from beta?  Not when c1 and c2 are (nearly)
 * proportional. */
static int separable(int n, const double *x1, const double *x2) {
  double s11 = 0, s12 = 0, s22 = 0;
  for (int i = 0; i < n; i++) {
    s11 += x1[i] * x1[i];
    s12 += x1[i] * x2[i];
    s22 += x2[i] * x2[i];
  }
  return s11 > 0 && s22 > 0 && !((s11 * s22 - s12 * s12) <= 1e-9 * s11 * s22);
}

/* The residuals' summary: outliers (down-weighted points), RMS over the
 * others, largest over all. */
static void summarise_residuals(int n, const double *r, const double *w, pat_fit_result *out) {
  double ss = 0;
  int nfull = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(r[i]);
    if (e > out->rel_max) out->rel_max = e;
    if (w[i] < 1) {
      out->n_down++;
    } else {
      ss += r[i] * r[i];
      nfull++;
    }
  }
  out->rel_rms = nfull ? sqrt(ss / nfull) : 0;
}

int pat_fit_linear(int n, const double *c1, const double *c2, const double *T, const pat_fit_opts *opt,
                   pat_fit_result *out) {
  memset(out, 0, sizeof *out);
  out->n = n;
  int rc = check_points(n, c1, c2, T, out);
  if (rc) return rc;
  double k = opt && opt->huber_k > 0 ? opt->huber_k : 1.345;
  int max_iter = opt && opt->max_iter > 0 ? opt->max_iter : 100;
  double *buf = malloc((size_t)n * 6 * sizeof *buf);
  if (!buf) return PAT_ENOMEM;
  double *x1 = buf, *x2 = buf + n, *w = buf + 2 * n, *r = buf + 3 * n, *tmp = buf + 4 * n;
  for (int i = 0; i < n; i++) {
    x1[i] = c1[i] / T[i];
    x2[i] = c2[i] / T[i];
  }
  if (!separable(n, x1, x2)) {
    snprintf(out->msg, sizeof out->msg,
             "the sizes cannot separate alpha from beta (latency and bandwidth terms grow in proportion); "
             "measure over a wider range of sizes");
    rc = PAT_EFIT;
    goto done;
  }
  double a, b, scale;
  irls(n, x1, x2, 1, k, max_iter, &a, &b, w, r, tmp, &scale);
  out->alpha_free = a;
  out->beta_free = b;
  if (b < 0) {
    snprintf(out->msg, sizeof out->msg,
             "negative slope: beta = %.3g s/B, the measured times fall as the blocks grow; the measurements look "
             "wrong (timed region, too few repetitions, or too narrow a size range); fit rejected",
             b);
    rc = PAT_EFIT;
    goto done;
  }
  out->iterations = irls(n, x1, x2, a >= 0, k, max_iter, &a, &b, w, r, tmp, &scale);
  if (out->alpha_free < 0) {
    out->alpha_clamped = 1;
    snprintf(out->msg, sizeof out->msg, "alpha came out negative (%.3g s): set to 0 and beta refitted",
             out->alpha_free);
  }
  out->alpha = a;
  out->beta = b;
  out->scale = scale;
  summarise_residuals(n, r, w, out);
done:
  free(buf);
  return rc;
}

int pat_fit_line(int n, const double *x, const double *T, pat_fit_result *out) {
  double *ones = malloc((size_t)(n > 0 ? n : 1) * sizeof *ones);
  if (!ones) return PAT_ENOMEM;
  for (int i = 0; i < n; i++) ones[i] = 1;
  pat_fit_opts o = {PAT_FIT_EBAR, 1e9, 0};
  int rc = pat_fit_linear(n, ones, x, T, &o, out);
  free(ones);
  if (!rc && !(out->beta > 0)) {
    snprintf(out->msg, sizeof out->msg, "slope %.3g s/B: the times do not grow with the size", out->beta);
    rc = PAT_EFIT;
  }
  return rc;
}

/* ---- coefficients from replays ---- */

static double metric_of(const pat_sched *s, double alpha, double beta, double bb, int metric, int *rc) {
  pat_model_params mp;
  pat_model_params_init(&mp, alpha, beta);
  pat_model_result res;
  memset(&res, 0, sizeof res);
  *rc = pat_model_replay(s, NULL, &mp, bb, &res);
  return metric == PAT_FIT_RUNTIME ? res.r : res.ebar;
}

static int coeffs(const pat_sched *s, double bb, double a0, double b0, int metric, double *c1, double *c2) {
  int rc;
  /* T is piecewise linear and homogeneous in (alpha, beta): a small forward
   * step stays on the critical path's linear piece */
  double scale = a0 + b0 * bb;
  if (!(scale > 0)) scale = 1;
  double ha = 1e-6 * scale, hb = bb > 0 ? 1e-6 * scale / bb : 1e-6;
  double t0 = metric_of(s, a0, b0, bb, metric, &rc);
  if (rc) return rc;
  double ta = metric_of(s, a0 + ha, b0, bb, metric, &rc);
  if (rc) return rc;
  double tb = metric_of(s, a0, b0 + hb, bb, metric, &rc);
  if (rc) return rc;
  *c1 = (ta - t0) / ha;
  *c2 = bb > 0 ? (tb - t0) / hb : 0;
  if (*c1 < 0) *c1 = 0; /* rounding noise of the differences */
  if (*c2 < 0) *c2 = 0;
  return PAT_OK;
}

static int build(int alg, int P, int root, pat_sched *s) {
  pat_build_args args = {.P = P, .self = PAT_ALL_RANKS, .root = root}; /* balanced */
  return pat_build(alg, s, &args);
}

int pat_fit_coeffs(int alg, int P, int root, double block_bytes, double alpha0, double beta0, int metric, double *c1,
                   double *c2) {
  pat_sched s;
  int rc = build(alg, P, root, &s);
  if (rc) return rc;
  rc = coeffs(&s, block_bytes, alpha0, beta0, metric, c1, c2);
  pat_sched_free(&s);
  return rc;
}

int pat_fit_alg(int alg, int P, int root, int n, const double *block_bytes, const double *T, const pat_fit_opts *opt,
                pat_fit_result *out) {
  memset(out, 0, sizeof *out);
  if (n < 1 || !block_bytes || !T) {
    snprintf(out->msg, sizeof out->msg, "no measurements");
    return PAT_EINVAL;
  }
  int metric = opt ? opt->metric : PAT_FIT_EBAR;
  pat_sched s;
  int rc = build(alg, P, root, &s);
  if (rc) {
    snprintf(out->msg, sizeof out->msg, "cannot build the %s schedule for P=%d (error %d)",
             alg >= 0 && alg < PAT_ALG_COUNT ? pat_algorithms[alg].name : "?", P, rc);
    return rc;
  }
  double *c = malloc((size_t)n * 4 * sizeof *c);
  if (!c) {
    pat_sched_free(&s);
    return PAT_ENOMEM;
  }
  double *c1 = c, *c2 = c + n, *p1 = c + 2 * n, *p2 = c + 3 * n;
  /* start where latency and bandwidth weigh alike at the median size */
  for (int i = 0; i < n; i++) p1[i] = block_bytes[i];
  qsort(p1, (size_t)n, sizeof *p1, dcmp);
  double mmed = p1[n / 2] > 0 ? p1[n / 2] : 1;
  double a0 = 1e-5, b0 = 1e-5 / mmed;
  for (int ref = 0; ref < 8; ref++) {
    for (int i = 0; i < n && !rc; i++) rc = coeffs(&s, block_bytes[i], a0, b0, metric, &c1[i], &c2[i]);
    if (rc) break;
    int same = ref > 0;
    for (int i = 0; i < n && same; i++)
      if (fabs(c1[i] - p1[i]) > 1e-6 * (fabs(c1[i]) + 1) || fabs(c2[i] - p2[i]) > 1e-6 * (fabs(c2[i]) + 1e-9))
        same = 0;
    if (same) break;
    rc = pat_fit_linear(n, c1, c2, T, opt, out);
    out->refinements = ref;
    if (rc) break;
    memcpy(p1, c1, (size_t)n * sizeof *c1);
    memcpy(p2, c2, (size_t)n * sizeof *c2);
    /* re-linearise at the fit (keep both terms alive to find the critical path) */
    a0 = out->alpha > 0 ? out->alpha : 1e-9 * out->beta * mmed;
    b0 = out->beta > 0 ? out->beta : 1e-9 * out->alpha / mmed;
    if (!(a0 > 0 && b0 > 0)) break;
  }
  free(c);
  pat_sched_free(&s);
  return rc;
}
