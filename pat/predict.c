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

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static double median(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  return n % 2 ? (double)v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + (double)v[n / 2]);
}

void pat_gap_clip_range(const pat_gap_history *h, double *lo, double *hi) {
  int n = h->n < PAT_GAP_RECENT ? h->n : PAT_GAP_RECENT;
  if (n < 3) { /* too few samples to tell an outlier */
    *lo = -INFINITY;
    *hi = INFINITY;
    return;
  }
  int64_t v[PAT_GAP_RECENT], dev[PAT_GAP_RECENT];
  memcpy(v, h->recent, (size_t)n * sizeof *v);
  double med = median(v, n);
  for (int i = 0; i < n; i++) dev[i] = (int64_t)llround(fabs((double)h->recent[i] - med));
  double mad = median(dev, n);
  /* a perfectly steady history has MAD 0: still allow 5% (and 1 us) of jitter */
  double floor_mad = 0.05 * fabs(med) + 1000.0;
  if (mad < floor_mad) mad = floor_mad;
  *lo = med - PAT_GAP_CLIP_MADS * mad;
  *hi = med + PAT_GAP_CLIP_MADS * mad;
}

void pat_gap_add(pat_gap_history *h, int64_t gap_ns) {
  double lo, hi, x = (double)gap_ns;
  pat_gap_clip_range(h, &lo, &hi);
  double clipped = x < lo ? lo : (x > hi ? hi : x);
  h->ema = h->n == 0 ? x : h->ema + PAT_GAP_EMA_WEIGHT * (clipped - h->ema);
  h->recent[h->pos] = gap_ns;
  h->pos = (h->pos + 1) % PAT_GAP_RECENT;
  h->n++;
}

int pat_gap_predict(const pat_gap_history *h, int64_t *gap_ns) {
  if (h->n == 0) return 0;
  *gap_ns = (int64_t)llround(h->ema);
  return 1;
}
