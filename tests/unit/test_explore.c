/* Exploration's rule (decide/explore.h), alone: on random sites with a
 * planted best candidate 10% cheaper than every other, with measurements
 * 5% noisy and a model whose ranking is random, a kept alternative that
 * explores as the engine does (one call in pat_explore_every, the rule's
 * pick; the others run the cheapest by measurement) has every candidate
 * measured PAT_EXPLORE_K times or dropped within EVERY * PAT_EXPLORE_K * C
 * calls (C candidates; EVERY: PAT_EXPLORE_EVERY, PAT_EXPLORE_EVERY_NEAR
 * where the best is near the bound), never leaves a candidate 10% cheaper
 * than the one it runs unexplored longer than that, and from then on runs
 * the planted best.  Half the sites have the best 1.1x the bound (near),
 * half 2x (far: they explore every PAT_EXPLORE_EVERY calls).  The regimes
 * are kept apart, and the median ignores one cold sample. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decide/explore.h"
#include "testutil.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* The cheapest candidate by measurement (median), else by the model's est. */
static int cheapest(const pat_arms *a, int regime, unsigned cand, const double *model) {
  int best = -1;
  double best_c = INFINITY;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(cand >> alg & 1u)) continue;
    double c;
    if (!pat_arms_cost(a, regime, alg, &c)) c = model[alg];
    if (c < best_c) {
      best_c = c;
      best = alg;
    }
  }
  return best;
}

/* The oracle of the far candidates' wait: has every candidate still to
 * explore (fewer than K samples) been measured, every sample
 * PAT_EXPLORE_DROP times the cheapest known (S or a median of K)? */
static int all_far(const pat_arms *a, int regime, unsigned cand, double S) {
  double cheapest = S;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double c;
    if ((cand >> alg & 1u) && pat_arms_n(a, regime, alg) >= PAT_EXPLORE_K && pat_arms_cost(a, regime, alg, &c) &&
        c < cheapest)
      cheapest = c;
  }
  int any = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    const pat_arm *m = &a->arm[regime][alg];
    if (!(cand >> alg & 1u) || m->n >= PAT_EXPLORE_K) continue;
    if (m->n == 0) return 0;
    for (int i = 0; i < m->n && i < PAT_ARM_SAMPLES; i++)
      if (m->cost[i] < PAT_EXPLORE_DROP * cheapest) return 0;
    any = 1;
  }
  return any;
}

static int test_rule(void) {
  int worst_found = 0;
  for (int site = 0; site < 2000; site++) {
    pat_arms a;
    pat_arms_init(&a);
    int static_alg = urand() < 0.5 ? PAT_ALG_NATIVE : PAT_ALG_DIRECT;
    int model_best = (int)(urand() * PAT_ALG_COUNT);
    unsigned cand = pat_explore_candidates(static_alg, model_best, 0, 0);
    int C = 0;
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) C += cand >> alg & 1u;
    CHECK(C >= 2 && C <= 4 && !(cand >> static_alg & 1u) && (cand >> PAT_ALG_RELAY & 1u) &&
              (static_alg == PAT_ALG_DIRECT || (cand >> PAT_ALG_DIRECT & 1u)),
          "site %d: candidates 0x%x: RELAY, DIRECT and RING but the static choice, and the model's pick", site, cand);
    int regime = site % 2;
    double truth[PAT_ALG_COUNT], model[PAT_ALG_COUNT];
    int planted = -1;
    { /* a random candidate is the best, every other at least 10% dearer */
      int pick = (int)(urand() * C), i = 0;
      for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
        if (cand >> alg & 1u) {
          if (i++ == pick) planted = alg;
        }
    }
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
      truth[alg] = alg == planted ? 1.0 : 1.1 + 1.5 * urand();
      model[alg] = 0.5 + urand(); /* a model that ranks them at random */
    }
    const double S = 1.0 + 2.0 * urand(); /* the static choice's cost, the drop rule's reference */
    const int near = site % 4 < 2;
    const double bound = near ? 1.0 / 1.1 : 0.5; /* e_lb, as e-bar is the cost here */
    int budget = (near ? PAT_EXPLORE_EVERY_NEAR : PAT_EXPLORE_EVERY) * PAT_EXPLORE_K * C;
    int went_near = 0, deferred = 0;
    long long last_explore = -1;
    int unexplored_since[PAT_ALG_COUNT];
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) unexplored_since[alg] = -1;
    int settled = -1;
    for (int call = 0; call < 200; call++) {
      double est[PAT_ALG_COUNT];
      for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
        double c;
        est[alg] = pat_arms_cost(&a, regime, alg, &c) ? c : model[alg];
      }
      int run = -1;
      const int every = pat_explore_every(&a, regime, cand, S);
      went_near |= every == PAT_EXPLORE_EVERY_NEAR;
      if (!near && every == PAT_EXPLORE_EVERY_NEAR) {
        deferred = 1;
        CHECK(all_far(&a, regime, cand, S), "site %d: 2x the bound is not near it, and a candidate to explore "
              "has a sample under %.1fx the cheapest", site, PAT_EXPLORE_DROP);
      }
      if (deferred) budget = PAT_EXPLORE_EVERY_NEAR * PAT_EXPLORE_K * C;
      if (call - last_explore >= every) {
        run = pat_explore_next(&a, regime, cand, est, S);
        if (run >= 0) last_explore = call;
      }
      if (run < 0) run = cheapest(&a, regime, cand, model);
      if (run < 0) break;
      /* a candidate 10% cheaper than what runs, not measured K times: how long has it waited? */
      for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
        int waiting = (cand >> alg & 1u) && truth[alg] < 0.9 * truth[run] && pat_arms_n(&a, regime, alg) < PAT_EXPLORE_K;
        if (!waiting) unexplored_since[alg] = -1;
        else if (unexplored_since[alg] < 0) unexplored_since[alg] = call;
        CHECK(!waiting || call - unexplored_since[alg] <= budget,
              "site %d: %s, %.0f%% cheaper than %s, unexplored for %d calls (at most %d)", site,
              pat_algorithms[alg].name, 100 * (1 - truth[alg] / truth[run]), pat_algorithms[run].name,
              call - unexplored_since[alg], budget);
      }
      double noise = 0.95 + 0.1 * urand();
      double cold = pat_arms_n(&a, regime, run) == 0 ? 1.8 : 1.0; /* its first call builds and touches cold */
      pat_arms_add(&a, regime, run, truth[run] * noise * cold, truth[run] * noise * cold / bound, 0);
      pat_arms_add(&a, 1 - regime, run, 10.0, 0, 0); /* the other regime's costs must not count here */
      if (settled < 0 && pat_explore_next(&a, regime, cand, est, S) < 0) settled = call;
    }
    CHECK(settled >= 0 && settled <= budget, "site %d: exploration over at call %d (budget %d, %d candidates)", site,
          settled, budget, C);
    if (settled > worst_found) worst_found = settled;
    CHECK(!near || went_near, "site %d: the best at 1.1x the bound, measured, is near it", site);
    int final = cheapest(&a, regime, cand, model);
    CHECK(final == planted, "site %d: runs %s (%.2f) after exploring, the planted best is %s", site,
          final >= 0 ? pat_algorithms[final].name : "-", final >= 0 ? truth[final] : 0.0, pat_algorithms[planted].name);
  }
  printf("exploration over within %d calls at the latest\n", worst_found);
  return 0;
}

static int test_basics(void) {
  pat_arms a;
  pat_arms_init(&a);
  double c;
  CHECK(!pat_arms_cost(&a, 0, PAT_ALG_RING, &c), "no sample, no cost");
  const double x[] = {5, 1, 3, 100, 2, 4, 6};
  for (int i = 0; i < 7; i++) pat_arms_add(&a, 0, PAT_ALG_RING, x[i], 0, 0);
  /* the last five: 3, 100, 2, 4, 6 */
  CHECK(pat_arms_cost(&a, 0, PAT_ALG_RING, &c) && c == 4, "median of the last five: %g", c);
  CHECK(pat_arms_n(&a, 0, PAT_ALG_RING) == 7 && pat_arms_n(&a, 1, PAT_ALG_RING) == 0, "counts per regime");
  int64_t bal[4] = {0, 1000, 2000, 999999}, imb[4] = {0, 1000, 2000, 1000000};
  CHECK(pat_regime(4, bal, 1e-3) == PAT_REGIME_BALANCED && pat_regime(4, imb, 1e-3) == PAT_REGIME_IMBALANCED,
        "regime: spread against tau");
  /* the drop rule: two samples 1.5x the cheapest known, no third */
  pat_arms_init(&a);
  unsigned cand = (1u << PAT_ALG_RELAY) | (1u << PAT_ALG_RING);
  double est[PAT_ALG_COUNT] = {0};
  for (int i = 0; i < PAT_EXPLORE_K; i++) pat_arms_add(&a, 0, PAT_ALG_RELAY, 1.0, 0, 0);
  pat_arms_add(&a, 0, PAT_ALG_RING, 1.6, 0, 0);
  CHECK(pat_explore_next(&a, 0, cand, est, 0) == PAT_ALG_RING, "one sample at 1.6x: explored again");
  CHECK(pat_explore_every(&a, 0, cand, 0) == PAT_EXPLORE_EVERY_NEAR, "... after the longer interval");
  unsigned cand3 = cand | 1u << PAT_ALG_DIRECT;
  CHECK(pat_explore_every(&a, 0, cand3, 0) == PAT_EXPLORE_EVERY, "another candidate not yet measured: the short one");
  pat_arms_add(&a, 0, PAT_ALG_DIRECT, 1.2, 0, 0);
  CHECK(pat_explore_every(&a, 0, cand3, 0) == PAT_EXPLORE_EVERY, "another measured at 1.2x: the short one");
  pat_arms_add(&a, 0, PAT_ALG_RING, 1.7, 0, 0);
  CHECK(pat_explore_next(&a, 0, cand, est, 0) == -1, "two samples at 1.6-1.7x: dropped");
  /* near the bound: the cheapest measured candidate's median e-bar / e_lb */
  pat_arms_init(&a);
  const double ratio[] = {1.1, 3.0, 1.2}; /* a cold first call far above, median 1.2 */
  for (int i = 0; i < 2; i++) pat_arms_add(&a, 1, PAT_ALG_RELAY, 1.0, ratio[i], 0);
  CHECK(!pat_arms_near_bound(&a, 1, ~0u), "two samples: not enough to say");
  pat_arms_add(&a, 1, PAT_ALG_RELAY, 1.0, ratio[2], 0);
  CHECK(pat_arms_near_bound(&a, 1, ~0u) && pat_explore_every(&a, 1, ~0u, 0) == PAT_EXPLORE_EVERY_NEAR,
        "median 1.2x the bound: near");
  CHECK(!pat_arms_near_bound(&a, 0, ~0u) && pat_explore_every(&a, 0, ~0u, 0) == PAT_EXPLORE_EVERY,
        "the other regime has no samples");
  for (int i = 0; i < 3; i++) pat_arms_add(&a, 1, PAT_ALG_DIRECT, 0.9, 1.4, 0);
  CHECK(!pat_arms_near_bound(&a, 1, ~0u), "the cheapest (direct) at 1.4x the bound: not near");
  CHECK(pat_arms_near_bound(&a, 1, 1u << PAT_ALG_RELAY), "among relay alone: near");
  pat_arms_init(&a);
  for (int i = 0; i < 3; i++) pat_arms_add(&a, 0, PAT_ALG_RING, 1.0, i == 1 ? 0 : 1.0, 0);
  CHECK(!pat_arms_near_bound(&a, 0, ~0u), "a sample without a bound: not near");
  pat_arms_init(&a);
  for (int i = 0; i < 3; i++) pat_arms_add(&a, 0, PAT_ALG_RING, 1.0, 0.7, 0);
  CHECK(!pat_arms_near_bound(&a, 0, ~0u), "measured at 0.7x its bound: the bound is wrong, not near");
  return 0;
}

/* On a hierarchical node map the candidates are the node algorithms and
 * RING, never the flat RELAY and DIRECT; the model's pick of a regime is its
 * first one, whatever later calls pick. */
static int test_candidates(void) {
  const unsigned flat = pat_explore_candidates(-1, -1, 0, 0), nodes = pat_explore_candidates(-1, -1, 0, 1);
  CHECK(flat == ((1u << PAT_ALG_RELAY) | (1u << PAT_ALG_DIRECT) | (1u << PAT_ALG_RING)), "flat candidates %#x", flat);
  CHECK(nodes == ((1u << PAT_ALG_HRELAY) | (1u << PAT_ALG_HRING) | (1u << PAT_ALG_RING)), "node candidates %#x",
        nodes);
  CHECK(pat_explore_candidates(PAT_ALG_RING, PAT_ALG_BRUCK, 0, 1) ==
            ((1u << PAT_ALG_HRELAY) | (1u << PAT_ALG_HRING) | (1u << PAT_ALG_BRUCK)),
        "less the static choice, with the model's pick");
  CHECK(pat_explore_candidates(-1, -1, 1u << PAT_ALG_HRING, 1) == 1u << PAT_ALG_HRING, "only what is allowed");
  pat_arms a;
  pat_arms_init(&a);
  CHECK(pat_arms_model_pick(&a, PAT_REGIME_BALANCED, PAT_ALG_NEX) == PAT_ALG_NEX, "the first pick");
  CHECK(pat_arms_model_pick(&a, PAT_REGIME_BALANCED, PAT_ALG_RDB) == PAT_ALG_NEX, "the first pick stays");
  CHECK(pat_arms_model_pick(&a, PAT_REGIME_IMBALANCED, PAT_ALG_RDB) == PAT_ALG_RDB, "per regime");
  return 0;
}

/* Rechecks: a measured candidate within PAT_RECHECK_NEAR of the cheapest,
 * its last sample PAT_RECHECK_AGE calls old, is measured again, the stalest
 * first; one call, then the rest of PAT_ARM_SAMPLES only if that call beat
 * the others (a full recheck runs them all); a far or young one is not. */
static int test_recheck(void) {
  const unsigned cand = (1u << PAT_ALG_RELAY) | (1u << PAT_ALG_DIRECT) | (1u << PAT_ALG_RING);
  pat_arms a;
  pat_arms_init(&a);
  for (int i = 0; i < PAT_ARM_SAMPLES; i++) {
    pat_arms_add(&a, 0, PAT_ALG_RELAY, 1.20, 0, 10); /* near, stalest */
    pat_arms_add(&a, 0, PAT_ALG_RING, 1.10, 0, 20);  /* near */
    pat_arms_add(&a, 0, PAT_ALG_DIRECT, 1.00, 0, 100); /* the cheapest, run now */
  }
  int going;
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 70, &going) == -1 && !going, "60 calls old: not yet");
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 100, &going) == PAT_ALG_RELAY && !going, "the stalest near one");
  CHECK(pat_explore_recheck(&a, 0, cand, 0.5, 100, &going) == -1, "a static choice at half: nothing near");
  pat_arms_rechecked(&a, 0, PAT_ALG_RELAY, PAT_RECHECK_START, 100);
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 101, &going) != PAT_ALG_RELAY || !going, "no sample yet: not going");
  pat_arms_add(&a, 0, PAT_ALG_RELAY, 1.05, 0, 101); /* not below DIRECT's 1.00 */
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 102, &going) == PAT_ALG_RING && !going,
        "a first call above the cheapest ends the recheck; the next stalest is due");
  pat_arms_rechecked(&a, 0, PAT_ALG_RING, PAT_RECHECK_START, 102);
  pat_arms_add(&a, 0, PAT_ALG_RING, 0.90, 0, 102); /* below DIRECT: the rest */
  int calls = 1;
  while (pat_explore_recheck(&a, 0, cand, 0, 102 + calls, &going) == PAT_ALG_RING && going) {
    pat_arms_rechecked(&a, 0, PAT_ALG_RING, PAT_RECHECK_GOING, 102 + calls);
    pat_arms_add(&a, 0, PAT_ALG_RING, 0.90, 0, 102 + calls);
    calls++;
  }
  double c = 0;
  CHECK(calls == PAT_ARM_SAMPLES && pat_arms_cost(&a, 0, PAT_ALG_RING, &c) && c == 0.90,
        "a first call below the cheapest: %d calls, median %.2f (the old samples replaced)", calls, c);
  pat_arms_rechecked(&a, 0, PAT_ALG_RELAY, PAT_RECHECK_START_FULL, 110);
  pat_arms_add(&a, 0, PAT_ALG_RELAY, 1.3, 0, 110);
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 111, &going) == PAT_ALG_RELAY && going, "a full recheck goes on");
  /* one left off does not resume later, with its old samples in its median */
  pat_arms_rechecked(&a, 0, PAT_ALG_RELAY, PAT_RECHECK_START, 120);
  pat_arms_add(&a, 0, PAT_ALG_RELAY, 0.85, 0, 120);
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 121, &going) == PAT_ALG_RELAY && going, "a first call below: goes on");
  CHECK(pat_explore_recheck(&a, 0, cand, 0, 121 + PAT_RECHECK_FRESH, &going) != PAT_ALG_RELAY || !going,
        "left off %d calls: over", PAT_RECHECK_FRESH);
  return 0;
}

/* After a recheck whose median would replace the leader, the leader is
 * measured again first: until every one of its kept samples is newer than
 * the recheck's oldest; not while the recheck's median still holds old
 * samples. */
static int test_confirm_leader(void) {
  pat_arms a;
  pat_arms_init(&a);
  for (int i = 0; i < PAT_ARM_SAMPLES; i++) {
    pat_arms_add(&a, 0, PAT_ALG_DIRECT, 1.10, 0, 10 + i);
    pat_arms_add(&a, 0, PAT_ALG_RELAY, 1.30, 0, 95 + i); /* a slow phase */
  }
  CHECK(!pat_arms_confirm_leader(&a, 0, PAT_ALG_RELAY, PAT_ALG_DIRECT), "no recheck: nothing to confirm");
  pat_arms_rechecked(&a, 0, PAT_ALG_DIRECT, PAT_RECHECK_START_FULL, 100);
  for (int i = 0; i < PAT_ARM_SAMPLES - 1; i++) {
    if (i) pat_arms_rechecked(&a, 0, PAT_ALG_DIRECT, PAT_RECHECK_GOING, 100 + i);
    pat_arms_add(&a, 0, PAT_ALG_DIRECT, 1.10, 0, 100 + i);
  }
  CHECK(!pat_arms_confirm_leader(&a, 0, PAT_ALG_RELAY, PAT_ALG_DIRECT), "four calls of five: its median is mixed");
  pat_arms_rechecked(&a, 0, PAT_ALG_DIRECT, PAT_RECHECK_GOING, 104);
  pat_arms_add(&a, 0, PAT_ALG_DIRECT, 1.10, 0, 104);
  int confirmed = 0;
  while (pat_arms_confirm_leader(&a, 0, PAT_ALG_RELAY, PAT_ALG_DIRECT) && confirmed < 10)
    pat_arms_add(&a, 0, PAT_ALG_RELAY, 1.00, 0, 105 + confirmed++);
  CHECK(confirmed == PAT_ARM_SAMPLES, "the leader measured again: %d calls, not %d", confirmed, PAT_ARM_SAMPLES);
  CHECK(!pat_arms_confirm_leader(&a, 0, PAT_ALG_DIRECT, PAT_ALG_RELAY), "only against the rechecked one");
  pat_arms_rechecked(&a, 0, PAT_ALG_RING, PAT_RECHECK_START, 120);
  pat_arms_add(&a, 0, PAT_ALG_RING, 0.5, 0, 120);
  CHECK(!pat_arms_confirm_leader(&a, 0, PAT_ALG_RELAY, PAT_ALG_RING), "not after one call of a recheck");
  for (int i = 1; i < PAT_ARM_SAMPLES; i++) {
    pat_arms_rechecked(&a, 0, PAT_ALG_RING, PAT_RECHECK_GOING, 120 + i);
    pat_arms_add(&a, 0, PAT_ALG_RING, 0.5, 0, 120 + i);
  }
  CHECK(pat_arms_confirm_leader(&a, 0, PAT_ALG_RELAY, PAT_ALG_RING), "after a recheck's five calls, full or not");
  return 0;
}

int main(void) {
  if (test_basics() || test_rule() || test_candidates() || test_recheck() || test_confirm_leader()) return 1;
  return TEST_RESULT();
}
