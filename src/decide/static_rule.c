/* The static rule (see static_rule.h). */
#include "decide/static_rule.h"

#include <math.h>

#include "model/measured.h"

/* Whether t is PAT_STATIC_MARGIN below NATIVE's t_native. */
static int clearly_faster(double t, double t_native) { return t < (1.0 - PAT_STATIC_MARGIN) * t_native; }

int pat_static_native_stays(const pat_model_params *mp, int P, int alt, double t_alt, double t_native, double bytes) {
  if (!isnan(t_native) && !clearly_faster(t_alt, t_native)) return 1;
  /* and back to back, where the calibration measured that too: a call that
   * follows another call must not pay for what the call after a compute
   * phase gains */
  double b_alt, b_native;
  return pat_model_measured_b2b_time(mp, alt, P, bytes, &b_alt) &&
         pat_model_measured_b2b_time(mp, PAT_ALG_NATIVE, P, bytes, &b_native) && !clearly_faster(b_alt, b_native);
}
