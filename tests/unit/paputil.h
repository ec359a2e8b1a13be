/* Random process arrival patterns for the schedule tests: a fixed-seed PRNG
 * (so every run tests the same PAPs) and a mix of PAP shapes. */
#ifndef PAT_PAPUTIL_H
#define PAT_PAPUTIL_H
#include <stdint.h>
#include <string.h>

#include "algorithms/algorithms.h"

static uint64_t pap_rng = 0x9e3779b97f4a7c15ull;
static inline uint64_t pap_next(void) { /* xorshift64* */
  pap_rng ^= pap_rng >> 12;
  pap_rng ^= pap_rng << 25;
  pap_rng ^= pap_rng >> 27;
  return pap_rng * 0x2545f4914f6cdd1dull;
}
static inline int64_t pap_below(int64_t n) { return n > 0 ? (int64_t)(pap_next() % (uint64_t)n) : 0; }

/* Fill arrival[0..P-1] and *tau with one random PAP; returns a short name of
 * its shape.  Shapes: uniform delays up to a random multiple of tau (from
 * balanced to ~3P tau), delays quantised to whole tau (many ties), one late
 * rank, one early rank, all equal, two clusters, reversed staircase, and
 * times near the int64 limit. */
static inline const char *pap_random(int P, int64_t *arrival, int64_t *tau) {
  *tau = 1000 + pap_below(2000000);
  int shape = (int)pap_below(9);
  int64_t t = *tau, base = pap_below(1000000000);
  const int64_t spans[] = {0, 1, 2, 3, 5, 10, 30, 100, 300};
  int64_t span = t * spans[pap_below(9)] / 2 + pap_below(t);
  switch (shape) {
  case 0: /* uniform */
  default:
    for (int r = 0; r < P; r++) arrival[r] = base + pap_below(span + 1);
    return "uniform";
  case 1: /* quantised: many exact ties */
    for (int r = 0; r < P; r++) arrival[r] = base + t * pap_below(span / t + 2);
    return "quantised";
  case 2: { /* one late rank */
    for (int r = 0; r < P; r++) arrival[r] = base;
    arrival[pap_below(P)] = base + span + t;
    return "one-late";
  }
  case 3: { /* one early rank */
    for (int r = 0; r < P; r++) arrival[r] = base + span + t;
    arrival[pap_below(P)] = base;
    return "one-early";
  }
  case 4:
    for (int r = 0; r < P; r++) arrival[r] = base;
    return "equal";
  case 5: /* two clusters */
    for (int r = 0; r < P; r++) arrival[r] = base + (pap_below(2) ? span : 0) + pap_below(t / 2);
    return "clusters";
  case 6: /* staircase, latest = rank 0 */
    for (int r = 0; r < P; r++) arrival[r] = base + (int64_t)(P - 1 - r) * (span / P + 1);
    return "staircase";
  case 7: /* large spread: many pre-steps */
    for (int r = 0; r < P; r++) arrival[r] = base + pap_below(t * (int64_t)P * 3 + 1);
    return "wide";
  case 8: /* far from the origin */
    for (int r = 0; r < P; r++) arrival[r] = INT64_MAX / 2 + pap_below(span + 1);
    return "far";
  }
}
#endif
