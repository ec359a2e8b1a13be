/* Arrival prediction arithmetic; see predict.h. */
#include "pat/predict.h"

#include <math.h>
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

static double forecast(const pat_gap_history *h) { return h->level + PAT_GAP_TREND_DAMPING * h->trend; }

void pat_gap_clip_range(const pat_gap_history *h, double *lo, double *hi) {
  if (h->n < 3) { /* too few errors to tell an outlier */
    *lo = -INFINITY;
    *hi = INFINITY;
    return;
  }
  double f = forecast(h), spread = 1.25 * h->error; /* 1.25 mean |error| ~ one standard deviation */
  /* a steady history has no spread: still allow 5% (and 1 us) of jitter */
  double floor_spread = 0.05 * fabs(f) + 1000.0;
  if (spread < floor_spread) spread = floor_spread;
  *lo = f - PAT_GAP_CLIP * spread;
  *hi = f + PAT_GAP_CLIP * spread;
}

void pat_gap_add(pat_gap_history *h, int64_t gap_ns) {
  double x = (double)gap_ns;
  if (h->n == 0) {
    h->level = x;
    h->trend = h->error = 0;
    h->n = 1;
    return;
  }
  double lo, hi, f = forecast(h);
  pat_gap_clip_range(h, &lo, &hi);
  double clipped = x < lo ? lo : (x > hi ? hi : x);
  double level = f + PAT_GAP_LEVEL_WEIGHT * (clipped - f);
  h->trend = PAT_GAP_TREND_DAMPING * h->trend + PAT_GAP_TREND_WEIGHT * (level - h->level - PAT_GAP_TREND_DAMPING * h->trend);
  h->level = level;
  double e = fabs(clipped - f);
  h->error = h->n == 1 ? e : h->error + PAT_GAP_ERROR_WEIGHT * (e - h->error);
  h->n++;
}

int pat_gap_predict(const pat_gap_history *h, int64_t *gap_ns) {
  if (h->n == 0) return 0;
  double f = forecast(h);
  *gap_ns = f > 0 ? (int64_t)llround(f) : 0;
  return 1;
}
