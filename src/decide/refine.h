/*
 * Online refinement of a call site's predictions (STAR-MPI, Faraj 2006):
 * per site and algorithm, the ratio of measured to predicted cost of the
 * calls it ran (the prediction under the actual arrivals; cost = ē above the
 * wait for the last arrival, which no algorithm avoids), smoothed; it scales
 * later predictions (pat_select_in.ratio).
 *
 * Which algorithms a site explores, and how its measured costs replace the
 * predictions, is explore.h's (per regime); refinement still corrects the
 * predictions of what a regime has not measured.  Pure C.
 */
#ifndef PAT_REFINE_H
#define PAT_REFINE_H

#include <stdint.h>

#include "algorithms/algorithms.h"

#define PAT_REFINE_WEIGHT 0.3     /* weight of a new ratio sample */
#define PAT_REFINE_CLAMP 5.0      /* ratios are kept within [1/5, 5] */

typedef struct pat_refine {
  double ratio[PAT_ALG_COUNT];    /* 0: no sample yet */
  int samples[PAT_ALG_COUNT];
  int explored[PAT_ALG_COUNT];    /* times it was run to be measured (explore.h) */
  /* for the report: sums of predicted and measured ē per algorithm */
  double pred_sum[PAT_ALG_COUNT], meas_sum[PAT_ALG_COUNT];
} pat_refine;

/* A call of alg predicted at `predicted` s, measured at `measured` s, with
 * a wait of `wait` s for the last arrival: fold its ratio in (nothing if
 * either cost is not above the wait). */
void pat_refine_sample(pat_refine *rf, int alg, double predicted, double measured, double wait);

/* alg was run to be measured. */
void pat_refine_explored(pat_refine *rf, int alg);

/* The ratios with every algorithm never sampled given the geometric mean of
 * the least and the greatest ratio of libpat's schedules sampled (MPI's own
 * left out: its ratio says nothing of the network), into out[PAT_ALG_COUNT];
 * rf->ratio unchanged where no classic schedule was sampled (an
 * arrival-aware one's cost above the wait is the least sure).  sqrt, not
 * libm's log and exp: it is correctly rounded, so every rank gets the same
 * (model/measured.h).  Returns what to scale by: out, or rf->ratio. */
const double *pat_refine_with_unrun(const pat_refine *rf, double *out);

#endif
