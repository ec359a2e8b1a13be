/* Which algorithm a call runs (see decide.h). */
#include "runtime/decide.h"

#include <math.h>
#include <string.h>

#include "model/measured.h"
#include "model/select.h"
#include "runtime/comm.h"
#include "runtime/netparams.h"
#include "runtime/policy.h"

static int uses_intra(const pat_model_params *mp) {
  if (mp->dflt.has_intra) return 1;
  for (int a = 0; a < PAT_ALG_COUNT; a++)
    if (mp->alg[a].set && mp->alg[a].has_intra) return 1;
  return 0;
}

/* The selection's inputs for this communicator and call. */
typedef struct inputs {
  pat_model_params mp;
  double flat[PAT_ALG_COUNT];
  pat_select_in in;
} inputs;

static void make_inputs(const pat_comm_state *cs, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns,
                        inputs *x) {
  x->mp = *pat_netparams();
  x->mp.node = uses_intra(&x->mp) ? cs->node : NULL;
  pat_model_measured_levels(&x->mp, cs->P, (double)bytes, x->flat);
  memset(&x->in, 0, sizeof x->in);
  x->in.P = cs->P;
  x->in.arrival_ns = arrival;
  x->in.bg_start_ns = bg_start_ns;
  x->in.block_bytes = (double)bytes;
  x->in.mp = &x->mp;
  x->in.allowed = 0;         /* every algorithm */
  x->in.lnbc_root = 0;       /* LNBC's schedules are cached for root 0 */
  x->in.bslb_roots = 1;      /* BSLB rooted at the earliest predicted arrival */
  x->in.flat_s = x->flat;
  x->in.native_from_classic = 1;
}

/* The algorithms that need no arrival prediction. */
static unsigned classic_algorithms(void) {
  unsigned m = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (!(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL)) m |= 1u << alg;
  return m;
}

/* Instead of the best, an algorithm not yet measured at the site and
 * predicted within PAT_EXPLORE_WITHIN of it, now and then (bounded per
 * site); -1 if none. */
static int exploration(const pat_comm_state *cs, int site, const pat_select_out *o, double wait_ns) {
  if (site < 0 || o->alg < 0) return -1;
  const pat_site_policy *sp = &cs->policy.site[site];
  const pat_refine *rf = &sp->refine;
  if (sp->mode != PAT_MODE_EXCHANGE || rf->samples[o->alg] == 0) return -1; /* running the best measures it */
  if (rf->explorations >= PAT_EXPLORE_TOTAL) return -1;
  if (rf->explorations > 0 && cs->sites.site[site].calls - rf->last_explore < PAT_EXPLORE_SPACING) return -1;
  double limit = PAT_EXPLORE_WITHIN * ((double)o->ebar_ns[o->alg] - wait_ns);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (o->status[alg] == PAT_OK && rf->samples[alg] == 0 && rf->explored[alg] < PAT_EXPLORE_MAX &&
        (double)o->ebar_ns[alg] - wait_ns <= limit)
      return alg;
  return -1;
}

void pat_choose(pat_comm_state *cs, int site, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns,
                int setting, pat_choice *out) {
  pat_policy_settle(cs); /* the refinement every choice sees */
  memset(out, 0, sizeof *out);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) out->ebar_ns[alg] = INT64_MAX;
  out->static_alg = pat_policy_static_alg(cs, bytes);
  out->alg = setting >= 0 ? setting : out->static_alg; /* fixed: BSLB's root stays 0, as in the paper */
  if (setting >= 0 || !arrival || cs->P < 2) return;
  inputs x;
  make_inputs(cs, arrival, bytes, bg_start_ns, &x);
  /* The guardrail (guardrail.h): the site leaves its static choice only when
   * its guard allows, and runs arrival-aware algorithms only while its
   * predictions are trusted.  A site's first call has no guard yet: without
   * a model file's measured times it runs the static choice (the site
   * measures before it bets); with them, the model's pick as before. */
  int held = 0;
  if (site >= 0) {
    const pat_guard *g = &cs->policy.site[site].guard;
    x.in.ratio = cs->policy.site[site].refine.ratio;
    held = !pat_guard_may_leave(g, cs->sites.site[site].calls);
    if (!pat_guard_trusts_predictions(g, cs->sites.site[site].calls)) x.in.allowed = classic_algorithms();
  } else {
    double t;
    held = !pat_model_measured_time(&x.mp, out->static_alg, cs->P, (double)bytes, &t);
  }
  pat_select_out o;
  if (pat_select(&cs->planner.select, &x.in, &o) != PAT_OK || o.alg < 0) return; /* the static choice */
  memcpy(out->ebar_ns, o.ebar_ns, sizeof out->ebar_ns);
  out->wait = pat_select_wait(cs->P, arrival);
  /* Exchanged on arrival (a site's first call), the plan comes after the
   * last arrival, when no algorithm can hide any of the imbalance: this
   * call runs what is best then, but what the policy learns from it (the
   * predictions pat_policy_commit judges) is what a plan made ahead would
   * gain, as the site's later calls make theirs.  Without this a site's
   * first call never found a gain, and auto waited for the first probe
   * (PAT_PROBE_FIRST calls) before it tried anything. */
  if (bg_start_ns != PAT_NO_TIME && pat_exchange_all_kind(&cs->x, PAT_XREC_ACTUAL)) {
    pat_select_in ahead = x.in;
    ahead.bg_start_ns = PAT_NO_TIME;
    pat_select_out oa;
    if (pat_select(&cs->planner.select, &ahead, &oa) == PAT_OK && oa.alg >= 0)
      memcpy(out->ebar_ns, oa.ebar_ns, sizeof out->ebar_ns);
  }
  if (held) return; /* the predictions still tell the policy whether a trial could pay */
  /* planned ahead from history: the site's plan-ahead algorithm again (its
   * prediction only orders its sends); the guard judges it by what it costs */
  if (site >= 0 && pat_policy_plans_ahead(cs, site) && pat_exchange_all_kind(&cs->x, PAT_XREC_HISTORY)) {
    out->alg = cs->policy.site[site].last.alg;
    out->root = 0;
    out->kept = 1;
    return;
  }
  if (o.alg != out->static_alg && !pat_policy_gain_pays(cs, o.ebar_ns[out->static_alg], o.ebar_ns[o.alg], out->wait))
    return; /* too little to gain: the static choice (its root: 0) */
  out->alg = o.alg;
  out->root = o.root;
  int other = exploration(cs, site, &o, 1e9 * out->wait);
  if (other >= 0) {
    out->alg = other;
    out->root = o.root_of[other];
    out->explored = 1;
  }
}

int pat_predict_alg(pat_comm_state *cs, int alg, const int64_t *arrival, int64_t bytes, double *ebar) {
  inputs x;
  make_inputs(cs, arrival, bytes, PAT_NO_TIME, &x);
  x.in.allowed = 1u << alg;
  pat_select_out o;
  if (pat_select(&cs->planner.select, &x.in, &o) != PAT_OK || o.status[alg] != PAT_OK) return -1;
  *ebar = 1e-9 * (double)o.ebar_ns[alg];
  return 0;
}
