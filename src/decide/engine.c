/* auto's decision engine (see engine.h). */
#include "decide/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/measured.h"
#include "algorithms/sched/status.h"

int pat_engine_init(pat_engine *e, const pat_engine_config *cfg) {
  memset(e, 0, sizeof *e);
  e->cfg = *cfg;
  e->one_node_native = pat_engine_one_node_native(cfg->P, cfg->node, cfg->one_node_auto);
  e->exchange_mine_ns = -1;
  pat_nodes nodes;
  if (pat_nodes_make(cfg->P, cfg->node, &nodes) != PAT_OK) return -1;
  e->hierarchical = pat_nodes_hierarchical(&nodes);
  pat_nodes_free(&nodes);
  pat_select_cache_init(&e->select);
  pat_vsites_init(&e->vsites);
  e->unsettled.arrival = malloc((size_t)cfg->P * sizeof *e->unsettled.arrival);
  e->records = malloc((size_t)cfg->P * sizeof *e->records);
  e->bound_arrival = malloc((size_t)cfg->P * sizeof *e->bound_arrival);
  return e->unsettled.arrival && e->records && e->bound_arrival ? 0 : -1;
}

void pat_engine_free(pat_engine *e) {
  free(e->unsettled.arrival);
  free(e->records);
  free(e->bound_arrival);
  pat_select_cache_free(&e->select);
  memset(e, 0, sizeof *e);
}

int pat_engine_one_node(int P, const int *node) {
  for (int r = 1; r < P; r++)
    if (node[r] != node[0]) return 0;
  return 1;
}

int pat_engine_one_node_native(int P, const int *node, int one_node_auto) {
  return !one_node_auto && pat_engine_one_node(P, node);
}

/* ---- costs and the gain rule ---- */

int pat_engine_static_alg(const pat_engine *e, int64_t bytes) {
  if (e->one_node_native) return PAT_ALG_NATIVE; /* whatever a model file measured */
  unsigned without_arrivals = 0; /* arrival-aware algorithms need an exchange */
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (!(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL)) without_arrivals |= 1u << alg;
  const pat_model_params *mp = e->cfg.mp;
  double t_best, t_native;
  int best = pat_model_measured_best(mp, without_arrivals, e->cfg.P, (double)bytes, &t_best);
  if (best == PAT_ALG_UNKNOWN) return PAT_ALG_NATIVE;
  if (!pat_model_measured_time(mp, PAT_ALG_NATIVE, e->cfg.P, (double)bytes, &t_native)) t_native = NAN;
  return pat_static_native_stays(mp, e->cfg.P, best, t_best, t_native, (double)bytes) ? PAT_ALG_NATIVE : best;
}

int pat_engine_static_choice(const pat_engine *e, int site, int64_t bytes) {
  return site >= 0 ? e->site[site].static_alg : pat_engine_static_alg(e, bytes);
}

int pat_engine_static_choice_v(pat_engine *e, const int64_t *bytes) {
  if (pat_engine_v_defers(e)) return PAT_ALG_NATIVE;
  uint64_t sig = pat_vsig(e->cfg.P, bytes);
  int slot = pat_vsites_find(&e->vsites, sig);
  if (slot >= 0) return e->vsites.site[slot].alg;
  int alg = pat_vchoice(e->cfg.mp, e->cfg.P, bytes);
  pat_vsites_put(&e->vsites, sig, alg);
  return alg;
}

/* The static choice's balanced time for blocks of `bytes` (s): measured, or
 * a ring under the default parameters. */
static double static_time(const pat_engine *e, int64_t bytes) {
  const pat_model_params *mp = e->cfg.mp;
  double t;
  if (pat_model_measured_time(mp, pat_engine_static_alg(e, bytes), e->cfg.P, (double)bytes, &t)) return t;
  return (e->cfg.P - 1) * pat_model_cost(mp->dflt.inter, (double)bytes, 1.0);
}

/* A block's time between two ranks (s): what tells the regimes apart (explore.h). */
static double block_tau(const pat_engine *e, int64_t bytes) {
  return pat_model_cost(e->cfg.mp->dflt.inter, (double)bytes, 1.0);
}

/* The site's own call time (s): S once known, else the static choice's modelled time. */
static double site_call_time(const pat_engine *e, const pat_engine_site *sp) {
  return pat_guard_knows_static(&sp->guard) ? sp->guard.s_cost : static_time(e, sp->bytes);
}

/* The regime of a site's arrivals (ns): a spread that is jitter against the call's own time is
 * balanced (explore.h, pat_regime_at). */
static int site_regime(const pat_engine *e, const pat_engine_site *sp, const int64_t *arrival) {
  return pat_regime_at(e->cfg.P, arrival, block_tau(e, sp->bytes), site_call_time(e, sp));
}

double pat_engine_exchange_modelled(const pat_engine *e) {
  const pat_model_params *mp = e->cfg.mp;
  double t;
  if (pat_model_measured_time(mp, PAT_ALG_NATIVE, e->cfg.P, (double)e->cfg.record_bytes, &t)) return t;
  int steps = 0;
  while ((1 << steps) < e->cfg.P) steps++;
  /* a non-blocking all-gather of small records: about two latencies a round */
  return 2.0 * steps * pat_model_cost(mp->dflt.inter, (double)e->cfg.record_bytes, 1.0);
}

_Static_assert(PAT_EXCHANGE_SAMPLES <= PAT_ARM_SAMPLES, "pat_median_small takes at most PAT_ARM_SAMPLES");
double pat_engine_exchange_cost(const pat_engine *e) {
  const double modelled = pat_engine_exchange_modelled(e);
  const int n = e->exchange_samples < PAT_EXCHANGE_SAMPLES ? e->exchange_samples : PAT_EXCHANGE_SAMPLES;
  if (n < PAT_EXCHANGE_KNOWN) return modelled;
  const double measured = pat_median_small(e->exchange_sample, n);
  return measured > modelled ? measured : modelled;
}

/* The exchange's cost as the records carry it (s): the mean over the
 * ranks, where every rank's record carries one (0 returned where not). */
static int records_exchange(const pat_engine *e, double *mean) {
  double sum = 0;
  for (int i = 0; i < e->cfg.P; i++) {
    if (e->records[i].exchange_ns < 0) return 0;
    sum += 1e-9 * (double)e->records[i].exchange_ns;
  }
  *mean = sum / e->cfg.P;
  return 1;
}

/* An agreed sample of the exchange's cost, where every rank's record carries one. */
static void note_exchange(pat_engine *e) {
  double x;
  if (!records_exchange(e, &x)) return;
  e->exchange_sample[e->exchange_samples % PAT_EXCHANGE_SAMPLES] = x;
  e->exchange_samples++;
}

/* The no-probe rule (engine.h): a static choice that costs less than two
 * exchanges (s) leaves arrival-awareness nothing to pay for them with. */
static int below_two_exchanges(const pat_engine *e, double static_cost) {
  return static_cost < 2.0 * pat_engine_exchange_cost(e);
}

int pat_engine_gain_pays(const pat_engine *e, int64_t static_ns, int64_t best_ns, double wait_s) {
  if (static_ns == INT64_MAX) return best_ns != INT64_MAX;
  double st = 1e-9 * (double)static_ns, gain = st - 1e-9 * (double)best_ns;
  double needed = PAT_GAIN_FRACTION * (st - wait_s); /* of the static choice's own cost, not of the wait */
  double x = pat_engine_exchange_cost(e);
  if (x > needed) needed = x;
  return gain > needed;
}

/* ---- sites and their modes ---- */

void pat_engine_new_site(pat_engine *e, int site, int64_t bytes, const int64_t *shape) {
  if (e->unsettled.site == site) e->unsettled.pending = 0; /* the old site's sample */
  pat_engine_site *sp = &e->site[site];
  memset(sp, 0, sizeof *sp);
  sp->mode = PAT_MODE_STATIC;
  sp->bytes = bytes;
  sp->static_alg = shape ? pat_engine_static_choice_v(e, shape) : pat_engine_static_alg(e, bytes);
  sp->backoff = PAT_PROBE_FIRST;
  sp->next_probe = PAT_PROBE_FIRST;
  sp->never = below_two_exchanges(e, static_time(e, bytes));
  sp->last.call = -1;
  sp->learned_call = -1;
  for (int r = 0; r < PAT_REGIMES; r++) sp->leader[r] = -1;
  pat_arms_init(&sp->arms);
  sp->trial_alg = -1;
  sp->explore_call = -1;
  sp->model_dropped_at = -1;
  /* a model file's measured balanced time of the static choice stands in for
   * its cost until the site measures it; without one, the site measures first */
  double prior, native;
  if (!pat_model_measured_time(e->cfg.mp, sp->static_alg, e->cfg.P, (double)bytes, &prior)) prior = 0;
  /* a static choice the model file made is measured against MPI's own before it is trusted: a file
   * from another calibration (an older libpat, another network rate) ranks them as that day did.  Not
   * where the file measured MPI's own PAT_EXPLORE_DROP times the static choice or more, as a candidate
   * measured that much slower is not tried again: a rate or a version that moves the two that far
   * apart is not what the check is for, and on nodes MPI's own (4x HRING there, by a calibration at
   * 500 Mbit/s; 4.8x HRELAY measured at 200) cost the check's one call most of what auto lost over 20 */
  const int native_far = prior > 0 && pat_model_measured_time(e->cfg.mp, PAT_ALG_NATIVE, e->cfg.P, (double)bytes,
                                                              &native) && native >= PAT_EXPLORE_DROP * prior;
  sp->checking = e->cfg.have_model && !e->one_node_native && sp->static_alg != PAT_ALG_NATIVE && !sp->never &&
                 !native_far;
  sp->model_timed = prior > 0;
  pat_guard_init(&sp->guard, prior);
}

const pat_last_call *pat_engine_last(const pat_engine *e, int site) {
  if (site < 0 || e->site[site].last.call < 0) return NULL;
  return &e->site[site].last;
}

/* On unless PAT_PLAN_AHEAD_AUTO=0 (a job setting: every rank alike): a plan
 * made as the last call ends has its receives posted before the last rank's
 * edge, where one made at the edges comes too late to gain. */
int pat_engine_plans_ahead(const pat_engine *e, int site) {
  if (!e->cfg.plan_ahead || site < 0) return 0;
  const pat_engine_site *sp = &e->site[site];
  int alg = sp->last.alg;
  return sp->mode == PAT_MODE_EXCHANGE && alg >= 0 && alg < PAT_ALG_COUNT &&
         (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD);
}

int pat_engine_exchanges(const pat_engine *e, int setting, int fresh) {
  if (e->cfg.P < 2) return 0;
  if (e->next_exchanges) return 1;
  if (setting != PAT_ALG_AUTO) return setting >= 0 && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL);
  if (e->cfg.exchange_always) return 1;
  if (e->one_node_native) return 0;
  return fresh;
}

/* Should the call after this one, at `site` (the one expected next, with
 * `calls` recorded), exchange? */
static int site_wants_exchange(const pat_engine *e, int site, long long calls) {
  if (site < 0) return 0;
  const pat_engine_site *sp = &e->site[site];
  if (sp->mode == PAT_MODE_EXCHANGE) return 1;
  return !sp->never && calls >= sp->next_probe;
}

void pat_engine_end_call(pat_engine *e, const pat_engine_end *end) {
  pat_engine_site *sp = &e->site[end->site];
  pat_last_call *l = &sp->last;
  l->call = end->call;
  l->arrival_ns = end->arrival_ns;
  l->elapsed_ns = end->exit_ns - end->arrival_ns;
  l->alg = end->alg;
  l->predicted_ns = e->cur.exchanged ? e->cur.predicted_ns : end->arrival_ns;
  if (end->exchange_ns >= 0) e->exchange_mine_ns = end->exchange_ns;
  l->flags = 0;
  int is_auto = end->setting == PAT_ALG_AUTO;
  if (is_auto) {
    /* a kept plan-ahead call's records are history's by design: they say
     * nothing of how well this site's arrivals can be predicted */
    /* so are a plan-ahead algorithm's, chosen on history's records: its
     * prediction only orders its sends.  Judged as bets, they would make a
     * site of an instrumented program look unpredictable (history's error is
     * the delays' spread) and hold it at NATIVE for the distrust period */
    const int history_plan = e->cur.history && end->alg >= 0 && end->alg < PAT_ALG_COUNT &&
                             (pat_algorithms[end->alg].flags & PAT_ALGF_PLAN_AHEAD);
    if (e->cur.exchanged)
      l->flags = (e->cur.kept || history_plan ? 0 : PAT_LAST_PREDICTED) | PAT_LAST_EXCHANGED |
                 (e->cur.alt ? PAT_LAST_ALT : e->cur.statik ? PAT_LAST_STATIC : 0);
    else if (end->alg == sp->static_alg)
      l->flags = PAT_LAST_STATIC;
    pat_guard_tick(&sp->guard);
    if (e->cur.explores) sp->explore_call = end->call;
  }
  memset(&e->cur, 0, sizeof e->cur);
  if (is_auto)
    e->next_exchanges = e->cfg.exchange_always ||
                        (!e->one_node_native && site_wants_exchange(e, end->next_site, end->next_site_calls));
  else
    e->next_exchanges = pat_engine_exchanges(e, end->setting, 0);
}

/* The next probe of a static site: after its backoff, not before the guard
 * allows a trial, and soon if the static choice has not been measured yet
 * (the probe's records carry the cost of the static call before it). */
static void schedule_probe(pat_engine_site *sp, long long calls) {
  sp->next_probe = calls + 1 + sp->backoff;
  /* a probe tells the regime, so the earliest regime's trial bounds it */
  if (sp->next_probe < pat_guard_next_try(&sp->guard)) sp->next_probe = pat_guard_next_try(&sp->guard);
  /* unpredictable arrivals: no probe (an exchange) before they may be trusted again */
  if (sp->guard.distrusted && sp->next_probe < sp->guard.distrust_until) sp->next_probe = sp->guard.distrust_until;
  if (!pat_guard_knows_static(&sp->guard)) sp->next_probe = calls + 2;
  /* a refresh measures S anew, and a trial judged against the model's S measures it first: this
   * call runs the static choice, a sample of S less its exchange (pat_engine_commit), and the probe
   * one call on learns its cost from the records.  Sampled only on unexchanged calls, S took a
   * second static call before the probe: on 3 + 3 + 2 ranks with a model of another network rate
   * a call of HRING at 2x HRELAY, which left auto at 1.06-1.08x HRELAY over 20 calls */
  if (pat_guard_wants_static_sample(&sp->guard)) sp->next_probe = calls + 1;
  /* the model check: a static call to measure S, then the probe that runs NATIVE */
  if (sp->checking) sp->next_probe = calls + (sp->guard.s_n > 0 ? 1 : 2);
}

/* What the site may still spend on exploring (s): PAT_EXPLORE_BUDGET of its time so far (`calls`
 * site calls at S) and PAT_EXPLORE_ALLOW static calls' cost, less what it spent. */
static double explore_left(const pat_engine_site *sp, long long calls) {
  const double S = sp->guard.s_cost;
  return PAT_EXPLORE_BUDGET * (double)calls * S + PAT_EXPLORE_ALLOW * S - sp->explore_spent;
}

/* May the site spend a call expected to lose `loss` (s) over S on exploring?  Without S the guard
 * holds the site at its static choice until it is measured, so nothing is spent before. */
static int explore_affords(const pat_engine_site *sp, long long calls, double loss) {
  if (!pat_guard_knows_static(&sp->guard)) return 1;
  return (loss > 0 ? loss : 0) <= explore_left(sp, calls);
}

/* A probe or an exchanged call found something to gain, or nothing. */
static void found(pat_engine_site *sp, long long calls, int gain) {
  if (gain && (sp->mode == PAT_MODE_EXCHANGE || pat_guard_may_leave(&sp->guard, calls, sp->guard.regime))) {
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

/* The site's mode after an exchanged auto call, from its choice's predictions. */
static void after_choice(pat_engine *e, int site, long long calls, const pat_choice *choice) {
  pat_engine_site *sp = &e->site[site];
  const int64_t *ebar_ns = choice->ebar_ns;
  sp->exchanged++;
  /* kept without a choice (planned ahead from history): the predictions are
   * history's, and the guard (learn) judges the kept algorithm by its cost */
  if (choice->kept) return;
  /* explored to be measured: from the static choice a trial of it; in the
   * exchange mode neither a gain nor a quiet call (the calls between decide
   * whether the mode goes on) */
  if (choice->explored) {
    if (sp->mode == PAT_MODE_STATIC) found(sp, calls, 1);
    return;
  }
  int best = -1;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (best < 0 || ebar_ns[alg] < ebar_ns[best]) best = alg;
  if (choice->static_ns == INT64_MAX || ebar_ns[best] >= choice->static_ns) {
    found(sp, calls, 0);
    return;
  }
  const int gain = pat_engine_gain_pays(e, choice->static_ns, ebar_ns[best], choice->wait);
  /* a trial of the predicted best is exploration too: each of its calls pays an exchange */
  if (gain && sp->mode == PAT_MODE_STATIC && !explore_affords(sp, calls, pat_engine_exchange_cost(e))) {
    schedule_probe(sp, calls);
    return;
  }
  found(sp, calls, gain);
}

/* ---- learning from the records ---- */

/* The records' previous calls at the site, if every rank made the same one. */
static int previous_call(const pat_engine *e, long long *call, int *alg, int *flags) {
  const pat_last_call *r = e->records;
  *call = r[0].call;
  *alg = r[0].alg;
  *flags = r[0].flags;
  if (*call < 0 || *alg < 0 || *alg >= PAT_ALG_COUNT) return 0;
  for (int i = 1; i < e->cfg.P; i++)
    if (r[i].call != *call || r[i].alg != *alg || r[i].flags != *flags) return 0;
  return 1;
}

/* err = mean_i |d_i - mean d| with d = predicted - actual (a common shift of
 * every prediction changes no decision), spread = mean_i |a_i - mean a|. */
static void prediction_error(const pat_engine *e, double *err, double *spread) {
  const pat_last_call *r = e->records;
  int P = e->cfg.P;
  double mean_d = 0, mean_a = 0, a0 = (double)r[0].arrival_ns;
  for (int i = 0; i < P; i++) {
    mean_d += (double)(r[i].predicted_ns - r[i].arrival_ns);
    mean_a += (double)r[i].arrival_ns - a0;
  }
  mean_d /= P;
  mean_a /= P;
  *err = *spread = 0;
  for (int i = 0; i < P; i++) {
    *err += fabs((double)(r[i].predicted_ns - r[i].arrival_ns) - mean_d);
    *spread += fabs((double)r[i].arrival_ns - a0 - mean_a);
  }
  *err *= 1e-9 / P;
  *spread *= 1e-9 / P;
}

static void back_to_static(pat_engine_site *sp, long long now);

/* The static choice changed: its critical paths are measured afresh. */
static void new_static(pat_engine_site *sp, int alg) {
  sp->static_alg = alg;
  sp->static_last_out = 0;
  sp->static_last_out_n = 0;
}

/* A classic algorithm that the exchange mode ran PAT_PROMOTE_CALLS calls in
 * a row, at costs (exchange included) PAT_STATIC_MARGIN below the static
 * choice's, becomes the static choice (engine.h, Promotion).  alt: the call
 * was the exchange mode's; cost: its measured cost above the wait (s);
 * last_out: its critical path without the exchange (s, learn). */
static void promote(pat_engine_site *sp, long long now, int alg, int alt, double cost, double last_out) {
  if (!alt && alg == sp->static_alg) { /* a sample of S: its critical path too */
    sp->static_last_out += last_out;
    sp->static_last_out_n++;
  }
  if (!alt || (pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) || alg == sp->static_alg) {
    sp->streak_n = 0;
    return;
  }
  if (sp->streak_n == 0 || sp->streak_alg != alg) {
    sp->streak_alg = alg;
    sp->streak_n = 0;
    sp->streak_sum = 0;
    sp->streak_last_out = 0;
  }
  sp->streak_sum += cost;
  sp->streak_last_out += last_out;
  if (++sp->streak_n < PAT_PROMOTE_CALLS || !pat_guard_knows_static(&sp->guard)) return;
  double mean = sp->streak_sum / sp->streak_n;
  /* means, not medians: a last rank held up now and then (DIRECT's transfers from every rank at once
   * into each, on TCP) holds the program up every time it happens.  The static choice's critical path
   * not measured yet, its cost S stands in: no more than it, which the mean exit is never over */
  const double static_out =
      sp->static_last_out_n > 0 ? sp->static_last_out / sp->static_last_out_n : sp->guard.s_cost;
  const int later_out = sp->streak_last_out / sp->streak_n > static_out;
  sp->streak_n = 0;
  if (!(mean < (1.0 - PAT_STATIC_MARGIN) * sp->guard.s_cost)) return;
  if (later_out) { /* faster only by the mean exit: not worth an exchange a call either */
    pat_guard_leave(&sp->guard, now);
    back_to_static(sp, now);
    return;
  }
  new_static(sp, alg);
  sp->promotions++;
  sp->mode = PAT_MODE_STATIC;
  sp->quiet = 0;
  sp->backoff = PAT_PROBE_FIRST;
  /* its cost with the exchange stands in until a static call of it is measured (without one: less) */
  pat_guard_new_static(&sp->guard, mean);
  schedule_probe(sp, now);
}

/* A learned call's e-bar (s) over its lower bound (explore.h: near the
 * bound), from its arrivals (ns) and the model's time for a block; 0
 * without a bound. */
static double over_bound(pat_engine *e, const int64_t *arrivals, double tau, double ebar) {
  const int P = e->cfg.P;
  int64_t first = arrivals[0];
  for (int i = 1; i < P; i++)
    if (arrivals[i] < first) first = arrivals[i];
  for (int i = 0; i < P; i++) e->bound_arrival[i] = 1e-9 * (double)(arrivals[i] - first);
  double lb = pat_lower_bound_nodes(P, e->bound_arrival, tau, e->cfg.node, NULL);
  return lb > 0 && ebar > 0 ? ebar / lb : 0;
}

/* The site returns to its static choice (a trial ended by the engine, not by the guard's verdict). */
static void back_to_static(pat_engine_site *sp, long long now) {
  sp->mode = PAT_MODE_STATIC;
  sp->quiet = 0;
  sp->trial_alg = -1;
  schedule_probe(sp, now);
}

/* A family's measured ratio to MPI's own at this site, for the sites of other sizes
 * (PAT_CARRY_SPAN): from two samples (one may be a cold call), against S where the static choice is
 * NATIVE, else against NATIVE's own median in the regime. */
static void carry_note(pat_engine *e, const pat_engine_site *sp, int regime, int alg) {
  double c, ref;
  if (alg == PAT_ALG_NATIVE || pat_arms_n(&sp->arms, regime, alg) < 2 || !pat_arms_cost(&sp->arms, regime, alg, &c))
    return;
  if (sp->static_alg == PAT_ALG_NATIVE && sp->guard.s_n > 0)
    ref = sp->guard.s_cost;
  else if (!pat_arms_cost(&sp->arms, regime, PAT_ALG_NATIVE, &ref))
    return;
  if (!(ref > 0)) return;
  e->carry[regime][alg].ratio = c / ref;
  e->carry[regime][alg].bytes = sp->bytes;
}

/* A ratio carried from a site of another size within PAT_CARRY_SPAN of `bytes` (0: none). */
static int carried(const pat_engine *e, int regime, int alg, int64_t bytes, double *ratio) {
  const pat_carry *c = &e->carry[regime][alg];
  if (c->bytes <= 0 || bytes <= 0 || c->bytes > PAT_CARRY_SPAN * bytes || bytes > PAT_CARRY_SPAN * c->bytes) return 0;
  *ratio = c->ratio;
  return 1;
}

/* Measurement contradicted the model file at this site: its pick and its levels stop counting here.
 * native_cost >= 0: NATIVE measured that much, cheaper than the model's static choice, which NATIVE
 * replaces (its cost stands in for S until a static call of it is measured). */
static void drop_model(pat_engine_site *sp, long long now, double native_cost) {
  sp->model_dropped = 1;
  sp->model_dropped_at = now;
  sp->checking = 0;
  for (int r = 0; r < PAT_REGIMES; r++) sp->arms.model_pick[r] = -1;
  if (native_cost < 0 || sp->static_alg == PAT_ALG_NATIVE) return;
  new_static(sp, PAT_ALG_NATIVE);
  sp->streak_n = 0;
  pat_guard_new_static(&sp->guard, native_cost);
  back_to_static(sp, now);
}

/* The model check (engine.h): NATIVE's first measured call against the model's static choice's S;
 * and the model's pick, barred (PAT_EXPLORE_DROP times the cheapest known) where it was measured. */
static void check_model(pat_engine *e, pat_engine_site *sp, long long now, int regime, int alg, int flags,
                        double cost) {
  if (!e->cfg.have_model || sp->model_dropped) return;
  pat_guard *g = &sp->guard;
  if (sp->checking && now > PAT_CHECK_CALLS) sp->checking = 0; /* it could not run: the model stands */
  if (sp->checking && (flags & PAT_LAST_ALT) && alg == PAT_ALG_NATIVE && g->s_n > 0) {
    if (cost < (1.0 - PAT_GAIN_FRACTION) * g->s_cost) {
      drop_model(sp, now, cost);
      return;
    }
    sp->checking = 0; /* confirmed: NATIVE's trial has nothing more to show */
    if (g->state == PAT_GUARD_EXPLORING && sp->trial_alg == PAT_ALG_NATIVE) {
      pat_guard_stop(g);
      back_to_static(sp, now);
    }
    return;
  }
  const int pick = sp->arms.model_pick[regime];
  if ((flags & PAT_LAST_ALT) && alg == pick && alg != sp->static_alg &&
      pat_arms_barred(&sp->arms, regime, ~0u, alg, pat_guard_knows_static(g) ? g->s_cost : 0))
    drop_model(sp, now, -1);
}

/* A trial the engine ends before the guard's verdict: its candidate is barred in the regime (measured
 * clearly slower twice), or the site's exploration budget is spent.  A loss, with its backoff. */
static void cut_trial(pat_engine_site *sp, long long now, int regime, int charged) {
  pat_guard *g = &sp->guard;
  if (g->state != PAT_GUARD_EXPLORING || sp->mode != PAT_MODE_EXCHANGE) return;
  /* against S as measured: a model file's, never measured here, is the guard's to judge against (a trial
   * that does not win it measures S first, pat_guard_measured), as in the charges (learn) */
  const double ref = g->s_n > 0 ? g->s_cost : 0;
  const int barred = sp->trial_alg >= 0 && pat_arms_barred(&sp->arms, regime, ~0u, sp->trial_alg, ref);
  /* over budget, a trial is ended by a call that lost, not by one that gained */
  if (!barred && !(charged && explore_left(sp, now) < 0)) return;
  pat_guard_leave(g, now);
  sp->explore_cuts++;
  back_to_static(sp, now);
}

/* From the records: what the site's previous call cost (online refinement
 * and the guardrail) and how well its arrivals were predicted. */
static void learn(pat_engine *e, int site, long long now) {
  pat_engine_site *sp = &e->site[site];
  long long call;
  int alg, flags;
  if (!previous_call(e, &call, &alg, &flags) || call != sp->last.call || call <= sp->learned_call) return;
  sp->learned_call = call;
  note_exchange(e);
  pat_engine_settle(e); /* its arrivals are about to be replaced */
  int64_t *arrivals = e->unsettled.arrival;
  double measured = 0;
  int64_t last_in = e->records[0].arrival_ns, last_exit = last_in;
  for (int i = 0; i < e->cfg.P; i++) {
    arrivals[i] = e->records[i].arrival_ns;
    measured += 1e-9 * (double)e->records[i].elapsed_ns;
    if (arrivals[i] > last_in) last_in = arrivals[i];
    if (arrivals[i] + e->records[i].elapsed_ns > last_exit) last_exit = arrivals[i] + e->records[i].elapsed_ns;
  }
  measured /= e->cfg.P;
  /* the critical path (promote): from the last arrival to the last exit */
  double last_out = 1e-9 * (double)(last_exit - last_in);
  /* costs are above the wait for the last arrival (select.h), which no algorithm avoids */
  double wait = pat_select_wait(e->cfg.P, arrivals);
  double exchanged;
  if ((flags & (PAT_LAST_ALT | PAT_LAST_EXCHANGED)) && records_exchange(e, &exchanged)) {
    /* an exchanged static call measures S without its exchange, which the static choice does not pay */
    if ((flags & PAT_LAST_STATIC) && (flags & PAT_LAST_EXCHANGED) && !e->cfg.exchange_always) wait += exchanged;
    /* the critical path as the static choice would run it: without the exchange (an S sample's, and an
     * exchange mode's call that promotion would make static) */
    last_out -= exchanged;
  }
  const double tau = block_tau(e, sp->bytes);
  const int regime = site_regime(e, sp, arrivals);
  sp->guard.regime = regime; /* a trial lost now backs off in this regime */
  /* the regime history knows: two calls in a row (one call's stall of the network spread the
   * arrivals of the next by more than a block's time, and exploration then measured a candidate of
   * the imbalanced regime at balanced arrivals) */
  if (regime == sp->regime_last) sp->regime_seen = regime;
  sp->regime_last = regime;
  /* the guardrail, whatever this call's setting: the flags say whether that call was auto's */
  if (flags & PAT_LAST_PREDICTED) {
    double err, spread;
    prediction_error(e, &err, &spread);
    pat_guard_prediction(&sp->guard, now, err, spread);
  }
  const int was_exploring = sp->guard.state == PAT_GUARD_EXPLORING;
  if ((flags & (PAT_LAST_STATIC | PAT_LAST_ALT)) &&
      pat_guard_measured(&sp->guard, now, (flags & PAT_LAST_ALT) != 0, measured - wait)) {
    sp->mode = PAT_MODE_STATIC; /* the alternative lost, or is refreshed: back to the static choice */
    sp->quiet = 0;
    schedule_probe(sp, now);
  }
  /* the no-probe rule again, from the static choice's cost as measured (agreed: from the records)
   * rather than as modelled, which without a model file counts P - 1 latencies where MPI's own
   * small all-gathers take log2 P rounds, so that a small site measured under two exchanges stops
   * paying for probes (BENCHMARKS.md, Balanced calls through the drop-in) */
  if (sp->guard.s_n > 0) sp->never = below_two_exchanges(e, sp->guard.s_cost);
  /* a trial just kept: its first exploration waits the interval, as the later ones do (explore.h) */
  if (was_exploring && sp->guard.state == PAT_GUARD_KEPT) sp->arms.last_explore = now;
  if (flags & (PAT_LAST_STATIC | PAT_LAST_ALT))
    promote(sp, now, alg, (flags & PAT_LAST_ALT) != 0, measured - wait, last_out);
  /* the exchange mode's costs, per regime of the arrivals they were measured under */
  if (flags & PAT_LAST_ALT) {
    pat_arms_add(&sp->arms, regime, alg, measured - wait, over_bound(e, arrivals, tau, measured), now);
    carry_note(e, sp, regime, alg);
  }
  /* what exploring lost is charged to the site's budget (a gain is the guard's to count), against an S
   * the site measured: against a model file's, never measured here, a model calibrated on a faster
   * network charged the site's first call (its pick, cold) over the whole budget, and the cut lost the
   * trial there, the guard's rule for a prior (measure S first, pat_guard_measured) bypassed: auto ran
   * HRING, 1.6x HRELAY, for good (3 + 3 + 2 ranks at 200 Mbit/s, a 500 Mbit/s calibration) */
  const int charged = call == sp->explore_call && sp->guard.s_n > 0 && measured - wait > sp->guard.s_cost;
  if (charged) sp->explore_spent += measured - wait - sp->guard.s_cost;
  check_model(e, sp, now, regime, alg, flags, measured - wait);
  cut_trial(sp, now, regime, charged);
  e->unsettled.pending = 1;
  e->unsettled.site = site;
  e->unsettled.alg = alg;
  e->unsettled.measured = measured;
  e->unsettled.wait = wait;
}

void pat_engine_learn(pat_engine *e, int site, long long site_calls) {
  if (site >= 0) learn(e, site, site_calls);
}

void pat_engine_settle(pat_engine *e) {
  if (!e->unsettled.pending) return;
  e->unsettled.pending = 0;
  int site = e->unsettled.site, alg = e->unsettled.alg;
  double predicted;
  /* the site's block size is the sample's: a slot given to another site drops it (new_site) */
  if (pat_engine_predict(e, alg, e->unsettled.arrival, e->site[site].bytes, &predicted) != 0) return;
  pat_refine_sample(&e->site[site].refine, alg, predicted, e->unsettled.measured, e->unsettled.wait);
}

void pat_engine_commit(pat_engine *e, int site, long long site_calls, const pat_choice *choice, int setting,
                       int64_t predicted_ns) {
  pat_engine_site *sp = &e->site[site];
  e->cur.exchanged = 1;
  e->cur.alt = sp->mode == PAT_MODE_EXCHANGE || choice->alg != choice->static_alg;
  /* under PAT_EXCHANGE=always every call pays the exchange: the static
   * choice's calls are its measurements (a probe's extra exchange is not);
   * where the guard waits for a sample of S (a refresh, or a model's S to
   * measure), the call that runs the static choice is one, less its
   * exchange (learn) */
  e->cur.statik = !e->cur.alt && (e->cfg.exchange_always || pat_guard_wants_static_sample(&sp->guard));
  e->cur.predicted_ns = predicted_ns;
  e->cur.kept = choice->kept;
  e->cur.history = choice->history;
  if (setting != PAT_ALG_AUTO) {
    /* a probe auto announced was spent by a call of another setting
     * (PAT_UseAlg between calls): the next one comes after the backoff */
    if (sp->mode == PAT_MODE_STATIC && site_calls >= sp->next_probe) schedule_probe(sp, site_calls);
    return;
  }
  if (choice->explored) pat_refine_explored(&sp->refine, choice->alg);
  const int was_static = sp->mode == PAT_MODE_STATIC;
  after_choice(e, site, site_calls, choice);
  e->cur.explores = choice->explored || sp->guard.state == PAT_GUARD_EXPLORING;
  /* A trial measures the alternative it was entered with (choose runs it
   * until the guard's verdict), explored or the predicted gain: its first
   * call is cold, and a trial that ran the best as chosen after it had the
   * cold cost replace the prediction, went back to the static choice in the
   * exchange mode and lost for nothing to gain, never measuring the
   * alternative warm (a model file's pick at a site's first call).  One
   * entered by the static choice itself runs the best as chosen. */
  if (sp->guard.state != PAT_GUARD_EXPLORING)
    sp->trial_alg = -1;
  else if (was_static)
    sp->trial_alg = choice->explored || choice->alg != choice->static_alg ? choice->alg : -1;
  if (choice->explored) {
    pat_arms_rechecked(&sp->arms, choice->regime, choice->alg, choice->recheck, site_calls);
    sp->arms.explored++;
    if (!was_static) sp->arms.last_explore = site_calls;
  } else if (sp->mode == PAT_MODE_EXCHANGE && choice->regime >= 0 && choice->regime < PAT_REGIMES) {
    sp->leader[choice->regime] = choice->alg;
  }
}

/* ---- the choice ---- */

/* The selection's inputs for this communicator and call. */
typedef struct inputs {
  pat_model_params mp;
  double flat[PAT_ALG_COUNT];
  pat_select_in in;
} inputs;

static void make_inputs(const pat_engine *e, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns,
                        inputs *x) {
  x->mp = *e->cfg.mp;
  x->mp.node = e->cfg.node;             /* the builders' node map */
  x->mp.shared_links = e->hierarchical; /* ranks that share a node share its link */
  pat_model_measured_levels(&x->mp, e->cfg.P, (double)bytes, x->flat);
  memset(&x->in, 0, sizeof x->in);
  x->in.P = e->cfg.P;
  x->in.arrival_ns = arrival;
  x->in.bg_start_ns = bg_start_ns;
  x->in.block_bytes = (double)bytes;
  x->in.mp = &x->mp;
  x->in.allowed = 0;         /* every algorithm */
  x->in.lnbc_root = 0;       /* LNBC's schedules are cached for root 0 */
  x->in.bslb_roots = 1;      /* BSLB rooted at the earliest predicted arrival */
  x->in.flat_s = x->flat;
  x->in.native_from_classic = 1;
  x->in.hierarchical = e->hierarchical;
}

/* The algorithms that do not bet on an arrival prediction: the classic
 * ones, and the plan-ahead ones, whose prediction only orders their sends
 * (RELAY: who sends what does not depend on it).  A site whose predictions
 * explain nothing of its arrivals (balanced ones, whose spread is jitter)
 * may still run RELAY, which can beat the classic ones balanced too. */
static unsigned without_prediction_bets(void) {
  unsigned m = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (!(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) || (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD))
      m |= 1u << alg;
  return m;
}

/* The static choice as the static mode runs it (pat_choice.static_ns).  An
 * arrival-aware one (an all-gatherv's RELAY, vchoice.h) runs its balanced
 * schedule there, no plan made ahead: every rank starts at its arrival, and
 * a late rank relays nothing before it.  Its exchanged prediction is the
 * plan's, which is what the exchange mode would gain over it; taking one for
 * the other, a site whose static choice is RELAY never found a gain. */
static int64_t static_prediction(pat_engine *e, const pat_select_in *in, const pat_choice *out) {
  const int alg = out->static_alg;
  if (alg < 0 || alg >= PAT_ALG_COUNT) return INT64_MAX;
  if (!(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL)) return out->ebar_ns[alg];
  pat_select_in st = *in;
  st.balanced_build = 1;
  st.bg_start_ns = in->arrival_ns[0];
  for (int i = 1; i < in->P; i++)
    if (in->arrival_ns[i] > st.bg_start_ns) st.bg_start_ns = in->arrival_ns[i];
  st.allowed = 1u << alg;
  pat_select_out so;
  if (pat_select(&e->select, &st, &so) != PAT_OK || so.status[alg] != PAT_OK) return INT64_MAX;
  return so.ebar_ns[alg];
}

/* What an exchanged choice may run for unequal blocks: the static choice
 * (made with the blocks' sizes, vchoice.h) and RELAY (its pieces cut by
 * them).  The selection predicts at the mean block, which ranks the others,
 * NATIVE among them, near RELAY where unequal blocks make them far slower
 * (their schedules ignore the sizes; BENCHMARKS.md, All-gatherv of unequal
 * blocks). */
static unsigned unequal_candidates(int static_alg) {
  unsigned m = 1u << PAT_ALG_RELAY;
  if (static_alg >= 0 && static_alg < PAT_ALG_COUNT) m |= 1u << static_alg;
  return m;
}

static int is_allowed(unsigned allowed, int alg) { return !allowed || (allowed >> alg & 1u); }

/* Measurements win (explore.h): the exchange mode's measured cost of an
 * algorithm in this regime replaces its prediction, and the static choice's
 * measured S (a call without an exchange) replaces the static choice's, in
 * ebar (ns, with the wait for the last arrival as the predictions have it).
 * Only algorithms the call may run and the selection could predict: a
 * measured cost does not lift the guard's distrust of predictions. */
static void measured_wins(const pat_engine_site *sp, int regime, unsigned allowed, const int *status, int static_alg,
                          double wait, int64_t *ebar) {
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double c;
    if (status[alg] == PAT_OK && is_allowed(allowed, alg) && pat_arms_cost(&sp->arms, regime, alg, &c))
      ebar[alg] = (int64_t)(1e9 * (wait + c));
  }
  /* S is the guard's, of every regime's static calls; a static choice the
   * exchange mode measured in this regime (before a promotion made it the
   * static choice) keeps that cost, its exchange included */
  if (static_alg >= 0 && static_alg < PAT_ALG_COUNT && sp->guard.s_n > 0 && ebar[static_alg] != INT64_MAX &&
      pat_arms_n(&sp->arms, regime, static_alg) == 0)
    ebar[static_alg] = (int64_t)(1e9 * (wait + sp->guard.s_cost));
}

/* Carried ratios win over the model (PAT_CARRY_SPAN): an algorithm the site has not measured in the
 * regime, measured at a size near this one, costs its ratio there times NATIVE's S here, in ebar (ns,
 * with the wait) -- so a new size's first choices start from what the last size measured.  Only where
 * the static choice is NATIVE and S is known: the ratio is to NATIVE's cost. */
static void carried_wins(const pat_engine *e, const pat_engine_site *sp, int regime, unsigned allowed,
                         const int *status, double wait, int64_t *ebar) {
  if (sp->static_alg != PAT_ALG_NATIVE || !pat_guard_knows_static(&sp->guard)) return;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double ratio;
    if (alg != PAT_ALG_NATIVE && status[alg] == PAT_OK && is_allowed(allowed, alg) &&
        pat_arms_n(&sp->arms, regime, alg) == 0 && carried(e, regime, alg, sp->bytes, &ratio))
      ebar[alg] = (int64_t)(1e9 * (wait + ratio * sp->guard.s_cost));
  }
}

/* The cost exploration's drop rule compares with besides the measured
 * candidates' (pat_explore_next's ref): the static choice's S once known. */
static double drop_ref(const pat_guard *g) { return pat_guard_knows_static(g) ? g->s_cost : 0; }

/* May a kept alternative spend a call on measuring another candidate: its
 * credit holds PAT_EXPLORE_CREDIT static calls' cost (explore.h)? */
static int kept_may_spend(const pat_guard *g) {
  return g->state == PAT_GUARD_KEPT && (!pat_guard_knows_static(g) || g->credit >= PAT_EXPLORE_CREDIT * g->s_cost);
}

/* May a kept alternative explore this call (explore.h): its interval since
 * the last exploration (longer near the bound, or while every candidate
 * still to explore measured far dearer once), and credit for a call that
 * may cost a static call's more. */
static int kept_explores(const pat_engine_site *sp, long long calls, int regime, unsigned allowed, int hierarchical) {
  const pat_guard *g = &sp->guard;
  if (!kept_may_spend(g)) return 0;
  const unsigned cand = pat_explore_candidates(sp->static_alg, sp->arms.model_pick[regime], allowed, hierarchical);
  return calls - sp->arms.last_explore >= pat_explore_every(&sp->arms, regime, cand, drop_ref(g));
}

/* Does a site that kept its plan-ahead algorithm from history need a
 * choice instead: its trial measures another candidate, a candidate of the
 * regime is due for exploration or under a recheck, or another algorithm measured (with
 * PAT_EXPLORE_K samples in the regime) PAT_GAIN_FRACTION cheaper, unless
 * the kept one is to be measured again first?  Reads
 * only the measurements, so the kept call stays free of the replay. */
static int keep_yields(const pat_engine_site *sp, long long calls, int regime, unsigned allowed, int hierarchical) {
  const int kept = sp->last.alg;
  if (sp->guard.state == PAT_GUARD_EXPLORING && sp->trial_alg >= 0) return sp->trial_alg != kept;
  const unsigned cand = pat_explore_candidates(sp->static_alg, -1, allowed, hierarchical) & ~(1u << kept);
  int going;
  const int again = pat_explore_recheck(&sp->arms, regime, cand, drop_ref(&sp->guard), calls, &going);
  if (going && kept_may_spend(&sp->guard)) return 1;
  if (kept_explores(sp, calls, regime, allowed, hierarchical)) {
    const double none[PAT_ALG_COUNT] = {0};
    if (again >= 0 || pat_explore_next(&sp->arms, regime, cand, none, drop_ref(&sp->guard)) >= 0) return 1;
  }
  double ck, c;
  if (pat_arms_n(&sp->arms, regime, kept) < PAT_EXPLORE_K || !pat_arms_cost(&sp->arms, regime, kept, &ck)) return 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (alg != kept && is_allowed(allowed, alg) && pat_arms_n(&sp->arms, regime, alg) >= PAT_EXPLORE_K &&
        pat_arms_cost(&sp->arms, regime, alg, &c) && c < (1.0 - PAT_GAIN_FRACTION) * ck &&
        !pat_arms_confirm_leader(&sp->arms, regime, kept, alg))
      return 1;
  return 0;
}

/* The candidates (of cand) worth a trial at the site's call `calls`: what each may still gain over
 * the calls the site may still run (as many as it has run) exceeds what its trial costs, and the
 * exploration budget holds what its call is expected to lose (engine.h, PAT_EXPLORE_BUDGET).  est
 * (s above the wait; measured where the site has samples, else the model's) takes a ratio carried
 * from another size for a candidate not measured here; one carried no faster than MPI's own is left
 * out. */
static unsigned worth_exploring(const pat_engine *e, const pat_engine_site *sp, long long calls, int regime,
                                unsigned cand, double *est) {
  const pat_guard *g = &sp->guard;
  if (!pat_guard_knows_static(g)) return cand;
  const double S = g->s_cost, X = pat_engine_exchange_cost(e);
  const double horizon = calls > 1 ? (double)calls : 1.0;
  /* what a call of the site can cost already: S, or the cheapest candidate measured PAT_EXPLORE_K times
   * in the regime where it is cheaper (a kept alternative); a trial gains or loses against that, not
   * against S: judged against S, a candidate the model puts at twice S (RING on 4 x 2 ranks round robin,
   * 290 ms where S was 148 and HRELAY ran at 86) was tried once the calls' horizon outgrew its cost */
  const double R = pat_arms_cheapest_known(&sp->arms, regime, ~0u, S);
  unsigned keep = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(cand >> alg & 1u)) continue;
    /* two of its three samples measured no faster than R less the gain that counts: the third cannot
     * make it a gain (on 8 hosts at 256K floats DIRECT's third trial, at 1.22x RELAY, was spent so).
     * Only while every sample is fresh: later R may be older than the network's phase, and measuring
     * in full is how a recheck tells a slow phase from a slow candidate */
    if (calls < PAT_RECHECK_AGE && pat_arms_median_at_least(&sp->arms, regime, alg, (1.0 - PAT_GAIN_FRACTION) * R))
      continue;
    double ratio, gain;
    if (pat_arms_n(&sp->arms, regime, alg) == 0 && carried(e, regime, alg, sp->bytes, &ratio)) {
      if (ratio >= 1.0 - PAT_GAIN_FRACTION) continue;
      est[alg] = ratio * S;
      gain = R - est[alg];
    } else {
      gain = R - est[alg];
      if (gain < PAT_EXPLORE_HOPE * R) gain = PAT_EXPLORE_HOPE * R;
    }
    double loss = est[alg] < 1e299 ? est[alg] - R : PAT_GUARD_CAP * S;
    if (loss < 0) loss = 0;
    double trial = (1 + PAT_GUARD_TRIAL) * loss;
    if (trial > loss + PAT_GUARD_CAP * S) trial = loss + PAT_GUARD_CAP * S; /* the guard ends a losing trial */
    trial += (1 + PAT_GUARD_TRIAL) * X;
    if (gain * horizon <= trial || !explore_affords(sp, calls, loss + X)) continue;
    keep |= 1u << alg;
  }
  return keep;
}

/* The cheapest algorithm the regime measured PAT_EXPLORE_K times, where it is PAT_GAIN_FRACTION
 * cheaper than the site's measured S and not the static choice (-1: none). */
static int measured_gainer(const pat_engine_site *sp, int regime, unsigned allowed) {
  int pick = -1;
  double cheapest = (1.0 - PAT_GAIN_FRACTION) * sp->guard.s_cost;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    double c;
    if (alg != sp->static_alg && is_allowed(allowed, alg) && pat_arms_n(&sp->arms, regime, alg) >= PAT_EXPLORE_K &&
        pat_arms_cost(&sp->arms, regime, alg, &c) && c < cheapest) {
      pick = alg;
      cheapest = c;
    }
  }
  return pick;
}

/* The candidate this call explores (explore.h), or -1: the trial's own
 * candidate until the guard's verdict; from the static choice (a probe the
 * guard lets leave) or a kept alternative (one call in PAT_EXPLORE_EVERY,
 * or PAT_EXPLORE_EVERY_NEAR near the bound),
 * the next one the regime needs measured.  model: the selection's
 * predictions; ebar: the same after measured_wins. */
static int exploration(const pat_engine *e, const pat_engine_site *sp, long long calls, int regime,
                       unsigned allowed, int hierarchical, int model_pick, const pat_select_out *model,
                       const int64_t *ebar, double wait, int *recheck) {
  const pat_guard *g = &sp->guard;
  *recheck = 0;
  if (sp->mode == PAT_MODE_EXCHANGE && g->state == PAT_GUARD_EXPLORING)
    return sp->trial_alg >= 0 && model->status[sp->trial_alg] == PAT_OK && is_allowed(allowed, sp->trial_alg)
               ? sp->trial_alg
               : -1;
  /* the model check: NATIVE once, from the static choice, on the probe after S was measured */
  if (sp->checking && sp->mode == PAT_MODE_STATIC && sp->guard.s_n > 0 && !sp->never &&
      model->status[PAT_ALG_NATIVE] == PAT_OK && is_allowed(allowed, PAT_ALG_NATIVE) &&
      pat_arms_n(&sp->arms, regime, PAT_ALG_NATIVE) == 0)
    return PAT_ALG_NATIVE;
  unsigned ok = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (model->status[alg] == PAT_OK) ok |= 1u << alg;
  const unsigned cand = pat_explore_candidates(sp->static_alg, model_pick, allowed, hierarchical) & ok;
  /* a recheck under way in a kept alternative measures its candidate on consecutive calls, so
   * that its samples and the kept one's see the same network */
  int going;
  const int again = pat_explore_recheck(&sp->arms, regime, cand, drop_ref(g), calls, &going);
  if (going && sp->mode == PAT_MODE_EXCHANGE && kept_may_spend(g)) return *recheck = PAT_RECHECK_GOING, again;
  if (sp->mode == PAT_MODE_EXCHANGE && !kept_explores(sp, calls, regime, allowed, hierarchical)) return -1;
  /* from the static choice, not where its calls cost less than two exchanges: every call of a
   * trial pays one, and a trial of DIRECT or RELAY connects every pair of ranks, which over TCP
   * slows every later call of the job (pat/exchange.h) */
  if (sp->mode == PAT_MODE_STATIC && sp->never) return -1;
  /* from the static choice, what the regime measured cheaper than S first: a trial that did not win
   * against a model file's S went back to measure S (the guard's rule), and the next trial must be
   * that candidate's again, judged against S as measured; exploring the others from the static
   * choice instead, each judged against S, lost one and backed off 16 calls where the measured
   * candidate ran at 0.64 S (a model made on a faster network, whose predictions of the others were
   * too cheap).  The others are explored from it once it is kept. */
  if (sp->mode == PAT_MODE_STATIC && g->s_n > 0) {
    const int gainer = measured_gainer(sp, regime, allowed ? allowed & ok : ok);
    if (gainer >= 0) return gainer;
  }
  double est[PAT_ALG_COUNT];
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) est[alg] = ebar[alg] == INT64_MAX ? 1e300 : 1e-9 * (double)ebar[alg] - wait;
  const int next = pat_explore_next(&sp->arms, regime, worth_exploring(e, sp, calls, regime, cand, est), est, drop_ref(g));
  /* rechecks from a kept alternative, or from a static choice that the exchange mode promoted (it
   * was measured against the candidates, and a slow phase may have decided it); from another
   * static choice every call of one would pay an exchange where that choice wins */
  if (next >= 0 || (sp->mode != PAT_MODE_EXCHANGE && sp->promotions == 0)) return next;
  *recheck = again >= 0 ? PAT_RECHECK_START : PAT_RECHECK_NONE;
  return again;
}

const double *pat_engine_ratios(const pat_engine *e, int site, double *out) {
  const pat_engine_site *sp = &e->site[site];
  if (!e->cfg.have_model || sp->model_dropped || !sp->model_timed) return sp->refine.ratio;
  return pat_refine_with_unrun(&sp->refine, out);
}

void pat_engine_choose(pat_engine *e, const pat_engine_call *call, pat_choice *out) {
  pat_engine_settle(e); /* the refinement every choice sees */
  int site = call->site, P = e->cfg.P;
  memset(out, 0, sizeof *out);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) out->ebar_ns[alg] = INT64_MAX;
  out->static_ns = INT64_MAX;
  out->history = call->records == PAT_RECORDS_HISTORY;
  out->static_alg = site >= 0      ? e->site[site].static_alg
                    : call->shape ? pat_engine_static_choice_v(e, call->shape)
                                  : pat_engine_static_alg(e, call->bytes);
  out->alg = call->setting >= 0 ? call->setting : out->static_alg; /* fixed: BSLB's root stays 0, as in the paper */
  if (call->setting >= 0 || !call->arrival || P < 2) return;
  inputs x;
  make_inputs(e, call->arrival, call->bytes, call->bg_start_ns, &x);
  /* The guardrail: the site leaves its static choice only when its guard
   * allows, and runs arrival-aware algorithms only while its predictions
   * are trusted.  A site's first call has no guard yet: without a model
   * file's measured times it runs the static choice (the site measures
   * before it bets); with them, the model's pick as before. */
  /* The regime: the exchanged arrivals', unless they are the history's
   * predictions or the site distrusts its predictions; then its last
   * calls', as measured (what history knows of the regime).  Explorations
   * and backoffs are per regime, and a sample is filed under the regime of
   * the arrivals it was measured at: at balanced arrivals the minibench's
   * barrier undoes the spread of the last call's exits, which history
   * carries into its predictions, so the choices would see the imbalanced
   * regime, explore there every other call, and file their samples under
   * the balanced one (a plan-ahead RELAY's history is not judged, so the
   * site would not even be distrusted). */
  int regime = site >= 0 ? site_regime(e, &e->site[site], call->arrival)
                         : pat_regime(P, call->arrival, block_tau(e, call->bytes));
  int held = 0;
  double scaled[PAT_ALG_COUNT];
  if (site >= 0) {
    const pat_guard *g = &e->site[site].guard;
    x.in.ratio = pat_engine_ratios(e, site, scaled);
    const int trusted = pat_guard_trusts_predictions(g, call->site_calls);
    if (!trusted) x.in.allowed = without_prediction_bets();
    if ((!trusted || call->records == PAT_RECORDS_HISTORY) && e->site[site].learned_call >= 0)
      regime = e->site[site].regime_seen;
    held = !pat_guard_may_leave(g, call->site_calls, regime);
  } else {
    double t;
    held = !pat_model_measured_time(&x.mp, out->static_alg, P, (double)call->bytes, &t);
  }
  out->regime = regime;
  if (call->shape) x.in.allowed = (x.in.allowed ? x.in.allowed : ~0u) & unequal_candidates(out->static_alg);
  /* planned ahead from history: the site's plan-ahead algorithm again (its
   * prediction only orders its sends); the guard judges it by what it costs,
   * so nothing below is needed, and no replay runs on every rank at once
   * while it computes. */
  const pat_engine_site *sp = site >= 0 ? &e->site[site] : NULL;
  const int keep = site >= 0 && pat_engine_plans_ahead(e, site) && call->records == PAT_RECORDS_HISTORY &&
                   !keep_yields(sp, call->site_calls, regime, x.in.allowed, e->hierarchical);
  if (keep && !held) {
    out->alg = e->site[site].last.alg;
    out->root = 0;
    out->kept = 1;
    return;
  }
  pat_select_out o;
  if (pat_select(&e->select, &x.in, &o) != PAT_OK || o.alg < 0) return; /* the static choice */
  memcpy(out->ebar_ns, o.ebar_ns, sizeof out->ebar_ns);
  out->wait = pat_select_wait(P, call->arrival);
  /* Exchanged on arrival (a site's first call), the plan comes after the
   * last arrival, when no algorithm can hide any of the imbalance: this
   * call runs what is best then, but what the engine learns from it (the
   * predictions commit judges) is what a plan made ahead would gain, as the
   * site's later calls make theirs.  Without this a site's first call never
   * found a gain, and auto waited for the first probe (PAT_PROBE_FIRST
   * calls) before it tried anything. */
  if (call->bg_start_ns != PAT_NO_TIME && call->records == PAT_RECORDS_ACTUAL) {
    pat_select_in ahead = x.in;
    ahead.bg_start_ns = PAT_NO_TIME;
    pat_select_out oa;
    if (pat_select(&e->select, &ahead, &oa) == PAT_OK && oa.alg >= 0)
      memcpy(out->ebar_ns, oa.ebar_ns, sizeof out->ebar_ns);
  }
  int64_t est[PAT_ALG_COUNT];
  memcpy(est, o.ebar_ns, sizeof est);
  if (sp) {
    measured_wins(sp, regime, x.in.allowed, o.status, out->static_alg, out->wait, est);
    measured_wins(sp, regime, x.in.allowed, o.status, out->static_alg, out->wait, out->ebar_ns);
    carried_wins(e, sp, regime, x.in.allowed, o.status, out->wait, est);
    carried_wins(e, sp, regime, x.in.allowed, o.status, out->wait, out->ebar_ns);
  }
  out->static_ns = static_prediction(e, &x.in, out);
  if (held) return; /* the predictions still tell the engine whether a trial could pay */
  /* The model's pick is a candidate where a model file fitted it (without
   * one it is the default parameters' guess), the first pick the regime saw
   * (explore.h). */
  int model_pick = -1;
  if (e->cfg.have_model && !(sp && sp->model_dropped))
    model_pick = sp ? pat_arms_model_pick(&e->site[site].arms, regime, o.alg) : o.alg;
  int recheck = 0;
  const int target = sp ? exploration(e, sp, call->site_calls, regime, x.in.allowed, e->hierarchical, model_pick, &o, est,
                                      out->wait, &recheck)
                        : -1;
  if (target >= 0) {
    out->alg = target;
    out->root = o.root_of[target];
    out->explored = 1;
    out->recheck = recheck;
    return;
  }
  const unsigned eligible = pat_explore_candidates(-1, model_pick, x.in.allowed, e->hierarchical);
  int best = -1;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (o.status[alg] == PAT_OK && is_allowed(x.in.allowed, alg) &&
        (!sp || (eligible >> alg & 1u) || pat_arms_n(&sp->arms, regime, alg) > 0 || alg == out->static_alg) &&
        (best < 0 || est[alg] < est[best]))
      best = alg;
  if (best < 0) return; /* the static choice */
  /* Hysteresis: the medians of two candidates 10% apart cross now and then
   * through the network's noise, and the one left has no new samples to
   * show it. */
  const int leader = sp ? sp->leader[regime] : -1;
  if (leader >= 0 && leader != best && o.status[leader] == PAT_OK && is_allowed(x.in.allowed, leader) &&
      pat_arms_n(&sp->arms, regime, leader) >= PAT_EXPLORE_K && est[leader] != INT64_MAX) {
    if (1e-9 * (double)(est[leader] - est[best]) <= PAT_GAIN_FRACTION * (1e-9 * (double)est[leader] - out->wait)) {
      best = leader;
    } else if (pat_arms_n(&sp->arms, regime, best) >= PAT_EXPLORE_K &&
               !pat_arms_fresh(&sp->arms, regime, best, call->site_calls) && sp->mode == PAT_MODE_EXCHANGE &&
               kept_may_spend(&sp->guard)) {
      /* The leader's recent calls against the other's old ones: a slow
       * phase of the network slows every algorithm, and the leader's
       * window is the one that saw it.  The other is measured again first
       * (BENCHMARKS.md, auto as a user runs it). */
      out->alg = best;
      out->root = o.root_of[best];
      out->explored = 1;
      out->recheck = PAT_RECHECK_START_FULL;
      return;
    } else if (pat_arms_confirm_leader(&sp->arms, regime, leader, best)) {
      best = leader; /* measured again first: the two medians of the same minutes (explore.h, Rechecks) */
    }
  }
  if (best != out->static_alg && !pat_engine_gain_pays(e, est[out->static_alg], est[best], out->wait))
    return; /* too little to gain: the static choice (its root: 0) */
  /* A site runs only the candidates, what it measured in the regime and its
   * static choice: with every algorithm eligible, the measured cost of one
   * replaced its prediction, and the next the model was as wrong about came
   * next, each run once cold.  What else is worth measuring is
   * exploration's to say. */
  out->alg = best;
  out->root = best == o.alg ? o.root : o.root_of[best];
}

int pat_engine_predict(pat_engine *e, int alg, const int64_t *arrival, int64_t bytes, double *ebar) {
  inputs x;
  make_inputs(e, arrival, bytes, PAT_NO_TIME, &x);
  x.in.allowed = 1u << alg;
  pat_select_out o;
  if (pat_select(&e->select, &x.in, &o) != PAT_OK || o.status[alg] != PAT_OK) return -1;
  *ebar = 1e-9 * (double)o.ebar_ns[alg];
  return 0;
}

void pat_engine_describe_site(const pat_engine *e, int site, char *out, int size) {
  if (site < 0 || site >= PAT_ENGINE_SITES || size <= 0) {
    if (size > 0) out[0] = 0;
    return;
  }
  const pat_engine_site *sp = &e->site[site];
  char guard[160];
  pat_guard_describe(&sp->guard, guard, sizeof guard);
  /* the exchange's cost as the rules take it, and as modelled (pat_engine_exchange_cost) */
  int n = snprintf(out, (size_t)size,
                   "mode=%s static=%s credit=%.2fms exchange=%.2fms(model %.2fms) trial=%s guard=[%s]",
                   sp->mode == PAT_MODE_EXCHANGE ? "exchange" : "static", pat_algorithms[sp->static_alg].name,
                   1e3 * sp->guard.credit, 1e3 * pat_engine_exchange_cost(e), 1e3 * pat_engine_exchange_modelled(e),
                   sp->trial_alg >= 0 ? pat_algorithms[sp->trial_alg].name : "-", guard);
  static const char *regime[PAT_REGIMES] = {"balanced", "imbalanced"};
  for (int r = 0; r < PAT_REGIMES && n < size; r++)
    for (int alg = 0; alg < PAT_ALG_COUNT && n < size; alg++) {
      double c;
      if (!pat_arms_cost(&sp->arms, r, alg, &c)) continue;
      double lb;
      n += snprintf(out + n, (size_t)(size - n), " %s:%s=%dx%.1fms", regime[r], pat_algorithms[alg].name,
                    pat_arms_n(&sp->arms, r, alg), 1e3 * c);
      if (n < size && pat_arms_over_bound(&sp->arms, r, alg, &lb))
        n += snprintf(out + n, (size_t)(size - n), "(%.2fx e_lb)", lb);
    }
  for (int r = 0; r < PAT_REGIMES && n < size; r++)
    if (pat_arms_near_bound(&sp->arms, r, ~0u)) n += snprintf(out + n, (size_t)(size - n), " %s:near-bound", regime[r]);
  if (n < size && (sp->explore_spent > 0 || sp->explore_cuts))
    n += snprintf(out + n, (size_t)(size - n), " explore=%.2fms/%d-cut", 1e3 * sp->explore_spent, sp->explore_cuts);
  if (n < size && sp->checking) n += snprintf(out + n, (size_t)(size - n), " model=checking");
  if (n < size && sp->model_dropped)
    n += snprintf(out + n, (size_t)(size - n), " model=dropped@%lld", sp->model_dropped_at);
}
