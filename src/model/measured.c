/* Measured balanced times: the table and its interpolation (see measured.h). */
#include "model/measured.h"

#include <math.h>
#include <string.h>

_Static_assert(PAT_ALG_COUNT <= 32, "allowed sets are bit masks of an unsigned");

#define LN2 0.693147180559945309417232121458176568
#define SQRT_HALF 0.707106781186547524400844362104849039

int pat_measured_add(pat_measured *t, int alg, double block_bytes, double seconds) {
  if (!t || alg < 0 || alg >= PAT_ALG_COUNT || !(block_bytes > 0) || !isfinite(block_bytes) || !(seconds > 0) ||
      !isfinite(seconds))
    return PAT_MEASURED_BAD;
  pat_measured_alg *a = &t->alg[alg];
  int i = a->n;
  while (i > 0 && a->bytes[i - 1] > block_bytes) i--;
  if (i > 0 && a->bytes[i - 1] == block_bytes) return PAT_MEASURED_DUPLICATE;
  if (a->n == PAT_MEASURED_MAX) return PAT_MEASURED_FULL;
  memmove(&a->bytes[i + 1], &a->bytes[i], (size_t)(a->n - i) * sizeof *a->bytes);
  memmove(&a->seconds[i + 1], &a->seconds[i], (size_t)(a->n - i) * sizeof *a->seconds);
  a->bytes[i] = block_bytes;
  a->seconds[i] = seconds;
  a->n++;
  return PAT_MEASURED_ADDED;
}

/* Natural logarithm of a finite x > 0 with basic operations only (why: see
 * measured.h).  x = m 2^e exactly (frexp), m moved into [sqrt(1/2), sqrt(2));
 * ln m = 2 atanh(s) with s = (m-1)/(m+1), |s| <= 0.172: the odd series to
 * s^23 leaves under 1e-17 out. */
static double exact_ops_log(double x) {
  int e;
  double m = frexp(x, &e);
  if (m < SQRT_HALF) {
    m *= 2;
    e--;
  }
  double s = (m - 1) / (m + 1), s2 = s * s, sum = 0;
  for (int k = 23; k >= 1; k -= 2) sum = sum * s2 + 1.0 / k;
  return e * LN2 + 2 * s * sum;
}

/* e^y with basic operations only: y = n ln2 + r, |r| <= ln2/2 (n = the
 * nearest integer, exact by floor), e^r by its Taylor series to r^18 (under
 * 1e-19 left out), then scaled by 2^n exactly (ldexp). */
static double exact_ops_exp(double y) {
  double n = floor(y / LN2 + 0.5), r = y - n * LN2, term = 1, sum = 1;
  for (int k = 1; k <= 18; k++) {
    term = term * r / k;
    sum += term;
  }
  return ldexp(sum, (int)n);
}

/* The power law through (m0, t0) and (m1, t1) at m0 < m < m1, kept within
 * [min(t0, t1), max(t0, t1)] so that rounding cannot leave the segment. */
static double log_log(double m0, double t0, double m1, double t1, double m) {
  double u = exact_ops_log(m / m0) / exact_ops_log(m1 / m0);
  if (u < 0) u = 0;
  if (u > 1) u = 1;
  double t = t0 * exact_ops_exp(u * exact_ops_log(t1 / t0));
  double lo = t0 < t1 ? t0 : t1, hi = t0 < t1 ? t1 : t0;
  return t < lo ? lo : (t > hi ? hi : t);
}

/* Above the largest size: the last two points' line, never falling. */
static double extend_last(const pat_measured_alg *a, double m) {
  int n = a->n;
  double slope = (a->seconds[n - 1] - a->seconds[n - 2]) / (a->bytes[n - 1] - a->bytes[n - 2]);
  if (!(slope > 0)) slope = 0;
  return a->seconds[n - 1] + slope * (m - a->bytes[n - 1]);
}

/* The time at m by the rules of measured.h; a has at least 2 sizes. */
static double table_time(const pat_measured_alg *a, double m) {
  if (m <= a->bytes[0]) return a->seconds[0];
  if (m >= a->bytes[a->n - 1]) return m == a->bytes[a->n - 1] ? a->seconds[a->n - 1] : extend_last(a, m);
  int i = 1;
  while (a->bytes[i] < m) i++; /* a->bytes[i - 1] < m <= a->bytes[i] */
  if (a->bytes[i] == m) return a->seconds[i];
  return log_log(a->bytes[i - 1], a->seconds[i - 1], a->bytes[i], a->seconds[i], m);
}

/* Table t's answer for (alg, P, block_bytes), above its largest size only
 * if it may extend; 1 with *seconds set, or 0 with *seconds left alone. */
static int table_answer(const pat_measured *t, int alg, int P, double block_bytes, int extend, double *seconds) {
  if (alg < 0 || alg >= PAT_ALG_COUNT || P < 1 || P != t->P) return 0;
  if (!(block_bytes >= 0) || !isfinite(block_bytes)) return 0;
  const pat_measured_alg *a = &t->alg[alg];
  if (a->n < 2 || (!extend && block_bytes > a->bytes[a->n - 1])) return 0;
  double s = table_time(a, block_bytes);
  if (seconds) *seconds = s;
  return 1;
}

int pat_model_measured_b2b_time(const pat_model_params *mp, int alg, int P, double block_bytes, double *seconds) {
  return mp && table_answer(&mp->b2b, alg, P, block_bytes, 0, seconds);
}

int pat_model_measured_time(const pat_model_params *mp, int alg, int P, double block_bytes, double *seconds) {
  return mp && table_answer(&mp->measured, alg, P, block_bytes, 1, seconds);
}

void pat_model_measured_levels(const pat_model_params *mp, int P, double block_bytes, double *seconds) {
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (!pat_model_measured_time(mp, alg, P, block_bytes, &seconds[alg])) seconds[alg] = NAN;
}

int pat_model_measured_best(const pat_model_params *mp, unsigned allowed, int P, double block_bytes,
                            double *seconds) {
  int best = PAT_ALG_UNKNOWN;
  double best_t = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double t;
    if (allowed && !(allowed & (1u << alg))) continue;
    if (!pat_model_measured_time(mp, alg, P, block_bytes, &t)) continue;
    if (best < 0 || t < best_t) { /* strictly smaller: a tie keeps the lower id */
      best = alg;
      best_t = t;
    }
  }
  if (best >= 0 && seconds) *seconds = best_t;
  return best;
}

const char *pat_model_measured_note(const pat_model_params *mp) {
  if (mp && mp->measured.P > 0) return NULL;
  return "no measured times (model file v1 or none): fitted lines only; recalibrate with pat-calibrate + pat-fit "
         "(bench/sweep/campaign.sh) for measured times";
}
