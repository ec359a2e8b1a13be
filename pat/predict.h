/*
 * Arrival prediction, pure arithmetic (no MPI, no clocks read here).
 *
 * Two predictors:
 *  - at a PAT_Edge(percent) the end of the compute phase is extrapolated
 *    linearly from its start: end = start + elapsed * 100 / percent;
 *  - without instrumentation, per call site, the gap between leaving one
 *    all-gather and entering the next (the compute phase) is followed with
 *    a damped linear trend (Holt's double exponential smoothing): a level
 *    and a slope, so a compute phase that drifts (a moving hot spot, a
 *    moving cluster of particles) is predicted where it is going, not where
 *    it was on average.  Each sample is first clipped to the forecast +- k
 *    times the smoothed absolute forecast error (of clipped samples), so one
 *    outlier moves the prediction by a bounded amount, while a real change
 *    (the errors stay large) widens the range geometrically and is followed
 *    within a few calls.  O(1) per call: it runs on every all-gather.
 */
#ifndef PAT_PREDICT_H
#define PAT_PREDICT_H

#include <stdint.h>

/* The end of a compute phase started at start_ns that is `percent` done at
 * now_ns, extrapolated linearly (at most a day ahead). */
int64_t pat_predict_edge(int64_t start_ns, int64_t now_ns, double percent);

#define PAT_GAP_LEVEL_WEIGHT 0.3    /* weight of a new sample in the level */
#define PAT_GAP_TREND_WEIGHT 0.1    /* weight of a new level change in the slope */
#define PAT_GAP_TREND_DAMPING 0.98  /* the slope fades a little, so noise does not make it overshoot */
#define PAT_GAP_CLIP 3.0            /* clip samples beyond forecast +- 3 deviations */
#define PAT_GAP_ERROR_WEIGHT 0.25   /* weight of a new absolute error in the deviation */

typedef struct pat_gap_history {
  int n;                            /* samples seen */
  double level, trend;              /* smoothed gap and its change per call (ns) */
  double error;                     /* smoothed |clipped sample - forecast| (ns) */
} pat_gap_history;

void pat_gap_init(pat_gap_history *h);
/* The range a new sample is clipped to: around the forecast. */
void pat_gap_clip_range(const pat_gap_history *h, double *lo, double *hi);
void pat_gap_add(pat_gap_history *h, int64_t gap_ns);
/* Predicted next gap; returns 0 when there is no history yet. */
int pat_gap_predict(const pat_gap_history *h, int64_t *gap_ns);

#endif
