/* Provisional: no measured times until model file v2 brings them. */
#include "model/model.h"

int pat_model_measured_time(const pat_model_params *mp, int alg, int P, double block_bytes, double *seconds) {
  (void)mp, (void)alg, (void)P, (void)block_bytes, (void)seconds;
  return 0;
}
