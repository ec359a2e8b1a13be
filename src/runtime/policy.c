/* When a call exchanges arrivals, and what earlier calls taught (see policy.h). */
#include "runtime/policy.h"

#include <math.h>
#include <string.h>

#include "model/build_args.h"
#include "model/measured.h"
#include "pat/exchange.h"
#include "runtime/comm.h"
#include "runtime/decide.h"
#include "runtime/netparams.h"
#include "runtime/runtime.h"

void pat_policy_init(pat_policy *pl) { memset(pl, 0, sizeof *pl); }

/* On unless PAT_PLAN_AHEAD_AUTO=0 (a job setting: every rank alike).  On the
 * emulated cluster (P = 8, N = 1M, maxDelay 50-100 ms, re-fitted model)
 * auto ran 1.03-1.14x the fastest algorithm with it and 1.36-1.41x without
 * (BENCHMARKS.md); it had been off since a sweep whose model file and flat
 * run (before the measured calls) held auto at its static choice. */
int pat_policy_plans_ahead(const pat_comm_state *cs, int site) {
  if (!pat_proc.settings.plan_ahead_auto || site < 0) return 0;
  const pat_site_policy *sp = &cs->policy.site[site];
  int alg = sp->last.alg;
  return sp->mode == PAT_MODE_EXCHANGE && alg >= 0 && alg < PAT_ALG_COUNT &&
         (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD);
}

int pat_policy_one_node_native(int P, const int *node) {
  if (pat_proc.settings.one_node_auto || pat_netparams_have_model()) return 0;
  for (int r = 1; r < P; r++)
    if (node[r] != node[0]) return 0;
  return 1;
}

void pat_policy_fill_record(const pat_comm_state *cs, int64_t bytes, pat_xrec *rec) {
  int site = pat_sites_lookup(&cs->sites, bytes);
  rec->prev_call = -1;
  rec->prev_alg = -1;
  if (site < 0 || cs->policy.site[site].last.call < 0) return;
  const pat_last_call *l = &cs->policy.site[site].last;
  rec->prev_call = l->call;
  rec->prev_arrival_ns = l->arrival_ns;
  rec->prev_elapsed_ns = l->elapsed_ns;
  rec->prev_predicted_ns = l->predicted_ns;
  rec->prev_alg = l->alg;
  rec->prev_flags = l->flags;
}

/* The static choice's balanced time for blocks of `bytes` (s): measured, or
 * a ring under the default parameters. */
static double static_time(const pat_comm_state *cs, int64_t bytes) {
  const pat_model_params *mp = pat_netparams();
  double t;
  if (pat_model_measured_time(mp, pat_policy_static_alg(cs, bytes), cs->P, (double)bytes, &t)) return t;
  return (cs->P - 1) * pat_model_cost(mp->dflt.inter, (double)bytes, 1.0);
}

double pat_policy_exchange_cost(const pat_comm_state *cs) {
  const pat_model_params *mp = pat_netparams();
  double t;
  if (pat_model_measured_time(mp, PAT_ALG_NATIVE, cs->P, (double)sizeof(pat_xrec), &t)) return t;
  int steps = 0;
  while ((1 << steps) < cs->P) steps++;
  /* a non-blocking all-gather of small records: about two latencies a round */
  return 2.0 * steps * pat_model_cost(mp->dflt.inter, (double)sizeof(pat_xrec), 1.0);
}

void pat_policy_new_site(pat_comm_state *cs, int site) {
  if (cs->policy.unsettled.site == site) cs->policy.unsettled.pending = 0; /* the old site's sample */
  pat_site_policy *sp = &cs->policy.site[site];
  memset(sp, 0, sizeof *sp);
  sp->mode = PAT_MODE_STATIC;
  sp->static_alg = pat_policy_static_alg(cs, cs->sites.site[site].bytes);
  sp->backoff = PAT_PROBE_FIRST;
  sp->next_probe = PAT_PROBE_FIRST;
  sp->never = static_time(cs, cs->sites.site[site].bytes) < 2.0 * pat_policy_exchange_cost(cs);
  sp->last.call = -1;
  sp->learned_call = -1;
  /* a model file's measured balanced time of the static choice stands in for
   * its cost until the site measures it; without one, the site measures first */
  double prior;
  if (!pat_model_measured_time(pat_netparams(), sp->static_alg, cs->P, (double)cs->sites.site[site].bytes, &prior))
    prior = 0;
  pat_guard_init(&sp->guard, prior);
}

int pat_policy_static_alg(const pat_comm_state *cs, int64_t bytes) {
  unsigned without_arrivals = 0; /* arrival-aware algorithms need an exchange */
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (!(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL)) without_arrivals |= 1u << alg;
  const pat_model_params *mp = pat_netparams();
  double t_best, t_native;
  int best = pat_model_measured_best(mp, without_arrivals, cs->P, (double)bytes, &t_best);
  if (best == PAT_ALG_UNKNOWN) return PAT_ALG_NATIVE;
  if (pat_model_measured_time(mp, PAT_ALG_NATIVE, cs->P, (double)bytes, &t_native) &&
      !(t_best < (1.0 - PAT_STATIC_MARGIN) * t_native))
    return PAT_ALG_NATIVE;
  return best;
}

int pat_policy_gain_pays(const pat_comm_state *cs, int64_t static_ns, int64_t best_ns, double wait_s) {
  if (static_ns == INT64_MAX) return best_ns != INT64_MAX;
  double st = 1e-9 * (double)static_ns, gain = st - 1e-9 * (double)best_ns;
  double needed = PAT_GAIN_FRACTION * (st - wait_s); /* of the static choice's own cost, not of the wait */
  double x = pat_policy_exchange_cost(cs);
  if (x > needed) needed = x;
  return gain > needed;
}

/* Exchanges for a setting: every call of a fixed arrival-aware algorithm,
 * no call of a fixed classic one or NATIVE; auto asks the sites.  But a call
 * the previous one announced as exchanging always exchanges, whatever the
 * setting is now (PAT_UseAlg between calls): ranks may have contributed to
 * its exchange ahead of it, and it must complete on every rank. */
int pat_policy_call_exchanges(const pat_comm_state *cs, int setting, int fresh) {
  if (cs->P < 2) return 0;
  if (cs->policy.next_exchanges) return 1;
  if (setting != PAT_ALG_AUTO) return setting >= 0 && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL);
  if (pat_proc.settings.exchange == PAT_EXCHANGE_ALWAYS) return 1;
  if (cs->policy.one_node_native) return 0;
  return fresh || cs->policy.next_exchanges;
}

/* Should the call after this one, at `site` (the one expected next), exchange? */
static int site_wants_exchange(const pat_comm_state *cs, int site) {
  if (site < 0) return 0;
  const pat_site_policy *sp = &cs->policy.site[site];
  if (sp->mode == PAT_MODE_EXCHANGE) return 1;
  return !sp->never && cs->sites.site[site].calls >= sp->next_probe;
}

void pat_policy_end_call(pat_comm_state *cs, int site, int alg, int64_t arrival_ns, int64_t exit_ns, int setting) {
  pat_policy *pl = &cs->policy;
  pat_site_policy *sp = &pl->site[site];
  pat_last_call *l = &sp->last;
  l->call = cs->sites.calls - 1; /* the call just recorded */
  l->arrival_ns = arrival_ns;
  l->elapsed_ns = exit_ns - arrival_ns;
  l->alg = alg;
  l->predicted_ns = pl->cur_exchanged ? pl->cur_predicted_ns : arrival_ns;
  l->flags = 0;
  if (setting == PAT_ALG_AUTO) {
    /* a kept plan-ahead call's records are history's by design: they say
     * nothing of how well this site's arrivals can be predicted */
    if (pl->cur_exchanged)
      l->flags = (pl->cur_kept ? 0 : PAT_PREV_PREDICTED) |
                 (pl->cur_alt ? PAT_PREV_ALT : pl->cur_static ? PAT_PREV_STATIC : 0);
    else if (alg == sp->static_alg)
      l->flags = PAT_PREV_STATIC;
    pat_guard_tick(&sp->guard);
  }
  pl->cur_exchanged = pl->cur_alt = pl->cur_static = pl->cur_kept = 0;
  if (setting == PAT_ALG_AUTO)
    pl->next_exchanges = pat_proc.settings.exchange == PAT_EXCHANGE_ALWAYS ||
                         (!pl->one_node_native && site_wants_exchange(cs, pat_sites_next(&cs->sites)));
  else
    pl->next_exchanges = pat_policy_call_exchanges(cs, setting, 0);
}

/* A probe or exchanged call found nothing to gain, or something. */
/* The next probe of a static site: after its backoff, not before the guard
 * allows a trial, and soon if the static choice has not been measured yet
 * (the probe's records carry the cost of the static call before it). */
static void schedule_probe(pat_site_policy *sp, long long calls) {
  sp->next_probe = calls + 1 + sp->backoff;
  if (sp->next_probe < sp->guard.next_try) sp->next_probe = sp->guard.next_try;
  /* unpredictable arrivals: no probe (an exchange) before they may be trusted again */
  if (sp->guard.distrusted && sp->next_probe < sp->guard.distrust_until) sp->next_probe = sp->guard.distrust_until;
  if (!pat_guard_knows_static(&sp->guard)) sp->next_probe = calls + 2;
}

static void found(pat_comm_state *cs, int site, int gain) {
  pat_site_policy *sp = &cs->policy.site[site];
  long long calls = cs->sites.site[site].calls;
  if (gain && (sp->mode == PAT_MODE_EXCHANGE || pat_guard_may_leave(&sp->guard, calls))) {
    if (sp->mode != PAT_MODE_EXCHANGE) pat_guard_enter(&sp->guard, calls);
    sp->mode = PAT_MODE_EXCHANGE;
    sp->quiet = 0;
    sp->backoff = PAT_PROBE_FIRST;
    return;
  }
  if (gain) { /* the guard holds the site at its static choice */
    schedule_probe(sp, calls);
    return;
  }
  if (sp->mode == PAT_MODE_EXCHANGE && ++sp->quiet < PAT_QUIET_MAX) return;
  if (sp->mode == PAT_MODE_STATIC && calls > 0) /* a probe (not the site's first call) found nothing: back off */
    sp->backoff = sp->backoff * 2 > PAT_PROBE_MAX ? PAT_PROBE_MAX : sp->backoff * 2;
  if (sp->mode == PAT_MODE_EXCHANGE) pat_guard_leave(&sp->guard, calls);
  sp->mode = PAT_MODE_STATIC;
  sp->quiet = 0;
  schedule_probe(sp, calls);
}

static void after_choice(pat_comm_state *cs, int site, const pat_choice *choice) {
  const int64_t *ebar_ns = choice->ebar_ns;
  int static_alg = choice->static_alg;
  cs->policy.site[site].exchanged++;
  /* kept without a choice (planned ahead from history): the predictions are
   * history's, and the guard (learn) judges the kept algorithm by its cost */
  if (choice->kept) return;
  int best = static_alg;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (ebar_ns[alg] < ebar_ns[best]) best = alg;
  if (ebar_ns[static_alg] == INT64_MAX || best == static_alg) {
    found(cs, site, 0);
    return;
  }
  found(cs, site, pat_policy_gain_pays(cs, ebar_ns[static_alg], ebar_ns[best], choice->wait));
}

/* The records' previous calls at the site, if every rank made the same one. */
static int previous_call(const pat_exchange *x, long long *call, int *alg, int *flags) {
  *call = x->all[0].prev_call;
  *alg = x->all[0].prev_alg;
  *flags = x->all[0].prev_flags;
  if (*call < 0 || *alg < 0 || *alg >= PAT_ALG_COUNT) return 0;
  for (int i = 1; i < x->P; i++)
    if (x->all[i].prev_call != *call || x->all[i].prev_alg != *alg || x->all[i].prev_flags != *flags) return 0;
  return 1;
}

/* err = mean_i |d_i - mean d| with d = predicted - actual (a common shift of
 * every prediction changes no decision), spread = mean_i |a_i - mean a|. */
static void prediction_error(const pat_exchange *x, double *err, double *spread) {
  int P = x->P;
  double mean_d = 0, mean_a = 0, a0 = (double)x->all[0].prev_arrival_ns;
  for (int i = 0; i < P; i++) {
    mean_d += (double)(x->all[i].prev_predicted_ns - x->all[i].prev_arrival_ns);
    mean_a += (double)x->all[i].prev_arrival_ns - a0;
  }
  mean_d /= P;
  mean_a /= P;
  *err = *spread = 0;
  for (int i = 0; i < P; i++) {
    *err += fabs((double)(x->all[i].prev_predicted_ns - x->all[i].prev_arrival_ns) - mean_d);
    *spread += fabs((double)x->all[i].prev_arrival_ns - a0 - mean_a);
  }
  *err *= 1e-9 / P;
  *spread *= 1e-9 / P;
}

/* From the records: what the site's previous call cost (online refinement
 * and the guardrail) and how well its arrivals were predicted. */
static void learn(pat_comm_state *cs, int site) {
  pat_site_policy *sp = &cs->policy.site[site];
  const pat_exchange *x = &cs->x;
  long long call;
  int alg, flags;
  if (!previous_call(x, &call, &alg, &flags) || call != sp->last.call || call <= sp->learned_call) return;
  sp->learned_call = call;
  pat_policy_settle(cs); /* its arrivals are about to be replaced */
  int64_t *arrivals = cs->planner.scratch;
  double measured = 0;
  for (int i = 0; i < cs->P; i++) {
    arrivals[i] = x->all[i].prev_arrival_ns;
    measured += 1e-9 * (double)x->all[i].prev_elapsed_ns;
  }
  measured /= cs->P;
  /* costs are above the wait for the last arrival (select.h), which no algorithm avoids */
  double wait = pat_select_wait(cs->P, arrivals);
  /* the guardrail, whatever this call's setting: the flags say whether that call was auto's */
  long long now = cs->sites.site[site].calls;
  if (flags & PAT_PREV_PREDICTED) {
    double err, spread;
    prediction_error(x, &err, &spread);
    pat_guard_prediction(&sp->guard, now, err, spread);
  }
  if ((flags & (PAT_PREV_STATIC | PAT_PREV_ALT)) &&
      pat_guard_measured(&sp->guard, now, (flags & PAT_PREV_ALT) != 0, measured - wait)) {
    sp->mode = PAT_MODE_STATIC; /* the alternative lost: back to the static choice */
    sp->quiet = 0;
    schedule_probe(sp, now);
  }
  pat_policy *pl = &cs->policy;
  pl->unsettled.pending = 1;
  pl->unsettled.site = site;
  pl->unsettled.alg = alg;
  pl->unsettled.measured = measured;
  pl->unsettled.wait = wait;
}

void pat_policy_settle(pat_comm_state *cs) {
  pat_policy *pl = &cs->policy;
  if (!pl->unsettled.pending) return;
  pl->unsettled.pending = 0;
  int site = pl->unsettled.site, alg = pl->unsettled.alg;
  double measured = pl->unsettled.measured, wait = pl->unsettled.wait, predicted;
  /* the site's block size is the sample's: a slot given to another site drops it (new_site) */
  if (pat_predict_alg(cs, alg, cs->planner.scratch, cs->sites.site[site].bytes, &predicted) != 0) return;
  if (!(predicted - wait > 0) || !(measured - wait > 0)) return;
  pat_refine *rf = &pl->site[site].refine;
  double r = (measured - wait) / (predicted - wait);
  if (r > PAT_REFINE_CLAMP) r = PAT_REFINE_CLAMP;
  if (r < 1.0 / PAT_REFINE_CLAMP) r = 1.0 / PAT_REFINE_CLAMP;
  rf->ratio[alg] = rf->samples[alg] ? rf->ratio[alg] + PAT_REFINE_WEIGHT * (r - rf->ratio[alg]) : r;
  rf->samples[alg]++;
  rf->pred_sum[alg] += predicted;
  rf->meas_sum[alg] += measured;
}

void pat_policy_commit(pat_comm_state *cs, int site, const pat_choice *choice, int setting) {
  pat_policy *pl = &cs->policy;
  pl->cur_exchanged = 1;
  pl->cur_alt = pl->site[site].mode == PAT_MODE_EXCHANGE || choice->alg != choice->static_alg;
  /* under PAT_EXCHANGE=always every call pays the exchange: the static
   * choice's calls are its measurements (a probe's extra exchange is not) */
  pl->cur_static = !pl->cur_alt && pat_proc.settings.exchange == PAT_EXCHANGE_ALWAYS;
  pl->cur_predicted_ns = cs->x.all[cs->rank].arrival_ns;
  pl->cur_kept = choice->kept;
  learn(cs, site);
  if (setting != PAT_ALG_AUTO) {
    /* a probe auto announced was spent by a call of another setting
     * (PAT_UseAlg between calls): the next one comes after the backoff */
    pat_site_policy *sp = &pl->site[site];
    long long calls = cs->sites.site[site].calls;
    if (sp->mode == PAT_MODE_STATIC && calls >= sp->next_probe) schedule_probe(sp, calls);
    return;
  }
  pat_refine *rf = &cs->policy.site[site].refine;
  if (choice->explored) {
    rf->explored[choice->alg]++;
    rf->explorations++;
    rf->last_explore = cs->sites.site[site].calls;
  }
  after_choice(cs, site, choice);
}
