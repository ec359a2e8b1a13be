/* The guardrail of a call site (see guardrail.h and docs/guardrail.md). */
#include "decide/guardrail.h"

#include <stdio.h>
#include <string.h>

void pat_guard_init(pat_guard *g, double prior_s) {
  memset(g, 0, sizeof *g);
  g->state = PAT_GUARD_STATIC;
  for (int r = 0; r < PAT_GUARD_REGIMES; r++) g->backoff[r] = PAT_GUARD_BACKOFF_FIRST;
  g->distrust_backoff = PAT_GUARD_DISTRUST_FIRST;
  g->refresh_interval = PAT_GUARD_REFRESH_FIRST;
  if (prior_s > 0) {
    g->s_cost = prior_s;
    g->has_prior = 1;
    g->credit = PAT_GUARD_CAP * prior_s; /* a first trial may lose up to the cap, no more */
  }
}

void pat_guard_new_static(pat_guard *g, double prior_s) {
  pat_guard fresh;
  pat_guard_init(&fresh, prior_s);
  /* what the arrivals taught stays: it is not the static choice's */
  fresh.err = g->err;
  fresh.spread = g->spread;
  fresh.err_n = g->err_n;
  fresh.distrusted = g->distrusted;
  fresh.distrust_until = g->distrust_until;
  fresh.distrust_backoff = g->distrust_backoff;
  fresh.alt_sum = g->alt_sum;
  fresh.alt_n = g->alt_n;
  fresh.trials = g->trials;
  fresh.lost = g->lost;
  fresh.refreshes = g->refreshes;
  fresh.remeasures = g->remeasures;
  *g = fresh;
}

int pat_guard_knows_static(const pat_guard *g) { return g->s_n > 0 || g->has_prior; }

int pat_guard_wants_static_sample(const pat_guard *g) { return g->refreshing || (g->has_prior && g->prior_retried); }

int pat_guard_may_leave(const pat_guard *g, long long call, int regime) {
  if (g->state == PAT_GUARD_EXPLORING || g->state == PAT_GUARD_KEPT) return 1;
  if (regime < 0 || regime >= PAT_GUARD_REGIMES) regime = g->regime;
  /* a trial needs a baseline to be judged against and budget to spend */
  return pat_guard_knows_static(g) && call >= g->next_try[regime] && g->credit >= 0;
}

long long pat_guard_next_try(const pat_guard *g) {
  long long t = g->next_try[0];
  for (int r = 1; r < PAT_GUARD_REGIMES; r++)
    if (g->next_try[r] < t) t = g->next_try[r];
  return t;
}

static void try_from(pat_guard *g, long long call) {
  for (int r = 0; r < PAT_GUARD_REGIMES; r++) g->next_try[r] = call;
}

int pat_guard_trusts_predictions(const pat_guard *g, long long call) {
  return !g->distrusted || call >= g->distrust_until;
}

static void new_trial(pat_guard *g) {
  g->trial_sum = 0;
  g->trial_n = 0;
  g->warmed = 0;
}

void pat_guard_enter(pat_guard *g, long long call) {
  (void)call;
  g->state = PAT_GUARD_EXPLORING;
  g->trials++;
  new_trial(g);
}

/* A trial that did not win against the model file's S, never measured at
 * this site: not a loss.  The site runs the static choice until its next
 * probe, one call on (engine.c), whose records measure S, and the next
 * trial is judged against that: a model that ranked the static choice too cheap (a quick
 * calibration, back to back, where the site's calls follow compute) must not hold the site on
 * it for a backoff (BENCHMARKS.md, auto on nodes). */
static void measure_static_first(pat_guard *g, long long call) {
  g->prior_retried = 1; /* once: should S still not be measured at the next verdict, that trial is lost */
  g->state = PAT_GUARD_STATIC;
  try_from(g, call + 1);
  g->remeasures++;
  new_trial(g);
}

static void lose(pat_guard *g, long long call) {
  g->state = PAT_GUARD_BACKOFF;
  g->lost++;
  const int r = g->regime >= 0 && g->regime < PAT_GUARD_REGIMES ? g->regime : 0;
  g->next_try[r] = call + g->backoff[r];
  g->backoff[r] = g->backoff[r] * 2 > PAT_GUARD_BACKOFF_MAX ? PAT_GUARD_BACKOFF_MAX : g->backoff[r] * 2;
  new_trial(g);
}

void pat_guard_leave(pat_guard *g, long long call) {
  if (g->state == PAT_GUARD_EXPLORING)
    lose(g, call); /* it never proved itself: leaving unproven must not let trials repeat at the probe rate */
  else if (g->state == PAT_GUARD_KEPT)
    g->state = PAT_GUARD_STATIC;
}

void pat_guard_stop(pat_guard *g) {
  if (g->state != PAT_GUARD_EXPLORING) return;
  g->state = PAT_GUARD_STATIC;
  new_trial(g);
}

static void static_sample(pat_guard *g, double cost) {
  /* the account opens full; against a model file's S too, once measured: what a trial was charged
   * against it was charged against a baseline the site never measured (so the trial was not lost:
   * measure_static_first), and a model calibrated on a faster network left the account empty for the
   * trial that S as measured would keep */
  if (g->s_n == 0) g->credit = PAT_GUARD_CAP * cost;
  if (g->s_n == 0 || g->has_prior)
    g->s_cost = cost;
  else if (g->refreshing) /* a kept alternative was judged against an S too high, or this sample is one */
    g->s_cost = cost < g->s_cost ? cost : g->s_cost;
  else { /* a call the network stalled moves S by WEIGHT * SPIKE * S at most */
    double most = PAT_GUARD_SPIKE * g->s_cost;
    g->s_cost += PAT_GUARD_WEIGHT * ((cost > most ? most : cost) - g->s_cost);
  }
  if (g->credit > PAT_GUARD_CAP * g->s_cost) g->credit = PAT_GUARD_CAP * g->s_cost;
  g->has_prior = 0;
  g->refreshing = 0;
  g->s_n++;
}

/* A kept alternative has run its interval: back to the static choice, to
 * measure S again (not a loss: a trial may start as soon as it is). */
static void refresh(pat_guard *g, long long call) {
  g->state = PAT_GUARD_STATIC;
  try_from(g, call + 1);
  g->refreshing = 1;
  g->refreshes++;
  new_trial(g);
}

int pat_guard_measured(pat_guard *g, long long call, int alt, double cost) {
  if (!alt) {
    static_sample(g, cost);
    return 0;
  }
  g->alt_sum += cost;
  g->alt_n++;
  int on_trial = g->state == PAT_GUARD_EXPLORING || g->state == PAT_GUARD_KEPT;
  if (!pat_guard_knows_static(g)) {
    /* nothing to judge against: a trial runs TRIAL calls, then the site goes
     * back to static to measure it (no backoff: nothing was lost yet) */
    if (on_trial && ++g->trial_n >= PAT_GUARD_TRIAL) {
      g->state = PAT_GUARD_STATIC;
      try_from(g, call + 1);
      new_trial(g);
      return 1;
    }
    return 0;
  }
  if (on_trial && g->state == PAT_GUARD_EXPLORING && !g->warmed) {
    /* a trial's first call builds schedules and touches buffers for the
     * first time: neither charged nor judged (the bound's probe cost) */
    g->warmed = 1;
    return 0;
  }
  /* a loss is charged, at most CAP * S per call (what one call loses
   * beyond that is the bound's probe cost); a gain pays in */
  double charge = cost - g->s_cost;
  if (charge > PAT_GUARD_CAP * g->s_cost) charge = PAT_GUARD_CAP * g->s_cost;
  g->credit -= charge;
  if (g->credit > PAT_GUARD_CAP * g->s_cost) g->credit = PAT_GUARD_CAP * g->s_cost;
  if (!on_trial) return 0; /* a late sample of a finished trial: charged only */
  if (g->credit < 0) {
    if (g->has_prior && !g->prior_retried)
      measure_static_first(g, call);
    else
      lose(g, call);
    return 1;
  }
  if (g->state == PAT_GUARD_KEPT && call >= g->refresh_at) {
    refresh(g, call);
    return 1;
  }
  if (g->state == PAT_GUARD_EXPLORING) {
    g->trial_sum += cost;
    if (++g->trial_n >= PAT_GUARD_TRIAL) {
      if (g->trial_sum / g->trial_n < g->s_cost) {
        g->state = PAT_GUARD_KEPT;
        g->refresh_at = call + g->refresh_interval;
        g->refresh_interval =
            g->refresh_interval * 2 > PAT_GUARD_REFRESH_MAX ? PAT_GUARD_REFRESH_MAX : g->refresh_interval * 2;
        new_trial(g);
      } else if (g->has_prior && !g->prior_retried) {
        measure_static_first(g, call);
        return 1;
      } else {
        lose(g, call); /* not lower than static: back to it */
        return 1;
      }
    }
  }
  return 0;
}

void pat_guard_prediction(pat_guard *g, long long call, double err, double spread) {
  int expired = g->distrusted && call >= g->distrust_until;
  if (g->err_n == 0 || expired) { /* after a distrust period the arrivals may have become regular: measure anew */
    g->err = err;
    g->spread = spread;
  } else {
    g->err += PAT_GUARD_ERR_WEIGHT * (err - g->err);
    g->spread += PAT_GUARD_ERR_WEIGHT * (spread - g->spread);
  }
  g->err_n++;
  if (!(g->err > PAT_GUARD_TRUST * g->spread)) {
    g->distrusted = 0;
    return;
  }
  if (!g->distrusted || expired) { /* found unpredictable (again): a longer period without arrival-awareness */
    g->distrusted = 1;
    g->distrust_until = call + g->distrust_backoff;
    g->distrust_backoff =
        g->distrust_backoff * 2 > PAT_GUARD_BACKOFF_MAX ? PAT_GUARD_BACKOFF_MAX : g->distrust_backoff * 2;
  }
}

void pat_guard_tick(pat_guard *g) {
  if (!pat_guard_knows_static(g)) return;
  g->credit += PAT_GUARD_BUDGET * g->s_cost;
  if (g->credit > PAT_GUARD_CAP * g->s_cost) g->credit = PAT_GUARD_CAP * g->s_cost;
}

static void fmt(double s, char *out, int size) {
  if (s < 1e-3)
    snprintf(out, (size_t)size, "%.1f us", s * 1e6);
  else
    snprintf(out, (size_t)size, "%.2f ms", s * 1e3);
}

void pat_guard_describe(const pat_guard *g, char *out, int size) {
  static const char *names[] = {"static", "exploring", "kept", "backing off"};
  char a[24], s[24];
  if (g->alt_n)
    fmt(g->alt_sum / (double)g->alt_n, a, sizeof a);
  else
    snprintf(a, sizeof a, "-");
  if (g->s_n)
    fmt(g->s_cost, s, sizeof s);
  else
    snprintf(s, sizeof s, g->has_prior ? "(model)" : "-");
  snprintf(out, (size_t)size, "%s%s, %s vs static %s, %lld/%lld trials lost, %lld refreshes", names[g->state],
           g->distrusted ? " (unpredictable)" : "", a, s, g->lost, g->trials, g->refreshes);
}
