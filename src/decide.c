/*
 * Which algorithm a call runs.  A fixed setting is obeyed; "auto" asks the
 * cost model (selection).  Inputs are the exchanged, quantised arrivals and
 * parameters every rank shares, so every rank decides the same.
 */
#include <math.h>

#include "runtime.h"

int64_t pat_tau_ns(int64_t bytes) {
  int64_t tau = (int64_t)llround((pat_rt.alpha + pat_rt.beta * (double)bytes) * 1e9);
  return tau > 0 ? tau : 1;
}

int pat_choose(int P, const int64_t *arrival, int64_t bytes, int setting, int *root) {
  (void)arrival;
  *root = 0;
  if (setting >= 0) return setting;
  /* provisional rule until the cost model selects: logarithmic for small
   * vectors, ring for large ones */
  return bytes * P < 65536 ? PAT_ALG_BRUCK : PAT_ALG_RING;
}
