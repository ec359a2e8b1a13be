/* Online refinement of a call site (see refine.h). */
#include "decide/refine.h"

void pat_refine_sample(pat_refine *rf, int alg, double predicted, double measured, double wait) {
  if (!(predicted - wait > 0) || !(measured - wait > 0)) return;
  double r = (measured - wait) / (predicted - wait);
  if (r > PAT_REFINE_CLAMP) r = PAT_REFINE_CLAMP;
  if (r < 1.0 / PAT_REFINE_CLAMP) r = 1.0 / PAT_REFINE_CLAMP;
  rf->ratio[alg] = rf->samples[alg] ? rf->ratio[alg] + PAT_REFINE_WEIGHT * (r - rf->ratio[alg]) : r;
  rf->samples[alg]++;
  rf->pred_sum[alg] += predicted;
  rf->meas_sum[alg] += measured;
}

void pat_refine_explored(pat_refine *rf, int alg) { rf->explored[alg]++; }
