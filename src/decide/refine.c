/* Online refinement and exploration of a call site (see refine.h). */
#include "decide/refine.h"

#include "algorithms/sched/status.h"

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

int pat_refine_exploration(const pat_refine *rf, long long call, int best, const int64_t *ebar_ns,
                           const int *status, double wait_ns) {
  if (best < 0 || rf->samples[best] == 0) return -1;
  if (rf->explorations >= PAT_EXPLORE_TOTAL) return -1;
  if (rf->explorations > 0 && call - rf->last_explore < PAT_EXPLORE_SPACING) return -1;
  double limit = PAT_EXPLORE_WITHIN * ((double)ebar_ns[best] - wait_ns);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (status[alg] == PAT_OK && rf->samples[alg] == 0 && rf->explored[alg] < PAT_EXPLORE_MAX &&
        (double)ebar_ns[alg] - wait_ns <= limit)
      return alg;
  return -1;
}

void pat_refine_explored(pat_refine *rf, int alg, long long call) {
  rf->explored[alg]++;
  rf->explorations++;
  rf->last_explore = call;
}
