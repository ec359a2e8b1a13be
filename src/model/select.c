/* Per-call algorithm selection (see select.h). */
#include "model/select.h"

#include "model/model_nodes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void forget_flat(pat_select_cache *c, double block_bytes) {
  c->flat_bytes = block_bytes;
  for (int i = 0; i < PAT_ALG_COUNT; i++) c->flat_ebar[i] = c->flat_link_ebar[i] = NAN;
}

void pat_select_cache_init(pat_select_cache *c) {
  memset(c, 0, sizeof *c);
  forget_flat(c, -1);
}

void pat_select_cache_free(pat_select_cache *c) {
  for (int i = 0; i < PAT_ALG_COUNT; i++) pat_prog_free(c->prog[i]);
  free(c->node_ids);
  pat_nodes_free(&c->nodes);
  pat_replay_space_free(&c->space);
  memset(c, 0, sizeof *c);
  forget_flat(c, -1);
}

static void cache_reset(pat_select_cache *c, int P, int lnbc_root, int general) {
  pat_select_cache_free(c);
  c->P = P;
  c->lnbc_root = lnbc_root;
  c->general = general;
}

/* The program of a classic algorithm, compiled on first use; NULL if none.
 * root matters only for LNBC. */
static const pat_prog *cache_get(pat_select_cache *c, int alg, int P, int root, int general) {
  if (c->P != P)
    cache_reset(c, P, 0, general);
  else if (general && !c->general)
    cache_reset(c, P, c->lnbc_root, 1);
  if (alg == PAT_ALG_LNBC && root != c->lnbc_root) {
    pat_prog_free(c->prog[alg]);
    c->prog[alg] = NULL;
    c->state[alg] = 0;
    c->lnbc_root = root;
  }
  if (c->state[alg] == 0) {
    int rc = pat_prog_compile(&c->prog[alg], alg, P, alg == PAT_ALG_LNBC ? c->lnbc_root : 0, c->general);
    c->state[alg] = rc ? -rc : 1;
  }
  return c->state[alg] == 1 ? c->prog[alg] : NULL;
}

/* Ops of classic algorithm alg's schedule on P ranks if its program sorts
 * each step's transfers on every call, else 0.  That is when a rank sends
 * several messages and receives several in one step (so some transfer
 * queues on two busy ports): judged, and the ops estimated as P times its
 * own, from rank 0's schedule -- classic schedules treat ranks alike.
 * Returns PAT_OK, a builder's error or PAT_ENOMEM. */
static int count_sorted_ops(int alg, int P, size_t *ops) {
  pat_build_args args = {.P = P, .self = 0, .root = 0};
  pat_sched s;
  int rc = pat_build(alg, &s, &args);
  if (rc) return rc;
  size_t n, i = 0;
  const pat_op *o = pat_sched_rank_ops(&s, 0, &n);
  *ops = 0;
  while (i < n && !*ops) {
    size_t j = i;
    int sends = 0, recvs = 0;
    for (; j < n && o[j].step == o[i].step; j++) {
      if (o[j].kind == PAT_OP_SEND || o[j].kind == PAT_OP_SIGNAL_SEND)
        sends++;
      else
        recvs++;
    }
    if (sends > 1 && recvs > 1) *ops = n * (size_t)P;
    i = j;
  }
  pat_sched_free(&s);
  return PAT_OK;
}

/* count_sorted_ops, cached per P (c may be NULL). */
static int sorted_ops(pat_select_cache *c, int alg, int P, size_t *ops) {
  if (!c) return count_sorted_ops(alg, P, ops);
  if (c->P != P) cache_reset(c, P, 0, c->general);
  if (!c->sorted_known[alg]) {
    int rc = count_sorted_ops(alg, P, &c->sorted_ops[alg]);
    if (rc) return rc;
    c->sorted_known[alg] = 1;
  }
  *ops = c->sorted_ops[alg];
  return PAT_OK;
}

int pat_select_prepare(pat_select_cache *c, int P, unsigned allowed, int lnbc_root, int general) {
  if (P < 1) return PAT_EINVAL;
  if (!allowed) allowed = ~0u;
  if (c->P != P || c->general != general || c->lnbc_root != lnbc_root) cache_reset(c, P, lnbc_root, general);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if ((allowed & (1u << alg)) && (pat_algorithms[alg].flags & PAT_ALGF_CLASSIC)) {
      size_t ops;
      int rc = sorted_ops(c, alg, P, &ops);
      if (rc == PAT_ENOMEM) return rc;
      if (rc || ops > PAT_SELECT_ARRIVAL_MAX_OPS) continue; /* pat_select would not predict it */
      cache_get(c, alg, P, lnbc_root, general);
      if (c->state[alg] == -PAT_ENOMEM) return PAT_ENOMEM;
    }
  return PAT_OK;
}

/* The node map of mp's node ids: mp's own if the caller made it, else the cache's, made once for
 * these ids (compared on every call: O(P), against O(P log P) and five allocations per build and
 * replay), else NULL (no cache: each build and replay makes its own). */
static const pat_nodes *node_map(pat_select_cache *c, int P, const pat_model_params *mp) {
  if (!mp->node) return NULL;
  if (mp->nodes && mp->nodes->P == P) return mp->nodes;
  if (!c) return NULL;
  if (c->node_ids && c->nodes.P == P && memcmp(c->node_ids, mp->node, (size_t)P * sizeof *mp->node) == 0)
    return &c->nodes;
  free(c->node_ids);
  pat_nodes_free(&c->nodes);
  c->node_ids = malloc((size_t)P * sizeof *c->node_ids);
  if (!c->node_ids || pat_nodes_make(P, mp->node, &c->nodes) != PAT_OK) {
    free(c->node_ids);
    c->node_ids = NULL;
    return NULL;
  }
  memcpy(c->node_ids, mp->node, (size_t)P * sizeof *mp->node);
  return &c->nodes;
}

/* RING on nodes of consecutive ranks, shared links or not: in every step each node sends one message
 * to the next node and takes one in, so no node link carries two transfers at once and its program
 * gives the replay's result (unit.test_node_model checks it). */
static int ring_alone(int alg, const pat_model_params *m) {
  return alg == PAT_ALG_RING && m->nodes && m->nodes->regular;
}

/* Every transfer at the link's rate: the default inter-node pair becomes
 * mp's link, and no algorithm keeps its own parameters (the intra-node pair
 * and the eager threshold stay). */
static void at_link_rate(pat_model_params *m) {
  m->dflt.set = 1;
  m->dflt.inter = m->link;
  for (int i = 0; i < PAT_ALG_COUNT; i++) m->alg[i].set = 0;
}

/* pat_predict, and with link set the replay at the link's rate; the
 * schedule is built from mp's own parameters either way (it is the one the
 * executor would run). */
static int predict(pat_select_cache *c, int alg, int root, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                   double block_bytes, const pat_model_params *mp, int link, int balanced_build, int aggregate,
                   pat_model_result *out) {
  if (P < 1 || !arrival_ns || !mp || !out || alg < 0 || alg >= PAT_ALG_COUNT || !pat_algorithms[alg].build ||
      !(block_bytes >= 0))
    return PAT_EINVAL;
  if (root < 0 || root >= P) return PAT_EINVAL;
  if (link && !mp->link_set) return PAT_EINVAL;
  int64_t amin = arrival_ns[0];
  for (int i = 1; i < P; i++)
    if (arrival_ns[i] < amin) amin = arrival_ns[i];
  double *a = malloc((size_t)P * sizeof *a);
  if (!a) return PAT_ENOMEM;
  for (int i = 0; i < P; i++) a[i] = (double)(arrival_ns[i] - amin) * 1e-9;
  pat_model_params m = *mp;
  m.bg_start = bg_start_ns == PAT_NO_TIME         ? -INFINITY
               : bg_start_ns == PAT_NO_BACKGROUND ? INFINITY
                                                  : (double)(bg_start_ns - amin) * 1e-9;
  m.trace = NULL;
  m.nodes = node_map(c, P, mp);
  if (link) at_link_rate(&m);
  int rc = PAT_MODEL_FALLBACK;
  const int classic = (pat_algorithms[alg].flags & PAT_ALGF_CLASSIC) != 0;
  if (aggregate && pat_model_nodes_fits(alg, &m)) {
    pat_build_args args =
        pat_call_build_args(mp, alg, P, mp->node, PAT_ALL_RANKS, balanced_build ? NULL : arrival_ns, block_bytes, root);
    rc = pat_model_nodes(alg, &args, a, &m, block_bytes, out);
  } else if (classic && m.engine != PAT_ENGINE_EVENT && (!(m.node && m.shared_links) || ring_alone(alg, &m))) {
    int general = m.node && pat_model_link(&m, alg)->has_intra;
    pat_select_cache local;
    pat_select_cache *cc = c;
    if (!cc) {
      pat_select_cache_init(&local);
      cc = &local;
    }
    pat_model_params one_cost = m;
    if (ring_alone(alg, &m) && (size_t)P * (size_t)(P - 1) > PAT_SELECT_ARRIVAL_MAX_OPS) {
      /* every transfer at the link's cost: the O(P) closed form, not the general form's P (P - 1)
       * transfers.  Above the replay, not far: a rank at a node's edge sends or takes in across it
       * in every step, and every rank waits for its neighbours (unit.test_node_model checks how far) */
      one_cost.node = NULL;
      one_cost.nodes = NULL;
      one_cost.shared_links = 0;
      general = 0;
    }
    const pat_prog *g = cache_get(cc, alg, P, root, general);
    if (g)
      rc = pat_prog_eval(g, a, &one_cost, block_bytes, out);
    else if (cc->state[alg] != -PAT_ENOMEM)
      rc = -cc->state[alg]; /* the builder's error */
    else
      rc = PAT_ENOMEM;
    if (cc == &local) pat_select_cache_free(&local);
  }
  if (rc == PAT_MODEL_FALLBACK) {
    pat_sched s;
    pat_build_args args =
        pat_call_build_args(mp, alg, P, mp->node, PAT_ALL_RANKS, balanced_build ? NULL : arrival_ns, block_bytes, root);
    args.nodes = m.nodes;
    rc = pat_build(alg, &s, &args);
    if (rc == PAT_OK) {
      rc = pat_model_replay_in(c ? &c->space : NULL, &s, a, &m, block_bytes, out);
      pat_sched_free(&s);
    }
  }
  free(a);
  return rc;
}

int pat_predict(pat_select_cache *c, int alg, int root, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                double block_bytes, const pat_model_params *mp, pat_model_result *out) {
  return predict(c, alg, root, P, arrival_ns, bg_start_ns, block_bytes, mp, 0, 0, 0, out);
}

int pat_predict_built_balanced(pat_select_cache *c, int alg, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                               double block_bytes, const pat_model_params *mp, pat_model_result *out) {
  return predict(c, alg, 0, P, arrival_ns, bg_start_ns, block_bytes, mp, 0, 1, 0, out);
}

int pat_predict_nodes(pat_select_cache *c, int alg, int root, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                      double block_bytes, const pat_model_params *mp, int node_model, pat_model_result *out) {
  return predict(c, alg, root, P, arrival_ns, bg_start_ns, block_bytes, mp, 0, 0, node_model, out);
}

/* The k earliest arrivals (ties: lower rank first) into roots[]; returns how many. */
static int earliest(int P, const int64_t *a, int k, int *roots) {
  if (k < 1) k = 1;
  if (k > P) k = P;
  int n = 0;
  for (int i = 0; i < P; i++) {
    /* insert i if it beats the current last (stable: equal arrivals keep rank order) */
    int pos = n;
    while (pos > 0 && a[roots[pos - 1]] > a[i]) pos--;
    if (pos >= k) continue;
    int last = n < k ? n : k - 1;
    for (int j = last; j > pos; j--) roots[j] = roots[j - 1];
    roots[pos] = i;
    if (n < k) n++;
  }
  return n;
}

/* The node ranks of mp's map where they share links (1 without): a replay of a schedule on such a map
 * pays for up to this many flows per node link at every event, so an op there costs many times one
 * where each rank has its own link. */
static size_t shared_flows(pat_select_cache *c, const pat_select_in *in) {
  if (!in->mp->node || !in->mp->shared_links) return 1;
  const pat_nodes *n = node_map(c, in->P, in->mp);
  if (!n) return 1;
  int k = 1;
  for (int h = 0; h < n->H; h++) k = pat_nodes_size(n, h) > k ? pat_nodes_size(n, h) : k;
  return (size_t)k;
}

/* What one op of alg's replay weighs against the budget (one where no link is shared).  Every
 * transfer between nodes of a flat schedule crosses a shared link: k (the node's ranks); the node
 * algorithms' fewer: k / 4, at least 1, as their replay's cost per op measures; where that puts them
 * over the budget, the node model stands in for their replay. */
static size_t op_weight(pat_select_cache *c, const pat_select_in *in, int alg) {
  const size_t k = shared_flows(c, in);
  if (!(pat_algorithms[alg].flags & PAT_ALGF_NODES)) return k;
  return k / 4 > 1 ? k / 4 : 1;
}

/* The ops of a node algorithm's schedule on a regular map, from its structure (a one-rank build walks
 * every block and node, too slow to run per call at large P): HRELAY delivers each block to each other rank in one
 * message per piece, HRING each node's run in one message per rank and node, plus the gathers. */
static size_t nodes_ops(int alg, const pat_nodes *n, const pat_select_in *in) {
  const size_t P = (size_t)n->P, H = (size_t)n->H;
  if (alg == PAT_ALG_HRING) return 2 * (P * H + 2 * P);
  const int near = in->balanced_build || in->P < 2; /* a rough kp suffices: it only sizes the budget */
  const size_t kp = (size_t)pat_hrelay_pieces(n, (int64_t)in->block_bytes, near);
  return 2 * P * (P - 1) * kp;
}

/* The per-call budget of the replay (ops, each weighed by shared_flows). */
static size_t budget_of(const pat_select_in *in) {
  return in->arrival_max_ops ? in->arrival_max_ops : PAT_SELECT_ARRIVAL_MAX_OPS;
}

/* Is alg predicted by the node model (model_nodes.h)?  Where it fits and its schedule's ops, weighed
 * (op_weight), are over the per-call budget; within it, the replay (the model the node model is
 * checked against, which at small P departs from it under spread arrivals). */
static int node_model_fits(pat_select_cache *c, const pat_select_in *in, int alg) {
  if (!(pat_algorithms[alg].flags & PAT_ALGF_NODES) || !in->mp->node || !in->mp->shared_links) return 0;
  pat_model_params m = *in->mp;
  m.nodes = node_map(c, in->P, in->mp);
  return pat_model_nodes_fits(alg, &m);
}

static int aggregated(pat_select_cache *c, const pat_select_in *in, int alg) {
  if (!node_model_fits(c, in, alg)) return 0;
  pat_model_params m = *in->mp;
  m.nodes = node_map(c, in->P, in->mp);
  const size_t budget = budget_of(in);
  if (budget == SIZE_MAX) return 0;
  const size_t ops = nodes_ops(alg, m.nodes, in);
  return ops > budget / op_weight(c, in, alg);
}

/* Ops of the whole schedule of an arrival-aware algorithm, estimated from
 * one one-rank build: P times the ops of the rank half-way round from the
 * root (a typical rank; a root's ops say little about the others').  The
 * inputs are the exchanged ones, so every rank estimates alike.  0 if the
 * builder fails. */
static size_t estimate_ops(pat_select_cache *c, int alg, int root, const pat_select_in *in, int *rc) {
  const int P = in->P;
  pat_build_args args =
      pat_call_build_args(in->mp, alg, P, in->mp->node, (root + P / 2) % P, in->arrival_ns, in->block_bytes, root);
  args.nodes = node_map(c, P, in->mp);
  pat_sched s;
  *rc = pat_build(alg, &s, &args);
  if (*rc) return 0;
  size_t est = s.nops * (size_t)P;
  pat_sched_free(&s);
  return est;
}

/* out before any prediction: the pattern's omega and tau, nothing chosen,
 * every algorithm skipped. */
static void select_start(const pat_select_in *in, pat_select_out *out) {
  int64_t amin = in->arrival_ns[0], amax = amin;
  for (int i = 1; i < in->P; i++) {
    if (in->arrival_ns[i] < amin) amin = in->arrival_ns[i];
    if (in->arrival_ns[i] > amax) amax = in->arrival_ns[i];
  }
  out->alg = PAT_ALG_UNKNOWN;
  out->root = 0;
  out->omega_ns = amax - amin;
  out->tau_ns = pat_quantise_ns(pat_model_cost(in->mp->dflt.inter, in->block_bytes, 1.0));
  out->balanced = out->omega_ns < out->tau_ns;
  for (int i = 0; i < PAT_ALG_COUNT; i++) {
    out->ebar_ns[i] = INT64_MAX;
    out->status[i] = PAT_SELECT_SKIPPED;
    out->root_of[i] = 0;
  }
}

/* Does pass `pass` consider alg?  Only allowed algorithms with a schedule,
 * and those built for nodes only where ranks share nodes;
 * pass 0 leaves out the arrival-aware ones on a balanced pattern, but for
 * plan-ahead ones (RELAY: the prediction only orders its sends, and its
 * balanced schedule competes with the classic ones), pass 1 takes only
 * them. */
static int considered(int alg, int pass, unsigned allowed, int balanced, int hierarchical) {
  const unsigned fl = pat_algorithms[alg].flags;
  if (!(allowed & (1u << alg))) return 0;
  if ((fl & PAT_ALGF_NODES) && !hierarchical) return 0;
  if (fl & PAT_ALGF_NATIVE) return pass == 0; /* predicted only when it has a level (native_ebar) */
  if (!pat_algorithms[alg].build) return 0;
  const int arrival = (fl & PAT_ALGF_ARRIVAL) != 0;
  if (pass == 0 && arrival && balanced && !(fl & PAT_ALGF_PLAN_AHEAD)) return 0;
  if (pass == 1 && !arrival) return 0;
  return 1;
}

/* The roots to try for alg into roots[0..63]; returns how many.  0 for an
 * unrooted algorithm, LNBC's given root, the bslb_roots earliest arrivals for
 * a rooted arrival-aware one. */
static int candidate_roots(int alg, const pat_select_in *in, int *roots) {
  const unsigned fl = pat_algorithms[alg].flags;
  roots[0] = 0;
  if (alg == PAT_ALG_LNBC) roots[0] = in->lnbc_root >= 0 && in->lnbc_root < in->P ? in->lnbc_root : 0;
  if ((fl & PAT_ALGF_ROOTED) && (fl & PAT_ALGF_ARRIVAL)) {
    int nroots = in->bslb_roots > 1 ? in->bslb_roots : 1;
    if (nroots > 64) nroots = 64;
    return earliest(in->P, in->arrival_ns, nroots, roots);
  }
  return 1;
}

/* The per-call budget of classic alg: *skip = 1, with out->status[alg]
 * saying why, if its program sorts more ops per call than the budget (or
 * its builder fails).  Returns PAT_OK or PAT_ENOMEM. */
static int check_classic_budget(pat_select_cache *c, int alg, const pat_select_in *in, pat_select_out *out,
                                int *skip) {
  const size_t budget = in->arrival_max_ops ? in->arrival_max_ops : PAT_SELECT_ARRIVAL_MAX_OPS;
  size_t ops = 0;
  *skip = 0;
  if (budget == SIZE_MAX) return PAT_OK;
  int rc = sorted_ops(c, alg, in->P, &ops);
  if (rc == PAT_ENOMEM) return rc;
  if (rc || ops > budget) {
    out->status[alg] = rc ? rc : PAT_SELECT_OVER_BUDGET;
    *skip = 1;
  }
  return PAT_OK;
}

/* The per-call budget of arrival-aware alg (root: its first candidate
 * root): *skip = 1, with out->status[alg] saying why, if its schedule is
 * estimated over the budget or its builder fails.  Returns PAT_OK or
 * PAT_ENOMEM. */
static int check_budget(pat_select_cache *c, int alg, int root, const pat_select_in *in, pat_select_out *out,
                        int *skip) {
  const int P = in->P;
  const size_t budget = in->arrival_max_ops ? in->arrival_max_ops : PAT_SELECT_ARRIVAL_MAX_OPS;
  *skip = 0;
  if (budget == SIZE_MAX) return PAT_OK;
  /* Without a root every rank receives P-1 blocks, at most two per op,
   * and every receive has its send: at least P(P-1) ops in all (not so
   * for the node algorithms, whose messages carry a node's run).  Over
   * budget on that alone, skip the one-rank build (milliseconds at
   * P = 1024, on every call). */
  if (node_model_fits(c, in, alg)) return PAT_OK; /* replayed within the budget (nodes_ops), else the node model */
  const size_t flows = op_weight(c, in, alg);
  if (!(pat_algorithms[alg].flags & (PAT_ALGF_ROOTED | PAT_ALGF_NODES)) && (size_t)P * (size_t)(P - 1) > budget / flows) {
    out->status[alg] = PAT_SELECT_OVER_BUDGET;
    *skip = 1;
    return PAT_OK;
  }
  int rc;
  size_t est = estimate_ops(c, alg, root, in, &rc);
  if (rc == PAT_ENOMEM) return rc;
  if (rc || est > budget / flows) {
    out->status[alg] = rc ? rc : PAT_SELECT_OVER_BUDGET;
    *skip = 1;
  }
  return PAT_OK;
}

/* Predict alg from each of its n candidate roots; out keeps the best root's
 * quantised ē (ties: the earlier root), or the first error.  Returns PAT_OK
 * or PAT_ENOMEM. */
double pat_select_wait(int P, const int64_t *arrival_ns) {
  int64_t amax = arrival_ns[0];
  for (int i = 1; i < P; i++)
    if (arrival_ns[i] > amax) amax = arrival_ns[i];
  double wait = 0;
  for (int i = 0; i < P; i++) wait += (double)(amax - arrival_ns[i]) * 1e-9;
  return wait / P;
}

static double refined(const pat_select_in *in, int alg, double ebar) {
  if (!in->ratio || !(in->ratio[alg] > 0)) return ebar;
  double wait = pat_select_wait(in->P, in->arrival_ns);
  return ebar > wait ? wait + in->ratio[alg] * (ebar - wait) : ebar;
}

static int has_level(const pat_select_in *in, int alg) { return in->flat_s && isfinite(in->flat_s[alg]); }

/* Does alg's prediction take the level rule at the link's rate?  (A
 * measured level and a model with a link measurement.) */
static int uses_link(const pat_select_in *in, int alg) { return has_level(in, alg) && in->mp->link_set; }

/* alg's replay on balanced arrivals (root 0 or LNBC's), at the link's rate
 * if link, cached per block size: the reference its measured level
 * replaces. */
static int flat_replay(pat_select_cache *c, const pat_select_in *in, int alg, int link, double *ebar) {
  if (c && c->flat_bytes != in->block_bytes) forget_flat(c, in->block_bytes);
  double *slot = c ? (link ? &c->flat_link_ebar[alg] : &c->flat_ebar[alg]) : NULL;
  if (slot && isfinite(*slot)) {
    *ebar = *slot;
    return PAT_OK;
  }
  int64_t *zero = calloc((size_t)in->P, sizeof *zero);
  if (!zero) return PAT_ENOMEM;
  pat_model_result res;
  memset(&res, 0, sizeof res);
  int root = alg == PAT_ALG_LNBC && in->lnbc_root >= 0 && in->lnbc_root < in->P ? in->lnbc_root : 0;
  int rc = predict(c, alg, root, in->P, zero, PAT_NO_TIME, in->block_bytes, in->mp, link, 0, aggregated(c, in, alg), &res);
  free(zero);
  if (rc) return rc;
  *ebar = res.ebar;
  if (slot) *slot = res.ebar;
  return PAT_OK;
}

double pat_select_synchronised_share(int P, const int64_t *arrival_ns, double level_s, double block_bytes,
                                     const pat_model_params *mp) {
  if (!(level_s > 0)) return 0;
  int64_t amin = arrival_ns[0], amax = amin;
  for (int i = 1; i < P; i++) {
    if (arrival_ns[i] < amin) amin = arrival_ns[i];
    if (arrival_ns[i] > amax) amax = arrival_ns[i];
  }
  double spread_left = 1 - (double)(amax - amin) * 1e-9 / level_s;
  if (spread_left < 0) spread_left = 0;
  /* only the bytes' part of a transfer is the ports' two-way loss; the
   * latency part (per-message overheads) stays however arrivals spread */
  const double bytes_s = mp->link.beta * block_bytes, transfer_s = mp->link.alpha + bytes_s;
  const double bytes_part = transfer_s > 0 ? bytes_s / transfer_s : 0;
  return 1 - (1 - spread_left) * bytes_part;
}

/* The prediction from alg's replay under the pattern (replay, at the link's
 * rate if uses_link): see pat_select_predict. */
static int level_rule(pat_select_cache *c, const pat_select_in *in, int alg, double replay, double *ebar) {
  *ebar = replay;
  if (!has_level(in, alg)) return PAT_OK;
  const int link = uses_link(in, alg);
  double flat;
  int rc = flat_replay(c, in, alg, link, &flat);
  if (rc) return rc;
  const double level = in->flat_s[alg];
  const double share =
      link ? pat_select_synchronised_share(in->P, in->arrival_ns, level, in->block_bytes, in->mp) : 1;
  *ebar = replay + (level - flat) * share;
  if (*ebar < 0) *ebar = 0;
  return PAT_OK;
}

int pat_select_predict(pat_select_cache *c, const pat_select_in *in, int alg, int root, double *ebar_s) {
  pat_model_result res;
  memset(&res, 0, sizeof res);
  int rc = predict(c, alg, root, in->P, in->arrival_ns, in->bg_start_ns, in->block_bytes, in->mp,
                   uses_link(in, alg), in->balanced_build, aggregated(c, in, alg), &res);
  if (rc) return rc;
  return level_rule(c, in, alg, res.ebar, ebar_s);
}

static int predict_roots(pat_select_cache *c, const pat_select_in *in, int alg, const int *roots, int n,
                         pat_select_out *out) {
  for (int k = 0; k < n; k++) {
    double ebar = 0;
    int rc = pat_select_predict(c, in, alg, roots[k], &ebar);
    if (rc == PAT_ENOMEM) return rc;
    if (rc) {
      if (out->status[alg] != PAT_OK) out->status[alg] = rc;
      continue;
    }
    int64_t q = pat_quantise_ns(refined(in, alg, ebar));
    out->status[alg] = PAT_OK;
    if (q < out->ebar_ns[alg]) {
      out->ebar_ns[alg] = q;
      out->root_of[alg] = roots[k];
    }
  }
  return PAT_OK;
}

/* NATIVE's level: measured, or the best balanced prediction of the classic
 * algorithms (native_from_classic).  Returns PAT_OK with *level NAN if it
 * has none. */
static int native_level(pat_select_cache *c, const pat_select_in *in, double *level) {
  *level = NAN;
  if (has_level(in, PAT_ALG_NATIVE)) {
    *level = in->flat_s[PAT_ALG_NATIVE];
    return PAT_OK;
  }
  if (!in->native_from_classic) return PAT_OK;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!(pat_algorithms[alg].flags & PAT_ALGF_CLASSIC)) continue;
    double flat;
    int rc = has_level(in, alg) ? PAT_OK : flat_replay(c, in, alg, 0, &flat);
    if (rc == PAT_ENOMEM) return rc;
    if (rc) continue;
    if (has_level(in, alg)) flat = in->flat_s[alg];
    if (!(flat >= *level)) *level = flat; /* also replaces NAN */
  }
  return PAT_OK;
}

/* NATIVE: its level plus the mean wait for the last arrival. */
static int predict_native(pat_select_cache *c, const pat_select_in *in, pat_select_out *out) {
  double level;
  int rc = native_level(c, in, &level);
  if (rc) return rc;
  if (!isfinite(level)) return PAT_OK;
  double wait = pat_select_wait(in->P, in->arrival_ns);
  out->ebar_ns[PAT_ALG_NATIVE] = pat_quantise_ns(refined(in, PAT_ALG_NATIVE, level + wait));
  out->status[PAT_ALG_NATIVE] = PAT_OK;
  return PAT_OK;
}

int pat_select(pat_select_cache *c, const pat_select_in *in, pat_select_out *out) {
  if (!in || !out || in->P < 1 || !in->arrival_ns || !in->mp || !(in->block_bytes >= 0)) return PAT_EINVAL;
  const unsigned allowed = in->allowed ? in->allowed : ~0u;
  select_start(in, out);
  int64_t best = INT64_MAX;
  /* pass 0 applies the balanced rule; pass 1 (only if pass 0 found nothing)
   * lets arrival-aware algorithms compete on a balanced pattern */
  for (int pass = 0; pass < 2 && out->alg == PAT_ALG_UNKNOWN; pass++) {
    if (pass == 1 && !out->balanced) break;
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
      if (!considered(alg, pass, allowed, out->balanced, in->hierarchical)) continue;
      if (alg == PAT_ALG_NATIVE) {
        int rc = predict_native(c, in, out);
        if (rc) return rc;
        if (out->status[alg] == PAT_OK && out->ebar_ns[alg] < best) {
          best = out->ebar_ns[alg];
          out->alg = alg;
          out->root = 0;
        }
        continue;
      }
      int roots[64];
      const int n = candidate_roots(alg, in, roots);
      /* where nodes share links every schedule is replayed (pat_predict): the classic ones too are held
       * to the replay's budget */
      pat_model_params mn = *in->mp;
      mn.nodes = node_map(c, in->P, in->mp);
      const int replayed = (pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) ||
                           (in->mp->node && in->mp->shared_links && !ring_alone(alg, &mn));
      int skip, rc = replayed ? check_budget(c, alg, roots[0], in, out, &skip) : check_classic_budget(c, alg, in, out, &skip);
      if (rc) return rc;
      if (skip) continue;
      rc = predict_roots(c, in, alg, roots, n, out);
      if (rc) return rc;
      if (out->status[alg] == PAT_OK && out->ebar_ns[alg] < best) {
        best = out->ebar_ns[alg];
        out->alg = alg;
        out->root = out->root_of[alg];
      }
    }
  }
  if (out->alg == PAT_ALG_UNKNOWN) {
    if (allowed & (1u << PAT_ALG_NATIVE)) {
      out->alg = PAT_ALG_NATIVE;
      return PAT_OK;
    }
    return PAT_EINVAL;
  }
  return PAT_OK;
}
