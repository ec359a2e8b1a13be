/* The shape of an all-gatherv (see shape.h). */
#include "pat/shape.h"

uint64_t pat_shape_hash(int P, const int64_t *bytes) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)P;
  for (int r = 0; r < P; r++) {
    h ^= (uint64_t)bytes[r] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ? h : 1;
}

int64_t pat_shape_mean(int P, const int64_t *bytes) {
  int64_t total = 0;
  for (int r = 0; r < P; r++) total += bytes[r];
  return P > 0 ? (total + P - 1) / P : 0;
}
