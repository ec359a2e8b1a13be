/* Arrival prediction arithmetic; see predict.h. */
#include "pat/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Longest compute phase an edge may predict: a tiny percent must not
 * overflow the arithmetic (a day is far beyond any useful prediction). */
#define EDGE_MAX_PHASE_NS 86400e9

int64_t pat_predict_edge(int64_t start_ns, int64_t now_ns, double percent) {
  double elapsed = (double)(now_ns - start_ns);
  double phase = elapsed * 100.0 / percent;
  if (!(phase < EDGE_MAX_PHASE_NS)) phase = EDGE_MAX_PHASE_NS; /* also NaN */
  if (phase < 0) phase = 0;
  return start_ns + (int64_t)llround(phase);
}

void pat_gap_init(pat_gap_history *h) { memset(h, 0, sizeof *h); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double forecast(const pat_gap_history *h) { return h->level + PAT_GAP_TREND_DAMPING * h->trend; }

void pat_gap_clip_range(const pat_gap_history *h, double *lo, double *hi) {
  int n = h->n - 1 < PAT_GAP_RECENT ? h->n - 1 : PAT_GAP_RECENT; /* errors recorded so far */
  if (n < 3) { /* too few errors to tell an outlier */
    *lo = -INFINITY;
    *hi = INFINITY;
    return;
  }
  double v[PAT_GAP_RECENT], dev[PAT_GAP_RECENT];
  memcpy(v, h->errors, (size_t)n * sizeof *v);
  double med = median(v, n);
  for (int i = 0; i < n; i++) dev[i] = fabs(h->errors[i] - med);
  double f = forecast(h), spread = 1.4826 * median(dev, n);
  /* a steady history has no spread: still allow 5% (and 1 us) of jitter */
  double floor_spread = 0.05 * fabs(f) + 1000.0;
  if (spread < floor_spread) spread = floor_spread;
  *lo = f + med - PAT_GAP_CLIP_MADS * spread;
  *hi = f + med + PAT_GAP_CLIP_MADS * spread;
}

void pat_gap_add(pat_gap_history *h, int64_t gap_ns) {
  double x = (double)gap_ns;
  if (h->n == 0) {
    h->level = x;
    h->trend = 0;
    h->n = 1;
    return;
  }
  double lo, hi, f = forecast(h);
  pat_gap_clip_range(h, &lo, &hi);
  double clipped = x < lo ? lo : (x > hi ? hi : x);
  double level = f + PAT_GAP_LEVEL_WEIGHT * (clipped - f);
  h->trend = PAT_GAP_TREND_DAMPING * h->trend + PAT_GAP_TREND_WEIGHT * (level - h->level - PAT_GAP_TREND_DAMPING * h->trend);
  h->level = level;
  h->errors[h->pos] = x - f; /* unclipped: a lasting change widens the range */
  h->pos = (h->pos + 1) % PAT_GAP_RECENT;
  h->n++;
}

int pat_gap_predict(const pat_gap_history *h, int64_t *gap_ns) {
  if (h->n == 0) return 0;
  double f = forecast(h);
  *gap_ns = f > 0 ? (int64_t)llround(f) : 0;
  return 1;
}
