/* Online refinement of a call site (see refine.h). */
#include "decide/refine.h"

#include <math.h>

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

const double *pat_refine_with_unrun(const pat_refine *rf, double *out) {
  double least = 0, greatest = 0;
  int classic = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (alg != PAT_ALG_NATIVE && rf->samples[alg]) {
      classic |= !(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL);
      least = least == 0 || rf->ratio[alg] < least ? rf->ratio[alg] : least;
      greatest = rf->ratio[alg] > greatest ? rf->ratio[alg] : greatest;
    }
  if (!classic) return rf->ratio;
  const double scale = sqrt(least * greatest);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) out[alg] = rf->samples[alg] ? rf->ratio[alg] : scale;
  return out;
}
