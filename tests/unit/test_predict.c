/* Arrival prediction arithmetic: edge extrapolation and the robust damped
 * trend of call-site gaps (stationary, drifting, an outlier, a level shift). */
#include <math.h>
#include <stdlib.h>

#include "pat/predict.h"
#include "testutil.h"

int main(void) {
  /* linear extrapolation: 40 ms in at 50% -> ends at 80 ms */
  CHECK(pat_predict_edge(1000, 1000 + 40000000, 50.0) == 1000 + 80000000, "edge at 50%%");
  CHECK(pat_predict_edge(0, 25000000, 25.0) == 100000000, "edge at 25%%");
  CHECK(llabs(pat_predict_edge(0, 10000000, 33.333333) - 30000000) < 10, "edge at 33.3%%");

  pat_gap_history h;
  int64_t g;
  pat_gap_init(&h);
  CHECK(!pat_gap_predict(&h, &g), "prediction without history");

  /* a stationary sequence with +-5% jitter: within 10% of its mean */
  srand(7);
  double mean = 50e6;
  for (int i = 0; i < 200; i++) pat_gap_add(&h, (int64_t)(mean * (0.95 + 0.1 * rand() / (double)RAND_MAX)));
  CHECK(pat_gap_predict(&h, &g), "prediction with history");
  CHECK(fabs((double)g - mean) < 0.10 * mean, "stationary: predicted %lld, mean %.0f", (long long)g, mean);

  /* one huge outlier moves the prediction by at most the level and trend
   * weights times the distance to the clip bound */
  double lo, hi;
  pat_gap_clip_range(&h, &lo, &hi);
  CHECK(hi < 2 * mean && lo > 0, "clip range [%.0f, %.0f] not around the mean", lo, hi);
  int64_t before = g;
  pat_gap_add(&h, (int64_t)(100 * mean));
  pat_gap_predict(&h, &g);
  double bound = (PAT_GAP_LEVEL_WEIGHT * (1 + PAT_GAP_TREND_WEIGHT)) * (hi - (double)before) + 1;
  CHECK((double)(g - before) <= bound, "outlier moved prediction by %lld > %.0f", (long long)(g - before), bound);
  CHECK(g - before > 0, "outlier had no effect at all (clip should still let it count)");

  /* after a level shift the prediction follows within a few calls */
  for (int i = 0; i < 30; i++) pat_gap_add(&h, (int64_t)(2 * mean));
  pat_gap_predict(&h, &g);
  CHECK(fabs((double)g - 2 * mean) < 0.10 * 2 * mean, "level shift: predicted %lld", (long long)g);

  /* a drifting compute phase (+0.5 ms per call, +-1% jitter): the next gap is
   * predicted within 1%, where an average would lag by several calls' drift */
  pat_gap_init(&h);
  double gap = 40e6;
  for (int i = 0; i < 60; i++, gap += 0.5e6) pat_gap_add(&h, (int64_t)(gap * (0.99 + 0.02 * rand() / (double)RAND_MAX)));
  pat_gap_predict(&h, &g);
  CHECK(fabs((double)g - gap) < 0.01 * gap, "drift: predicted %lld, next %.0f (error %.2f%%)", (long long)g, gap,
        100 * fabs((double)g - gap) / gap);
  /* ... and a drift downwards */
  pat_gap_init(&h);
  gap = 80e6;
  for (int i = 0; i < 60; i++, gap -= 0.4e6) pat_gap_add(&h, (int64_t)(gap * (0.99 + 0.02 * rand() / (double)RAND_MAX)));
  pat_gap_predict(&h, &g);
  CHECK(fabs((double)g - gap) < 0.01 * gap, "drift down: predicted %lld, next %.0f", (long long)g, gap);
  return TEST_RESULT();
}
