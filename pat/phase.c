/* The compute-phase tracker (see phase.h). */
#include "pat/phase.h"

#include "pat/predict.h"

void pat_phase_start(pat_phase *ph, int64_t now_ns) {
  ph->instrumented = 1;
  ph->active = 1;
  ph->predicted = 0;
  ph->start_ns = now_ns;
}

int pat_phase_edge(pat_phase *ph, int64_t now_ns, double percent, int64_t *arrival_ns) {
  if (!(percent > 0.0 && percent < 100.0)) return PAT_PHASE_BAD_PERCENT;
  if (!ph->active) return PAT_PHASE_NO_PHASE;
  if (ph->predicted) return PAT_PHASE_NOTHING; /* one prediction per phase: the first edge's */
  ph->predicted = 1;
  *arrival_ns = pat_predict_edge(ph->start_ns, now_ns, percent);
  return PAT_PHASE_PREDICT;
}

int pat_phase_end(pat_phase *ph, int64_t now_ns, int64_t *arrival_ns) {
  if (!ph->active) return PAT_PHASE_NO_PHASE;
  int predict = !ph->predicted; /* no edge: the end is the arrival, known now */
  ph->active = 0;
  ph->predicted = 1;
  *arrival_ns = now_ns;
  return predict ? PAT_PHASE_PREDICT : PAT_PHASE_NOTHING;
}
