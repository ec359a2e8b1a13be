/* Measured costs per regime and exploration (see explore.h). */
#include "decide/explore.h"

#include <string.h>


void pat_arms_init(pat_arms *a) {
  memset(a, 0, sizeof *a);
  a->last_explore = -1;
  for (int r = 0; r < PAT_REGIMES; r++) {
    a->model_pick[r] = -1;
    a->recheck_alg[r] = -1;
  }
}

int pat_arms_model_pick(pat_arms *a, int regime, int pick) {
  if (regime < 0 || regime >= PAT_REGIMES) return pick;
  if (a->model_pick[regime] < 0) a->model_pick[regime] = pick;
  return a->model_pick[regime];
}

int pat_regime(int P, const int64_t *arrival, double tau_s) {
  int64_t lo = arrival[0], hi = arrival[0];
  for (int i = 1; i < P; i++) {
    if (arrival[i] < lo) lo = arrival[i];
    if (arrival[i] > hi) hi = arrival[i];
  }
  return 1e-9 * (double)(hi - lo) >= tau_s ? PAT_REGIME_IMBALANCED : PAT_REGIME_BALANCED;
}

int pat_regime_at(int P, const int64_t *arrival, double tau_s, double call_s) {
  const double floor = PAT_REGIME_JITTER * call_s;
  return pat_regime(P, arrival, tau_s > floor ? tau_s : floor);
}

void pat_arms_add(pat_arms *a, int regime, int alg, double cost, double over_bound, long long now) {
  if (regime < 0 || regime >= PAT_REGIMES || alg < 0 || alg >= PAT_ALG_COUNT) return;
  pat_arm *m = &a->arm[regime][alg];
  m->cost[m->n % PAT_ARM_SAMPLES] = cost;
  m->over_bound[m->n % PAT_ARM_SAMPLES] = over_bound > 0 ? over_bound : 0;
  m->at[m->n % PAT_ARM_SAMPLES] = now;
  m->n++;
}

double pat_median_small(const double *v, int n) {
  double s[PAT_ARM_SAMPLES];
  memcpy(s, v, (size_t)n * sizeof *s);
  for (int i = 1; i < n; i++) /* insertion sort of at most five */
    for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
      double t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int pat_arms_cost(const pat_arms *a, int regime, int alg, double *cost) {
  const pat_arm *m = &a->arm[regime][alg];
  int n = m->n < PAT_ARM_SAMPLES ? m->n : PAT_ARM_SAMPLES;
  if (n == 0) return 0;
  *cost = pat_median_small(m->cost, n);
  return 1;
}

int pat_arms_near_bound(const pat_arms *a, int regime, unsigned candidates) {
  if (regime < 0 || regime >= PAT_REGIMES) return 0;
  int best = -1;
  double cheapest = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double c;
    if ((candidates >> alg & 1u) && a->arm[regime][alg].n >= PAT_EXPLORE_K && pat_arms_cost(a, regime, alg, &c) &&
        (best < 0 || c < cheapest)) {
      best = alg;
      cheapest = c;
    }
  }
  if (best < 0) return 0;
  double r;
  /* measured below its bound, the bound is wrong (the block time is too
   * long): it says nothing */
  return pat_arms_over_bound(a, regime, best, &r) && r >= PAT_BOUND_FLOOR && r <= 1.0 + PAT_NEAR_BOUND;
}

int pat_arms_over_bound(const pat_arms *a, int regime, int alg, double *ratio) {
  const pat_arm *m = &a->arm[regime][alg];
  int n = m->n < PAT_ARM_SAMPLES ? m->n : PAT_ARM_SAMPLES;
  if (n == 0) return 0;
  for (int i = 0; i < n; i++)
    if (!(m->over_bound[i] > 0)) return 0; /* a sample without a bound says nothing */
  *ratio = pat_median_small(m->over_bound, n);
  return 1;
}

unsigned pat_explore_candidates(int static_alg, int model_best, unsigned allowed, int hierarchical) {
  unsigned c = hierarchical ? (1u << PAT_ALG_HRELAY) | (1u << PAT_ALG_HRING) | (1u << PAT_ALG_RING)
                            : (1u << PAT_ALG_RELAY) | (1u << PAT_ALG_DIRECT) | (1u << PAT_ALG_RING);
  if (model_best >= 0 && model_best < PAT_ALG_COUNT) c |= 1u << model_best;
  if (allowed) c &= allowed;
  if (static_alg >= 0 && static_alg < PAT_ALG_COUNT) c &= ~(1u << static_alg);
  return c;
}

/* Has a candidate still to explore measured, every sample of it,
 * PAT_EXPLORE_DROP times the cheapest known (one sample short of dropped)? */
static int looks_far(const pat_arm *m, double cheapest) {
  if (m->n < 1 || !(cheapest > 0)) return 0;
  int n = m->n < PAT_ARM_SAMPLES ? m->n : PAT_ARM_SAMPLES;
  for (int i = 0; i < n; i++)
    if (m->cost[i] < PAT_EXPLORE_DROP * cheapest) return 0;
  return 1;
}

/* Two samples that both measured PAT_EXPLORE_DROP times the cheapest known
 * cost: a third cannot make it the cheapest. */
static int dropped(const pat_arm *m, double cheapest) { return m->n >= 2 && looks_far(m, cheapest); }

double pat_arms_cheapest_known(const pat_arms *a, int regime, unsigned candidates, double ref) {
  double cheapest = ref > 0 ? ref : 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double c;
    if ((candidates >> alg & 1u) && a->arm[regime][alg].n >= PAT_EXPLORE_K && pat_arms_cost(a, regime, alg, &c) &&
        (cheapest <= 0 || c < cheapest))
      cheapest = c;
  }
  return cheapest;
}

/* Is alg a candidate still to explore: fewer than PAT_EXPLORE_K samples, not dropped? */
static int to_explore(const pat_arms *a, int regime, unsigned candidates, int alg, double cheapest) {
  const pat_arm *m = &a->arm[regime][alg];
  return (candidates >> alg & 1u) && m->n < PAT_EXPLORE_K && !dropped(m, cheapest);
}

int pat_arms_barred(const pat_arms *a, int regime, unsigned candidates, int alg, double ref) {
  if (regime < 0 || regime >= PAT_REGIMES || alg < 0 || alg >= PAT_ALG_COUNT) return 0;
  return dropped(&a->arm[regime][alg], pat_arms_cheapest_known(a, regime, candidates, ref));
}

int pat_arms_median_at_least(const pat_arms *a, int regime, int alg, double over) {
  if (regime < 0 || regime >= PAT_REGIMES || alg < 0 || alg >= PAT_ALG_COUNT) return 0;
  const pat_arm *m = &a->arm[regime][alg];
  if (m->n >= PAT_EXPLORE_K) return 0;
  int at_least = 0;
  for (int i = 0; i < m->n; i++) at_least += m->cost[i] >= over;
  return at_least > PAT_EXPLORE_K / 2;
}

int pat_explore_every(const pat_arms *a, int regime, unsigned candidates, double ref) {
  if (pat_arms_near_bound(a, regime, ~0u)) return PAT_EXPLORE_EVERY_NEAR;
  const double cheapest = pat_arms_cheapest_known(a, regime, candidates, ref);
  int due = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!to_explore(a, regime, candidates, alg, cheapest)) continue;
    if (!looks_far(&a->arm[regime][alg], cheapest)) return PAT_EXPLORE_EVERY;
    due = 1;
  }
  return due ? PAT_EXPLORE_EVERY_NEAR : PAT_EXPLORE_EVERY;
}

int pat_explore_next(const pat_arms *a, int regime, unsigned candidates, const double *est, double ref) {
  const double cheapest = pat_arms_cheapest_known(a, regime, candidates, ref);
  int pick = -1;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (to_explore(a, regime, candidates, alg, cheapest) && (pick < 0 || est[alg] < est[pick])) pick = alg;
  return pick;
}

/* The site call of alg's newest sample (-1: none). */
static long long newest(const pat_arm *m) { return m->n > 0 ? m->at[(m->n - 1) % PAT_ARM_SAMPLES] : -1; }

/* The site call of alg's oldest kept sample (-1: none). */
static long long oldest(const pat_arm *m) {
  const int n = m->n < PAT_ARM_SAMPLES ? m->n : PAT_ARM_SAMPLES;
  long long first = -1;
  for (int i = 0; i < n; i++)
    if (first < 0 || m->at[i] < first) first = m->at[i];
  return first;
}

int pat_explore_recheck(const pat_arms *a, int regime, unsigned candidates, double ref, long long now, int *going) {
  *going = 0;
  if (regime < 0 || regime >= PAT_REGIMES) return -1;
  const int on = a->recheck_alg[regime], done = a->recheck_calls[regime];
  /* a recheck replaces every sample of the median (its old ones are from calls of another phase
   * of the network); a full one at once, another runs one call first, and its sample, if it beats
   * the others, asks for the rest.  One left off (its first call did not beat the others, or the
   * credit ran out) is over: its old samples in a median of new ones would be the very mix a
   * recheck is there to end */
  if (on >= 0 && (candidates >> on & 1u) && done > 0 && done < PAT_ARM_SAMPLES &&
      now - a->recheck_last[regime] <= PAT_RECHECK_FRESH) {
    const pat_arm *m = &a->arm[regime][on];
    const double other = pat_arms_cheapest_known(a, regime, candidates & ~(1u << on), ref);
    *going = done >= 2 || a->recheck_full[regime] ||
             (m->n > a->recheck_n[regime] && other > 0 && m->cost[a->recheck_n[regime] % PAT_ARM_SAMPLES] < other);
    if (*going) return on;
  }
  const double cheapest = pat_arms_cheapest_known(a, regime, candidates, ref);
  if (!(cheapest > 0)) return -1;
  int pick = -1;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    const pat_arm *m = &a->arm[regime][alg];
    double c;
    if (!(candidates >> alg & 1u) || m->n < PAT_EXPLORE_K || now - newest(m) < PAT_RECHECK_AGE ||
        !pat_arms_cost(a, regime, alg, &c) || c <= cheapest || c > (1.0 + PAT_RECHECK_NEAR) * cheapest)
      continue;
    if (pick < 0 || newest(m) < newest(&a->arm[regime][pick])) pick = alg; /* the stalest first */
  }
  return pick;
}

void pat_arms_rechecked(pat_arms *a, int regime, int alg, int how, long long now) {
  if (regime < 0 || regime >= PAT_REGIMES || alg < 0 || alg >= PAT_ALG_COUNT || how == PAT_RECHECK_NONE) return;
  a->recheck_last[regime] = now;
  if (how == PAT_RECHECK_GOING && a->recheck_alg[regime] == alg) {
    a->recheck_calls[regime]++;
    return;
  }
  a->recheck_alg[regime] = alg;
  a->recheck_n[regime] = a->arm[regime][alg].n;
  a->recheck_calls[regime] = 1;
  a->recheck_full[regime] = how == PAT_RECHECK_START_FULL;
}

int pat_arms_confirm_leader(const pat_arms *a, int regime, int leader, int alg) {
  if (regime < 0 || regime >= PAT_REGIMES || leader < 0 || leader >= PAT_ALG_COUNT || alg == leader ||
      a->recheck_alg[regime] != alg)
    return 0;
  const pat_arm *l = &a->arm[regime][leader], *m = &a->arm[regime][alg];
  return l->n > 0 && m->n - a->recheck_n[regime] >= PAT_ARM_SAMPLES && oldest(l) < oldest(m);
}

int pat_arms_fresh(const pat_arms *a, int regime, int alg, long long now) {
  if (regime < 0 || regime >= PAT_REGIMES || alg < 0 || alg >= PAT_ALG_COUNT) return 0;
  const pat_arm *m = &a->arm[regime][alg];
  return m->n > 0 && now - newest(m) <= PAT_RECHECK_FRESH;
}
