/* auto's choice for an all-gatherv (see vchoice.h). */
#include "decide/vchoice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/static_rule.h"
#include "model/build_args.h"
#include "model/measured.h"
#include "model/select.h"

void pat_vsites_init(pat_vsites *t) { memset(t, 0, sizeof *t); }

/* floor(4 log2 x) for x >= 1, from the leading bit and the two after it:
 * integer arithmetic, so every rank's bucket is the same. */
static uint64_t quarter_octave(uint64_t x) {
  if (x == 0) return 0;
  int e = 63 - __builtin_clzll(x);
  uint64_t frac = e >= 2 ? (x >> (e - 2)) & 3 : (x << (2 - e)) & 3;
  return 4 * (uint64_t)e + frac;
}

uint64_t pat_vsig(int P, const int64_t *bytes) {
  uint64_t total = 0, largest = 0, empty = 0;
  for (int r = 0; r < P; r++) {
    uint64_t b = bytes[r] > 0 ? (uint64_t)bytes[r] : 0;
    total += b;
    if (b > largest) largest = b;
    empty |= b == 0;
  }
  /* largest / mean in eighths: 8 (equal blocks) .. 8 P */
  uint64_t skew = total ? (uint64_t)((unsigned __int128)largest * (unsigned)P * 8 / total) : 0;
  return 1 | empty << 1 | quarter_octave(skew) << 2 | quarter_octave(total) << 16;
}

int pat_vsites_find(pat_vsites *t, uint64_t sig) {
  for (int i = 0; i < PAT_VSITES; i++) {
    pat_vsite *s = &t->site[i];
    if (s->sig == sig) {
      s->used = ++t->clock;
      s->calls++;
      return i;
    }
  }
  return -1;
}

int pat_vsites_put(pat_vsites *t, uint64_t sig, int alg) {
  int slot = 0;
  for (int i = 0; i < PAT_VSITES; i++) {
    if (!t->site[i].sig) {
      slot = i;
      break;
    }
    if (t->site[i].used < t->site[slot].used) slot = i;
  }
  t->site[slot] = (pat_vsite){.sig = sig, .alg = alg, .used = ++t->clock, .calls = 1};
  return slot;
}

/* ---- predictions ---- */

/* The candidates besides NATIVE; RELAY last (it is not a classic response). */
static const int candidates[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_DIRECT, PAT_ALG_RELAY};

/* alg's schedule built for blocks of build_bytes (or build_sizes, P
 * entries, where not NULL), replayed on balanced arrivals with blocks of
 * `size` (P entries) or, size NULL, all of equal_bytes: its mean time (s). */
static int replay_once(const pat_model_params *mp, int alg, int P, double build_bytes, const int64_t *build_sizes,
                       const double *size, double equal_bytes, double *ebar) {
  pat_build_args args = pat_call_build_args(mp, alg, P, mp->node, PAT_ALL_RANKS, NULL, build_bytes, 0);
  args.block_sizes = build_sizes;
  pat_sched s;
  int rc = pat_build(alg, &s, &args);
  if (rc != PAT_OK) return rc;
  pat_model_result r;
  memset(&r, 0, sizeof r);
  rc = size ? pat_model_replay_v(&s, NULL, mp, size, &r) : pat_model_replay(&s, NULL, mp, equal_bytes, &r);
  pat_sched_free(&s);
  *ebar = r.ebar;
  return rc;
}

/* Is alg's schedule estimated (from rank 0's ops) over the selection's
 * per-call budget of ops? */
static int over_budget(const pat_model_params *mp, int alg, int P, double build_bytes) {
  pat_build_args args = pat_call_build_args(mp, alg, P, mp->node, 0, NULL, build_bytes, 0);
  pat_sched s;
  if (pat_build(alg, &s, &args) != PAT_OK) return 1;
  size_t ops = s.nops * (size_t)P;
  pat_sched_free(&s);
  return ops > PAT_SELECT_ARRIVAL_MAX_OPS;
}

/* How much longer alg takes on these sizes (bytes, and as doubles size)
 * than on equal blocks of their mean (s); the schedules are the ones
 * PAT_Allgatherv runs (RELAY's pieces by each block's size). */
static int response(const pat_model_params *mp, int alg, int P, const int64_t *bytes, const double *size, double mean,
                    double largest, double *out) {
  if (over_budget(mp, alg, P, largest)) return PAT_SELECT_OVER_BUDGET;
  double unequal, equal;
  int rc = replay_once(mp, alg, P, mean, bytes, size, 0, &unequal);
  if (rc == PAT_OK) rc = replay_once(mp, alg, P, mean, NULL, NULL, mean, &equal);
  if (rc == PAT_OK) *out = unequal - equal;
  return rc;
}

int pat_vchoice_predict(const pat_model_params *mp, int P, const int64_t *bytes, double *ebar_s) {
  for (int a = 0; a < PAT_ALG_COUNT; a++) ebar_s[a] = NAN;
  if (P < 2 || P > PAT_VCHOICE_MAX_P) return 0;
  double total = 0, largest = 0;
  for (int r = 0; r < P; r++) {
    total += (double)bytes[r];
    if ((double)bytes[r] > largest) largest = (double)bytes[r];
  }
  double mean = total / P, native;
  if (!pat_model_measured_time(mp, PAT_ALG_NATIVE, P, mean, &native)) return 0;
  double *size = malloc((size_t)P * sizeof *size);
  if (!size) return 0;
  for (int r = 0; r < P; r++) size[r] = (double)bytes[r];
  double classic_response = INFINITY;
  int predicted = 1;
  for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
    int alg = candidates[i];
    double level, extra;
    if (!pat_model_measured_time(mp, alg, P, mean, &level)) continue;
    if (response(mp, alg, P, bytes, size, mean, largest, &extra) != PAT_OK) continue;
    ebar_s[alg] = level + extra > 0 ? level + extra : 0;
    predicted++;
    if (alg != PAT_ALG_RELAY && extra < classic_response) classic_response = extra;
  }
  free(size);
  ebar_s[PAT_ALG_NATIVE] = native + (isfinite(classic_response) && classic_response > 0 ? classic_response : 0);
  return predicted;
}

int pat_vchoice(const pat_model_params *mp, int P, const int64_t *bytes) {
  if (P < 2 || P > PAT_VCHOICE_MAX_P) return PAT_ALG_NATIVE;
  double total = 0, native;
  for (int r = 0; r < P; r++) total += (double)bytes[r];
  if (total == 0 || !pat_model_measured_time(mp, PAT_ALG_NATIVE, P, total / P, &native) ||
      native < PAT_VCHOICE_MIN_S)
    return PAT_ALG_NATIVE;
  double ebar[PAT_ALG_COUNT];
  if (pat_vchoice_predict(mp, P, bytes, ebar) < 2) return PAT_ALG_NATIVE;
  int best = PAT_ALG_NATIVE;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (!isnan(ebar[alg]) && pat_quantise_ns(ebar[alg]) < pat_quantise_ns(ebar[best])) best = alg;
  if (best == PAT_ALG_NATIVE || pat_static_native_stays(mp, P, best, ebar[best], ebar[PAT_ALG_NATIVE], total / P))
    return PAT_ALG_NATIVE;
  return best;
}
