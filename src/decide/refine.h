/*
 * Online refinement of a call site's predictions (STAR-MPI, Faraj 2006):
 * per site and algorithm, the ratio of measured to predicted cost of the
 * calls it ran (the prediction under the actual arrivals; cost = ē above the
 * wait for the last arrival, which no algorithm avoids), smoothed; it scales
 * later predictions (pat_select_in.ratio).
 *
 * Exploration: an algorithm never measured at the site whose predicted cost
 * is within PAT_EXPLORE_WITHIN of the best one's is run once to be measured,
 * at most PAT_EXPLORE_TOTAL times per site, PAT_EXPLORE_SPACING calls apart
 * (the engine asks only in the exchange mode).  Pure C.
 */
#ifndef PAT_REFINE_H
#define PAT_REFINE_H

#include <stdint.h>

#include "algorithms/algorithms.h"

#define PAT_REFINE_WEIGHT 0.3     /* weight of a new ratio sample */
#define PAT_REFINE_CLAMP 5.0      /* ratios are kept within [1/5, 5] */
#define PAT_EXPLORE_MAX 1         /* runs of an unmeasured algorithm to measure it, per site */
#define PAT_EXPLORE_TOTAL 4       /* explorations per site in all */
#define PAT_EXPLORE_SPACING 32    /* site calls between explorations */
#define PAT_EXPLORE_WITHIN 1.10   /* explore an algorithm whose cost (above the wait for the last arrival)
                                     is predicted within 10% of the best one's */

typedef struct pat_refine {
  double ratio[PAT_ALG_COUNT];    /* 0: no sample yet */
  int samples[PAT_ALG_COUNT];
  int explored[PAT_ALG_COUNT];    /* times it was run to be measured */
  int explorations;               /* at the site, in all */
  long long last_explore;         /* site call number of the last exploration */
  /* for the report: sums of predicted and measured ē per algorithm */
  double pred_sum[PAT_ALG_COUNT], meas_sum[PAT_ALG_COUNT];
} pat_refine;

/* A call of alg predicted at `predicted` s, measured at `measured` s, with
 * a wait of `wait` s for the last arrival: fold its ratio in (nothing if
 * either cost is not above the wait). */
void pat_refine_sample(pat_refine *rf, int alg, double predicted, double measured, double wait);

/* Instead of the best algorithm (predicted at ebar_ns[best]), one to
 * explore at site call `call`: never measured here, predictable (status
 * PAT_OK) and within PAT_EXPLORE_WITHIN of the best's cost above wait_ns;
 * -1 if none, or if the best itself was never measured (running it
 * measures it), or the site's explorations are spent or too recent. */
int pat_refine_exploration(const pat_refine *rf, long long call, int best, const int64_t *ebar_ns,
                           const int *status, double wait_ns);

/* alg was run at site call `call` to be measured. */
void pat_refine_explored(pat_refine *rf, int alg, long long call);

#endif
