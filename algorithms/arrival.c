/*
 * Helpers shared by the arrival-aware builders (BDR, BSLB, ARD): the order in
 * which ranks are predicted to arrive, and their arrival slots in units of
 * tau.  Integer arithmetic only, so every rank derives the same answer.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

typedef struct arrival_key {
  int64_t a;
  int rank;
} arrival_key;

static int earliest_first(const void *x, const void *y) {
  const arrival_key *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return p->rank - q->rank;
}

static int latest_first(const void *x, const void *y) {
  const arrival_key *p = x, *q = y;
  if (p->a != q->a) return p->a > q->a ? -1 : 1;
  return p->rank - q->rank;
}

int pat_arrival_order(int P, const int64_t *arrival, int latest, int *order) {
  if (!arrival) {
    for (int r = 0; r < P; r++) order[r] = r;
    return PAT_OK;
  }
  arrival_key *k = malloc((size_t)P * sizeof *k);
  if (!k) return PAT_ENOMEM;
  for (int r = 0; r < P; r++) {
    k[r].a = arrival[r];
    k[r].rank = r;
  }
  qsort(k, (size_t)P, sizeof *k, latest ? latest_first : earliest_first);
  for (int i = 0; i < P; i++) order[i] = k[i].rank;
  free(k);
  return PAT_OK;
}

void pat_arrival_slots(int P, const int64_t *arrival, int64_t tau, int32_t *slot) {
  if (!arrival || tau <= 0) {
    for (int r = 0; r < P; r++) slot[r] = 0;
    return;
  }
  int64_t amin = arrival[0];
  for (int r = 1; r < P; r++)
    if (arrival[r] < amin) amin = arrival[r];
  for (int r = 0; r < P; r++) {
    /* a_r - amin >= 0; compute in unsigned to survive any int64 range */
    uint64_t d = (uint64_t)arrival[r] - (uint64_t)amin, q = d / (uint64_t)tau;
    slot[r] = q > PAT_MAX_ARRIVAL_SLOT ? PAT_MAX_ARRIVAL_SLOT : (int32_t)q;
  }
}

int pat_arrivals_near(const pat_build_args *a) {
  if (!a->arrival || a->tau <= 0) return 1;
  int64_t lo = a->arrival[0], hi = a->arrival[0];
  for (int r = 1; r < a->P; r++) {
    if (a->arrival[r] < lo) lo = a->arrival[r];
    if (a->arrival[r] > hi) hi = a->arrival[r];
  }
  return hi - lo < 2 * a->tau;
}
