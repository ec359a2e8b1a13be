/*
 * A job's placement as one number: which ranks share a node, as a 64-bit
 * FNV-1a hash of each rank's node, named by its lowest rank (the same
 * placement gives the same hash whatever the hosts are called).  A model
 * file records its calibration's ("placement" line): the times it measured
 * are those of that placement, and a job of as many ranks placed otherwise
 * (4 hosts x 2 ranks round robin against by slot: a ring then crosses a node
 * at every hop, not every other) cannot use them.
 *
 * Pure C, no MPI.
 */
#ifndef PAT_MODEL_PLACEMENT_H
#define PAT_MODEL_PLACEMENT_H

#include <stdint.h>

/* leader[r]: the lowest rank on rank r's node, r = 0..P-1 */
static inline uint64_t pat_placement_hash(int P, const int *leader) {
  uint64_t h = 14695981039346656037ull;
  for (int r = 0; r < P; r++)
    for (int b = 0; b < 4; b++) {
      h ^= (uint64_t)(((uint32_t)leader[r] >> (8 * b)) & 0xffu);
      h *= 1099511628211ull;
    }
  return h;
}

#endif
