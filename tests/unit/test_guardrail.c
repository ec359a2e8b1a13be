/* The guardrail as a pure function (src/decide/guardrail.h): fed measured
 * costs where the alternative loses, it returns to the static choice within
 * its bound and backs off; where it wins, it stays; over every window of
 * calls the site's cost stays within the bound of docs/guardrail.md; ranks
 * fed the same records hold the same state; unpredictable arrivals are
 * distrusted for doubling periods. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decide/guardrail.h"
#include "testutil.h"

#define S 1e-3 /* the static choice's cost: 1 ms */
#define NCALLS 20000

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* xorshift: the same sequence on every run */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static double cost[NCALLS];
static int alt_call[NCALLS];

typedef struct outcome {
  long long alt_calls, entered;
  double max_loss; /* the largest c - S of one alternative call */
} outcome;

/* The policy's use of the guard, reduced: at every call where the guard
 * allows, the site tries the alternative (the worst case: a probe always
 * sees a predicted gain); a call's measurement is learned at the next call,
 * as the records bring it. */
static outcome run(pat_guard *g, int n, double alt_mean, double noise) {
  outcome o = {0, 0, 0};
  int prev_alt = -1;
  double prev_cost = 0;
  for (int k = 0; k < n; k++) {
    if (prev_alt >= 0) pat_guard_measured(g, k, prev_alt, prev_cost);
    int alt = g->state == PAT_GUARD_EXPLORING || g->state == PAT_GUARD_KEPT;
    if (!alt && pat_guard_may_leave(g, k, 0)) {
      pat_guard_enter(g, k);
      o.entered++;
      alt = 1;
    }
    double c = alt ? alt_mean * (1 + noise * (2 * urand() - 1)) : S;
    cost[k] = c;
    alt_call[k] = alt;
    if (alt) {
      o.alt_calls++;
      if (c - S > o.max_loss) o.max_loss = c - S;
    }
    prev_alt = alt;
    prev_cost = c;
    pat_guard_tick(g);
  }
  return o;
}

/* Over every window of w calls (docs/guardrail.md): sum of costs <= w S (1 +
 * BUDGET) + CAP S + the probe cost: per trial that overlaps the window, its
 * warm-up call, one call's loss beyond the cap, and one call charged after
 * the fact (the measurement comes a call late): 3 calls' largest loss. */
static int window_bound(int n, int w, double max_loss) {
  double sum = 0;
  int trials = 0; /* trials started in the window */
  for (int k = 0; k < n; k++) {
    sum += cost[k];
    trials += alt_call[k] && (k == 0 || !alt_call[k - 1]);
    if (k >= w) {
      sum -= cost[k - w];
      trials -= alt_call[k - w] && (k - w == 0 || !alt_call[k - w - 1]);
    }
    double bound = w * S * (1 + PAT_GUARD_BUDGET) + PAT_GUARD_CAP * S + (trials + 1) * 3 * max_loss + 1e-12;
    if (k >= w - 1) CHECK(sum <= bound, "window of %d ending at call %d: %.6f s > bound %.6f s", w, k, sum, bound);
  }
  return 0;
}

static void measured_static(pat_guard *g) { pat_guard_measured(g, 0, 0, S); }

/* The alternative costs 1.5 S: every trial is lost, the backoff doubles. */
static int test_loses(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  measured_static(&g);
  outcome o = run(&g, NCALLS, 1.5 * S, 0.0);
  /* the first trial: entered at call 0, lost as soon as its TRIAL-th sample or the budget says so */
  int first_static = 0;
  while (first_static < NCALLS && alt_call[first_static]) first_static++;
  CHECK(first_static <= PAT_GUARD_TRIAL + 2, "first trial ran %d alternative calls", first_static);
  /* trials: the backoffs 16, 32, ..., 1024, then one every 1024 calls at most */
  long long most = 7 + NCALLS / PAT_GUARD_BACKOFF_MAX + 1;
  CHECK(o.entered <= most, "%lld trials in %d calls (at most %lld)", o.entered, NCALLS, most);
  CHECK(g.lost == g.trials && g.trials == o.entered, "lost %lld of %lld trials", g.lost, g.trials);
  CHECK(g.backoff[0] == PAT_GUARD_BACKOFF_MAX, "backoff %d after %lld lost trials", g.backoff[0], g.lost);
  /* the gaps between trials grow */
  int last_start = -1, last_gap = 0;
  for (int k = 1; k < NCALLS; k++)
    if (alt_call[k] && !alt_call[k - 1]) {
      if (last_start >= 0) {
        int gap = k - last_start;
        CHECK(gap >= last_gap || gap >= PAT_GUARD_BACKOFF_MAX, "trial at %d after %d calls (before: %d)", k, gap,
              last_gap);
        last_gap = gap;
      }
      last_start = k;
    }
  for (int w = 16; w <= NCALLS; w *= 4) window_bound(NCALLS, w, o.max_loss);
  window_bound(NCALLS, NCALLS, o.max_loss);
  double mean = 0;
  for (int k = 0; k < NCALLS; k++) mean += cost[k] / NCALLS;
  CHECK(mean <= S * (1 + PAT_GUARD_BUDGET), "mean cost %.4f ms against static %.4f ms", mean * 1e3, S * 1e3);
  return 0;
}

/* A very bad alternative (10 S) is stopped by the budget after the warm-up
 * and two judged calls (one decided before the other's measurement came). */
static int test_loses_big(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  measured_static(&g);
  outcome o = run(&g, 4000, 10 * S, 0.0);
  int first_static = 0;
  while (alt_call[first_static]) first_static++;
  CHECK(first_static <= 3, "a 10x alternative ran %d calls in a row", first_static);
  window_bound(4000, 100, o.max_loss);
  window_bound(4000, 4000, o.max_loss);
  return 0;
}

/* The alternative costs 0.6 S (noise 10%): kept, and the site stays on it. */
static int test_wins(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  measured_static(&g);
  outcome o = run(&g, NCALLS, 0.6 * S, 0.1);
  CHECK(g.state == PAT_GUARD_KEPT, "state %d, not kept", g.state);
  /* refreshed after 256, 512, 1024, ... calls (each a static call, then a trial it wins again) */
  long long most = 5 + NCALLS / PAT_GUARD_REFRESH_MAX + 1;
  CHECK(g.refreshes >= NCALLS / PAT_GUARD_REFRESH_MAX && g.refreshes <= most, "%lld refreshes in %d calls",
        g.refreshes, NCALLS);
  CHECK(o.entered == 1 + g.refreshes && g.lost == 0, "%lld trials, %lld lost", o.entered, g.lost);
  CHECK(o.alt_calls == NCALLS - g.refreshes, "%lld of %d calls ran the alternative (%lld refreshes)", o.alt_calls,
        NCALLS, g.refreshes);
  /* a model file's prior serves as S until the site measures it */
  pat_guard_init(&g, S);
  CHECK(pat_guard_may_leave(&g, 0, 0), "with a prior the first call may try");
  o = run(&g, 1000, 0.6 * S, 0.1);
  CHECK(g.state == PAT_GUARD_KEPT && o.alt_calls == 1000 - g.refreshes && g.refreshes <= 4,
        "with a prior: state %d, %lld alternative calls, %lld refreshes", g.state, o.alt_calls, g.refreshes);
  return 0;
}

/* S measured high before the trial (2 S: a site's first calls, a disturbed
 * moment), an alternative at 1.3 S: kept against the stale S at first, then
 * refreshed, judged against the S measured anew, lost, backed off; over the
 * run the site costs what static does, within the budget.  (Without the
 * refresh it ran the alternative for good: a mean of 1.3 S.) */
static int test_stale_static(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  pat_guard_measured(&g, 0, 0, 2 * S);
  outcome o = run(&g, NCALLS, 1.3 * S, 0.0);
  CHECK(g.refreshes == 1, "%lld refreshes", g.refreshes);
  CHECK(g.state != PAT_GUARD_KEPT && g.lost >= 1, "state %d, %lld trials lost", g.state, g.lost);
  CHECK(fabs(g.s_cost - S) < 1e-12, "S %.4f ms after the refresh, not %.4f", g.s_cost * 1e3, S * 1e3);
  double mean = 0;
  for (int k = 0; k < NCALLS; k++) mean += cost[k] / NCALLS;
  CHECK(mean <= S * (1 + PAT_GUARD_BUDGET), "mean cost %.4f ms against static %.4f ms", mean * 1e3, S * 1e3);
  window_bound(NCALLS, 4096, o.max_loss);
  window_bound(NCALLS, NCALLS, o.max_loss);
  return 0;
}

/* Calls that stall now and then, whatever runs (one in 25 takes 19 S more,
 * as the emulated cluster's TCP does to Open MPI's own all-gather too), an
 * alternative at 1.25 S: a stalled static sample must not lift S above the
 * alternative for long: the site runs the alternative on its trials only. */
static int test_stalls(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  pat_guard_measured(&g, 0, 0, S);
  int prev_alt = -1;
  double prev_cost = 0, sum = 0;
  long long alt_calls = 0;
  for (int k = 0; k < NCALLS; k++) {
    if (prev_alt >= 0) pat_guard_measured(&g, k, prev_alt, prev_cost);
    int alt = g.state == PAT_GUARD_EXPLORING || g.state == PAT_GUARD_KEPT;
    if (!alt && pat_guard_may_leave(&g, k, 0)) {
      pat_guard_enter(&g, k);
      alt = 1;
    }
    double c = (alt ? 1.25 * S : S) + (k % 25 == 24 ? 19 * S : 0);
    alt_calls += alt;
    sum += c;
    prev_alt = alt;
    prev_cost = c;
    pat_guard_tick(&g);
  }
  double static_mean = S * (1 + 19.0 / 25), mean = sum / NCALLS;
  printf("stalls: mean %.4f ms against static %.4f ms, %lld alternative calls, S %.4f ms\n", mean * 1e3,
         static_mean * 1e3, alt_calls, g.s_cost * 1e3);
  CHECK(mean <= static_mean * (1 + PAT_GUARD_BUDGET), "mean cost %.4f ms against static %.4f ms (S %.4f ms)",
        mean * 1e3, static_mean * 1e3, g.s_cost * 1e3);
  /* trials only: with samples taken whole (no SPIKE) the stalls kept the alternative on 3139 calls */
  CHECK(alt_calls <= NCALLS / 50, "the slower alternative ran %lld of %d calls", alt_calls, NCALLS);
  return 0;
}

/* As good as static, noisy: the bound holds whatever the verdicts. */
static int test_equal(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  measured_static(&g);
  outcome o = run(&g, NCALLS, S, 0.2);
  for (int w = 16; w <= NCALLS; w *= 4) window_bound(NCALLS, w, o.max_loss);
  return 0;
}

/* Without S (no model file, nothing measured) no trial starts; a trial
 * entered without it ends after TRIAL calls to measure static, unpunished. */
static int test_unknown_static(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  CHECK(!pat_guard_may_leave(&g, 100, 0), "a trial without a measured static cost");
  pat_guard_enter(&g, 0);
  int back = 0, k;
  for (k = 1; k <= PAT_GUARD_TRIAL + 1 && !back; k++) back = pat_guard_measured(&g, k, 1, 0.5 * S);
  CHECK(back && k - 1 == PAT_GUARD_TRIAL, "back to static after %d calls (%d)", k - 1, back);
  CHECK(g.state == PAT_GUARD_STATIC && g.lost == 0 && g.backoff[0] == PAT_GUARD_BACKOFF_FIRST,
        "state %d, %lld lost, backoff %d", g.state, g.lost, g.backoff[0]);
  pat_guard_measured(&g, k, 0, S);
  CHECK(pat_guard_may_leave(&g, k + 1, 0), "static measured: a trial may start");
  return 0;
}

/* Ranks fed the same records, in the same order, hold the same state (the
 * guard reads nothing else), call after call. */
static int test_agreement(void) {
  enum { RANKS = 8 };
  pat_guard g[RANKS];
  for (int r = 0; r < RANKS; r++) pat_guard_init(&g[r], r == 0 ? 0 : 0);
  for (int k = 0; k < 5000; k++) {
    /* the records of this call: the previous call's arm, cost, prediction error */
    int alt = g[0].state == PAT_GUARD_EXPLORING || g[0].state == PAT_GUARD_KEPT;
    double c = (alt ? 0.5 + 1.2 * urand() : 0.9 + 0.2 * urand()) * S;
    double err = urand() * S, spread = urand() * 2 * S;
    int enter = !alt && urand() < 0.3;
    for (int r = 0; r < RANKS; r++) {
      if (enter && pat_guard_may_leave(&g[r], k, 0)) pat_guard_enter(&g[r], k);
      if (k % 3 == 0) pat_guard_prediction(&g[r], k, err, spread);
      pat_guard_measured(&g[r], k, alt, c);
      if (k % 50 == 49) pat_guard_leave(&g[r], k);
      pat_guard_tick(&g[r]);
      CHECK(memcmp(&g[r], &g[0], sizeof g[0]) == 0, "call %d: rank %d's guard differs from rank 0's", k, r);
      CHECK(pat_guard_may_leave(&g[r], k + 1, 0) == pat_guard_may_leave(&g[0], k + 1, 0) &&
                pat_guard_trusts_predictions(&g[r], k + 1) == pat_guard_trusts_predictions(&g[0], k + 1),
            "call %d: rank %d decides differently", k, r);
    }
  }
  return 0;
}

/* Predictions that explain nothing (error as large as the spread) are
 * distrusted for doubling periods; good ones are trusted. */
static int test_predictions(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  CHECK(pat_guard_trusts_predictions(&g, 0), "nothing measured yet: trusted");
  pat_guard_prediction(&g, 10, 1.0 * S, 1.0 * S);
  CHECK(!pat_guard_trusts_predictions(&g, 11), "error = spread: still trusted");
  CHECK(pat_guard_trusts_predictions(&g, 10 + PAT_GUARD_DISTRUST_FIRST), "distrust never ends");
  long long until = g.distrust_until;
  pat_guard_prediction(&g, until, 0.9 * S, 1.0 * S); /* measured anew: bad again, twice as long */
  CHECK(g.distrust_until == until + 2 * PAT_GUARD_DISTRUST_FIRST, "second distrust until %lld", g.distrust_until);
  pat_guard_prediction(&g, g.distrust_until, 0.05 * S, 1.0 * S); /* measured anew: good */
  CHECK(pat_guard_trusts_predictions(&g, g.distrust_until), "good predictions not trusted again");
  pat_guard_init(&g, 0);
  for (int k = 0; k < 100; k++) pat_guard_prediction(&g, k, (0.1 + 0.2 * urand()) * S, S);
  CHECK(pat_guard_trusts_predictions(&g, 100) && !g.distrusted, "errors of 10-30%% of the spread distrusted");
  return 0;
}

/* Trials lost in one regime back that regime off, not the other: after
 * three lost balanced trials (backoff now 128 calls there) a trial may
 * start at once when the arrivals turn imbalanced, and losing it backs the
 * imbalanced regime off from its own first backoff. */
static int test_regimes(void) {
  pat_guard g;
  pat_guard_init(&g, 0);
  measured_static(&g);
  long long k = 0;
  g.regime = 0;
  for (int t = 0; t < 3; t++) {
    for (int i = 0; i < 100000 && !pat_guard_may_leave(&g, k, 0); i++) { /* static calls */
      pat_guard_tick(&g);
      pat_guard_measured(&g, ++k, 0, S);
    }
    CHECK(pat_guard_may_leave(&g, k, 0), "balanced trial %d may start", t);
    pat_guard_enter(&g, k);
    for (int i = 0; i <= PAT_GUARD_TRIAL + 1 && g.state == PAT_GUARD_EXPLORING; i++) pat_guard_measured(&g, ++k, 1, 3 * S);
    CHECK(g.state == PAT_GUARD_BACKOFF, "balanced trial %d lost", t);
  }
  CHECK(g.backoff[0] == 8 * PAT_GUARD_BACKOFF_FIRST && g.backoff[1] == PAT_GUARD_BACKOFF_FIRST,
        "backoffs %d (balanced), %d (imbalanced)", g.backoff[0], g.backoff[1]);
  CHECK(g.next_try[0] >= k + 64 && g.next_try[1] <= k + 1 && pat_guard_next_try(&g) == g.next_try[1],
        "after the lost balanced trials: next try balanced at +%lld, imbalanced at +%lld", g.next_try[0] - k,
        g.next_try[1] - k);
  for (int i = 0; i < 100000 && g.credit < 0; i++) { /* the budget refills */
    pat_guard_tick(&g);
    pat_guard_measured(&g, ++k, 0, S);
  }
  CHECK(pat_guard_may_leave(&g, k + 1, 1), "imbalanced: nothing lost there, a trial may start");

  g.regime = 1;
  pat_guard_enter(&g, ++k);
  for (int i = 0; i <= PAT_GUARD_TRIAL + 1 && g.state == PAT_GUARD_EXPLORING; i++) pat_guard_measured(&g, ++k, 1, 3 * S);
  CHECK(g.state == PAT_GUARD_BACKOFF && g.next_try[1] == k + PAT_GUARD_BACKOFF_FIRST && g.backoff[1] == 2 * PAT_GUARD_BACKOFF_FIRST,
        "imbalanced trial lost: next try at +%lld, backoff %d", g.next_try[1] - k, g.backoff[1]);
  return 0;
}

/* A model file's S that is too low (the model put the static choice at
 * 0.65 S) and an alternative at 0.69 S: the trial does not win against the
 * prior, but is not lost; the site runs the static choice once, measures S,
 * and keeps the alternative at its next trial.  (Before, the lost trial held
 * the site on the static choice for a backoff of 16 calls: 4 hosts x 2 ranks
 * with a quick calibration ran HRING, 1.54x HRELAY, on 17 of 20 calls.) */
static int test_prior_too_low(void) {
  pat_guard g;
  pat_guard_init(&g, 0.65 * S);
  outcome o = run(&g, 1000, 0.69 * S, 0.0);
  int static_early = 0;
  for (int k = 0; k < 20; k++) static_early += !alt_call[k];
  CHECK(g.state == PAT_GUARD_KEPT && g.lost == 0 && g.remeasures == 1,
        "prior too low: state %d, %lld lost, %lld re-measured", g.state, g.lost, g.remeasures);
  CHECK(static_early <= 2, "prior too low: %d of the first 20 calls ran the static choice", static_early);
  CHECK(o.alt_calls >= 1000 - 2 - g.refreshes, "prior too low: %lld alternative calls of 1000", o.alt_calls);
  /* the prior right, the alternative 7% slower: one re-measure, then lost and backed off as without a model */
  pat_guard_init(&g, S);
  o = run(&g, NCALLS, 1.07 * S, 0.0);
  CHECK(g.remeasures == 1 && g.lost >= 1 && g.state != PAT_GUARD_KEPT,
        "prior right: state %d, %lld lost, %lld re-measured", g.state, g.lost, g.remeasures);
  double mean = 0;
  for (int k = 0; k < NCALLS; k++) mean += cost[k] / NCALLS;
  CHECK(mean <= S * (1 + PAT_GUARD_BUDGET), "prior right: mean cost %.4f ms against static %.4f ms", mean * 1e3,
        S * 1e3);
  window_bound(NCALLS, 4096, o.max_loss);
  window_bound(NCALLS, NCALLS, o.max_loss);
  return 0;
}

int main(void) {
  if (test_regimes() || test_loses() || test_loses_big() || test_wins() || test_stale_static() || test_prior_too_low() || test_stalls() || test_equal() || test_unknown_static() ||
      test_agreement() || test_predictions())
    return 1;
  return TEST_RESULT();
}
