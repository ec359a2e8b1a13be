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

void pat_policy_init(pat_policy *pl) {
  memset(pl, 0, sizeof *pl);
  pl->prev_call = -1;
  pl->prev_site = -1;
  pl->prev_alg = -1;
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
  pat_site_policy *sp = &cs->policy.site[site];
  memset(sp, 0, sizeof *sp);
  sp->mode = PAT_MODE_STATIC;
  sp->static_alg = pat_policy_static_alg(cs, cs->sites.site[site].bytes);
  sp->backoff = PAT_PROBE_FIRST;
  sp->next_probe = PAT_PROBE_FIRST;
  sp->never = static_time(cs, cs->sites.site[site].bytes) < 2.0 * pat_policy_exchange_cost(cs);
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
  pl->prev_call = cs->sites.calls - 1; /* the call just recorded */
  pl->prev_arrival_ns = arrival_ns;
  pl->prev_elapsed_ns = exit_ns - arrival_ns;
  pl->prev_alg = alg;
  pl->prev_site = site;
  pl->prev_bytes = cs->sites.site[site].bytes;
  if (setting == PAT_ALG_AUTO)
    pl->next_exchanges = pat_proc.settings.exchange == PAT_EXCHANGE_ALWAYS || site_wants_exchange(cs, pat_sites_next(&cs->sites));
  else
    pl->next_exchanges = pat_policy_call_exchanges(cs, setting, 0);
}

/* A probe or exchanged call found nothing to gain, or something. */
static void found(pat_comm_state *cs, int site, int gain) {
  pat_site_policy *sp = &cs->policy.site[site];
  long long calls = cs->sites.site[site].calls;
  if (gain) {
    sp->mode = PAT_MODE_EXCHANGE;
    sp->quiet = 0;
    sp->backoff = PAT_PROBE_FIRST;
    return;
  }
  if (sp->mode == PAT_MODE_EXCHANGE && ++sp->quiet < PAT_QUIET_MAX) return;
  if (sp->mode == PAT_MODE_STATIC && calls > 0) /* a probe (not the site's first call) found nothing: back off */
    sp->backoff = sp->backoff * 2 > PAT_PROBE_MAX ? PAT_PROBE_MAX : sp->backoff * 2;
  sp->mode = PAT_MODE_STATIC;
  sp->quiet = 0;
  sp->next_probe = calls + 1 + sp->backoff;
}

static void after_choice(pat_comm_state *cs, int site, const int64_t *ebar_ns, int static_alg, double wait) {
  cs->policy.site[site].exchanged++;
  int best = static_alg;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (ebar_ns[alg] < ebar_ns[best]) best = alg;
  if (ebar_ns[static_alg] == INT64_MAX || best == static_alg) {
    found(cs, site, 0);
    return;
  }
  found(cs, site, pat_policy_gain_pays(cs, ebar_ns[static_alg], ebar_ns[best], wait));
}

/* The records' previous calls, if every rank made the same one. */
static int previous_call(const pat_exchange *x, long long *call, int *alg) {
  *call = x->all[0].prev_call;
  *alg = x->all[0].prev_alg;
  if (*call < 0 || *alg < 0 || *alg >= PAT_ALG_COUNT) return 0;
  for (int i = 1; i < x->P; i++)
    if (x->all[i].prev_call != *call || x->all[i].prev_alg != *alg) return 0;
  return 1;
}

static void learn(pat_comm_state *cs) {
  pat_policy *pl = &cs->policy;
  const pat_exchange *x = &cs->x;
  long long call;
  int alg;
  if (!previous_call(x, &call, &alg) || call != pl->prev_call || pl->prev_site < 0) return;
  int64_t *arrivals = cs->planner.scratch;
  double measured = 0;
  for (int i = 0; i < cs->P; i++) {
    arrivals[i] = x->all[i].prev_arrival_ns;
    measured += 1e-9 * (double)x->all[i].prev_elapsed_ns;
  }
  measured /= cs->P;
  double predicted;
  if (pat_predict_alg(cs, pl->prev_site, alg, arrivals, pl->prev_bytes, &predicted) != 0) return;
  /* the ratio is of the costs above the wait for the last arrival (select.h) */
  double wait = pat_select_wait(cs->P, arrivals);
  if (!(predicted - wait > 0) || !(measured - wait > 0)) return;
  pat_refine *rf = &pl->site[pl->prev_site].refine;
  double r = (measured - wait) / (predicted - wait);
  if (r > PAT_REFINE_CLAMP) r = PAT_REFINE_CLAMP;
  if (r < 1.0 / PAT_REFINE_CLAMP) r = 1.0 / PAT_REFINE_CLAMP;
  rf->ratio[alg] = rf->samples[alg] ? rf->ratio[alg] + PAT_REFINE_WEIGHT * (r - rf->ratio[alg]) : r;
  rf->samples[alg]++;
  rf->pred_sum[alg] += predicted;
  rf->meas_sum[alg] += measured;
}

void pat_policy_commit(pat_comm_state *cs, int site, const pat_choice *choice, int setting) {
  learn(cs);
  if (setting != PAT_ALG_AUTO) return;
  pat_refine *rf = &cs->policy.site[site].refine;
  if (choice->explored) {
    rf->explored[choice->alg]++;
    rf->explorations++;
    rf->last_explore = cs->sites.site[site].calls;
  }
  after_choice(cs, site, choice->ebar_ns, choice->static_alg, choice->wait);
}
