/*
 * Arrival prediction, pure arithmetic (no MPI, no clocks read here).
 *
 * Two predictors:
 *  - at a PAT_Edge(percent) the end of the compute phase is extrapolated
 *    linearly from its start: end = start + elapsed * 100 / percent;
 *  - without instrumentation, per call site, the gap between leaving one
 *    all-gather and entering the next is smoothed with an exponential moving
 *    average whose samples are first clipped to median +- k*MAD of the recent
 *    gaps, so one outlier moves the prediction by a bounded amount.
 */
#ifndef PAT_PREDICT_H
#define PAT_PREDICT_H

#include <stdint.h>

int64_t pat_predict_edge(int64_t start_ns, int64_t now_ns, double percent);

#define PAT_GAP_RECENT 8
#define PAT_GAP_EMA_WEIGHT 0.25 /* weight of a new sample */
#define PAT_GAP_CLIP_MADS 3.0   /* clip samples beyond median +- 3 MAD */

typedef struct pat_gap_history {
  int n;                            /* samples seen */
  int pos;                          /* next slot in recent[] */
  int64_t recent[PAT_GAP_RECENT];   /* raw recent gaps */
  double ema;                       /* smoothed gap (ns) */
} pat_gap_history;

void pat_gap_init(pat_gap_history *h);
/* The range a new sample is clipped to, given the recent samples. */
void pat_gap_clip_range(const pat_gap_history *h, double *lo, double *hi);
void pat_gap_add(pat_gap_history *h, int64_t gap_ns);
/* Predicted next gap; returns 0 when there is no history yet. */
int pat_gap_predict(const pat_gap_history *h, int64_t *gap_ns);

#endif
