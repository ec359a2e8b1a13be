/* auto's choice for libpat's non-blocking all-gathers, by measurement (see nbc_choice.h). */
#include "decide/nbc_choice.h"

#include <string.h>

void pat_nbc_choice_init(pat_nbc_choice *c) {
  memset(c, 0, sizeof *c);
  c->last_run[PAT_NBC_AWARE] = c->last_run[PAT_NBC_PLAIN] = -1;
}

static double median(const pat_nbc_choice *c, int cand) {
  int n = c->samples[cand] < PAT_ARM_SAMPLES ? c->samples[cand] : PAT_ARM_SAMPLES;
  return pat_median_small(c->cost[cand], n);
}

/* Run but not measured yet: its sample comes with the next call. */
static int pending(const pat_nbc_choice *c, int cand) { return c->runs[cand] > c->samples[cand]; }

int pat_nbc_choice_peek(const pat_nbc_choice *c) {
  const int aware = PAT_NBC_AWARE, plain = PAT_NBC_PLAIN;
  if (c->runs[aware] < PAT_NBC_FIRST_RUNS) return aware;
  if (c->runs[plain] == 0) return plain;
  if (!c->samples[aware] || !c->samples[plain]) return aware; /* the other's sample is on its way */
  if (c->runs[plain] == 1 && !pending(c, plain) && c->cost[plain][0] <= PAT_NBC_SECOND_TRY * median(c, aware))
    return plain;
  int best = median(c, plain) < PAT_NBC_MARGIN * median(c, aware) ? plain : aware, other = 1 - best;
  if (pending(c, other)) return best;
  long long every = median(c, other) >= PAT_EXPLORE_DROP * median(c, best) ? PAT_NBC_RECHECK_SLOW : PAT_NBC_RECHECK;
  return c->calls - c->last_run[other] >= every ? other : best;
}

int pat_nbc_choice_take(pat_nbc_choice *c) {
  int cand = pat_nbc_choice_peek(c);
  c->runs[cand]++;
  c->last_run[cand] = c->calls++;
  return cand;
}

void pat_nbc_choice_add(pat_nbc_choice *c, int cand, double cost) {
  if (cand < 0 || cand >= PAT_NBC_CANDIDATES) return;
  c->cost[cand][c->samples[cand] % PAT_ARM_SAMPLES] = cost;
  c->samples[cand]++;
}
