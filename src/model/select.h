/*
 * Per-call algorithm selection (PAT_ALG=auto, docs/design.md §6): predict ē of
 * every allowed algorithm for the exchanged arrival pattern by replaying its
 * schedule under the cost model, and take the smallest.
 *
 * Agreement: every rank passes bit-identical inputs (arrivals as int64 ns on
 * the common clock, the broadcast model) and the choice is a pure function of
 * them: predictions are compared as integer nanoseconds (llround), ties go to
 * the lowest algorithm id, BSLB's root ties to the earlier arrival.
 *
 * Rules:
 *  - a balanced pattern (ω < τ, τ from the default parameters) picks a
 *    classic algorithm or a plan-ahead one (RELAY, whose prediction only
 *    orders its sends); the other arrival-aware ones are not considered
 *    unless nothing else is allowed;
 *  - NATIVE has no schedule: it is predicted from its balanced level (see
 *    flat_s below) and the wait for the last arrival; with no level it is
 *    not predicted, and chosen only when nothing else is allowed;
 *  - with measured balanced times (flat_s), the replay gives only each
 *    algorithm's response to imbalance (pat_select_predict); online
 *    refinement (ratio) scales the result;
 *  - an algorithm whose builder fails is skipped;
 *  - an arrival-aware schedule is built for every rank and replayed, which
 *    costs 60-120 ns per op: one estimated (from a one-rank build) to exceed
 *    the per-call budget (arrival_max_ops) is not considered.  BDR has
 *    ~2 P^2 ops, so with the default budget it competes up to P ~ 90; beyond,
 *    it needs a predictor that exploits its structure.
 *  - the same budget holds for a classic schedule whose program sorts the
 *    transfers of each step on every call (a rank sends several messages and
 *    receives several in one step: DIRECT, ~2 P^2 ops, 10-20 ns a transfer):
 *    DIRECT competes up to P = 91 and is neither compiled nor predicted beyond.
 *
 * Speed: classic schedules depend only on P, so they are compiled once per P
 * into replay programs (model_prog.h) kept in a cache, and evaluated in
 * O(P) (RING, NEX, BRUCK, RDB for powers of two) or O(transfers) (the
 * others; DIRECT's P(P-1) with a sort per step) -- exactly what replaying
 * the schedule gives.  Arrival-aware schedules are built for every rank and
 * replayed.  When the programs cannot reproduce the replay (eager messages)
 * the schedule is built and replayed in full.
 *
 * Pure C, no MPI; the cache is not thread-safe (one per communicator).
 */
#ifndef PAT_SELECT_H
#define PAT_SELECT_H

#include <stdint.h>

#include "model/model.h"
#include "model/model_prog.h"
#include "model/build_args.h"

#define PAT_NO_TIME INT64_MIN /* "no such time": bg_start as early as partners allow */
#define PAT_NO_BACKGROUND INT64_MAX /* bg_start: nothing before a rank's arrival */

typedef struct pat_select_cache {
  int P;                        /* programs are for this P (0: none yet) */
  double flat_bytes;            /* flat_ebar holds balanced replays for this block size */
  double flat_ebar[PAT_ALG_COUNT]; /* NAN: not replayed yet */
  double flat_link_ebar[PAT_ALG_COUNT]; /* the same at the model's link rate */
  int lnbc_root;                /* LNBC's program is for this root */
  int general;                  /* programs carry their general form */
  pat_prog *prog[PAT_ALG_COUNT];
  int state[PAT_ALG_COUNT];     /* 0 not compiled, 1 compiled, else -(error) */
  int sorted_known[PAT_ALG_COUNT];
  size_t sorted_ops[PAT_ALG_COUNT]; /* if known: ops of a classic schedule whose program sorts each
                                       step's transfers per call (estimated), 0 for the others */
  int *node_ids;                /* the node ids (P entries) nodes was made from; NULL: no map yet */
  pat_nodes nodes;              /* their map, made once and handed to every build and replay */
  pat_replay_space space;       /* the replays' arrays, kept for the next */
} pat_select_cache;

void pat_select_cache_init(pat_select_cache *c);
void pat_select_cache_free(pat_select_cache *c);

/* Compile the programs of the allowed classic algorithms for P ahead of the
 * first call (pat_select does it on demand otherwise), except those over the
 * default per-call budget.  general: also the general forms (needed when a
 * node map with intra-node parameters is used).  Returns PAT_OK or PAT_ENOMEM. */
int pat_select_prepare(pat_select_cache *c, int P, unsigned allowed, int lnbc_root, int general);

/* Predict algorithm alg (root: for LNBC and BSLB) for arrivals in ns on the
 * common clock.  c may be NULL (no caching).  out's times are relative to the
 * earliest arrival, in seconds.  Returns PAT_OK or the builder's / replay's
 * error (PAT_EINVAL, PAT_ENOMEM). */
int pat_predict(pat_select_cache *c, int alg, int root, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                double block_bytes, const pat_model_params *mp, pat_model_result *out);

/* pat_predict of the schedule built for balanced arrivals (what a
 * non-blocking call runs, model_nbc.h), replayed under arrival_ns. */
int pat_predict_built_balanced(pat_select_cache *c, int alg, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                               double block_bytes, const pat_model_params *mp, pat_model_result *out);

/* pat_predict, with HRING and HRELAY by the node model (model_nodes.h) where it fits (node_model):
 * for tools at P where their replay is out of reach. */
int pat_predict_nodes(pat_select_cache *c, int alg, int root, int P, const int64_t *arrival_ns, int64_t bg_start_ns,
                      double block_bytes, const pat_model_params *mp, int node_model, pat_model_result *out);

typedef struct pat_select_in {
  int P;
  const int64_t *arrival_ns;  /* predicted arrival of every rank, ns, common clock */
  int64_t bg_start_ns;        /* earliest start of background steps; PAT_NO_TIME: as early as partners allow */
  double block_bytes;         /* bytes of one rank's block */
  const pat_model_params *mp; /* the model (its node map is used; its bg_start is ignored) */
  unsigned allowed;           /* bit (1u << alg) per candidate algorithm; 0: all */
  int lnbc_root;              /* root of LNBC */
  int bslb_roots;             /* BSLB: try this many earliest arrivals as root (<= 1: the earliest) */
  size_t arrival_max_ops;     /* per-call budget: an arrival-aware schedule, or a classic one whose
                                 program sorts its transfers per call (DIRECT), estimated larger than
                                 this (ops, all ranks) is not considered; 0: PAT_SELECT_ARRIVAL_MAX_OPS,
                                 SIZE_MAX: no limit */
  const double *flat_s;       /* per algorithm: its measured time (s) on balanced arrivals for this P and
                                 block size, or NAN; NULL: none.  With it, the measurement sets the level
                                 and the replay the response to imbalance (pat_select_predict). */
  int balanced_build;         /* every schedule built for balanced arrivals, as a call without an exchange
                                 runs an arrival-aware one (with bg_start_ns at the last arrival: every rank
                                 from its own arrival, nothing before); 0: built for arrival_ns, as an exchanged plan */
  int native_from_classic;    /* no measured time for NATIVE: take the best classic algorithm's balanced
                                 prediction as its level (MPI's own is assumed as good as our best) */
  int hierarchical;           /* mp's node map has several nodes and one of several ranks
                                 (pat_nodes_hierarchical): only then are the algorithms built for nodes
                                 (PAT_ALGF_NODES) candidates */
  const double *ratio;        /* per algorithm: the measured/predicted cost of earlier calls (online
                                 refinement); NULL or entries <= 0: 1.  It scales the cost above the
                                 wait for the last arrival, W = mean_i(max a - a_i), which no
                                 algorithm avoids: prediction = W + ratio * (replay's ē - W) */
} pat_select_in;

/* NATIVE has no schedule: its prediction is its balanced level plus the
 * mean wait for the last arrival, mean_i(max a - a_i), as if MPI's own
 * collective started when the last rank arrives (an upper bound for
 * synchronising algorithms: ring, recursive doubling, ...).  It is a
 * candidate whenever it has a level (flat_s[NATIVE] or native_from_classic). */

/* About 1 ms of building and replaying on a 2020s core (~60 ns per op):
 * BDR up to P ~ 90, BSLB at any P up to 4096. */
#define PAT_SELECT_ARRIVAL_MAX_OPS 16384

#define PAT_SELECT_SKIPPED (-1)     /* status: not considered (not allowed, no level for NATIVE, balanced pattern) */
#define PAT_SELECT_OVER_BUDGET (-2) /* status: schedule over the per-call budget */

typedef struct pat_select_out {
  int alg;                         /* the choice (PAT_ALG_UNKNOWN if none) */
  int root;                        /* its root (rooted algorithms), else 0 */
  int balanced;                    /* ω < τ */
  int64_t omega_ns, tau_ns;
  int64_t ebar_ns[PAT_ALG_COUNT];  /* predicted ē (quantised, refined), INT64_MAX if not predicted */
  int root_of[PAT_ALG_COUNT];      /* root used for each rooted algorithm */
  int status[PAT_ALG_COUNT];       /* PAT_OK predicted; PAT_SELECT_SKIPPED / _OVER_BUDGET; else the error */
} pat_select_out;

/* W = mean_i(max a - a_i) (s): the wait for the last arrival, a lower
 * bound of every algorithm's ē. */
double pat_select_wait(int P, const int64_t *arrival_ns);

/* What the selection predicts for alg (root: LNBC's or BSLB's) under
 * in's pattern, before online refinement.  Without a measured level
 * (in->flat_s), the replay of alg's schedule under mp.  With one, L:
 *  - mp without a link measurement: L + (replay under the pattern - replay
 *    on balanced arrivals), the replay with alg's own parameters;
 *  - mp with one (mp->link_set): R(p) + (L - R(0)) * s, R the replay with
 *    every transfer at the link's rate (a pair alone on the network), R(0)
 *    on balanced arrivals, s = pat_select_synchronised_share.  L - R(0) is
 *    what a balanced call loses to every port being busy both ways at once,
 *    gone once arrivals spread over a call's length (measured calls then run
 *    at R(p)); the share of it left falls as the arrivals spread
 *    (BENCHMARKS.md, The cost model against measurement).
 * At least 0.  Returns PAT_OK or the builder's / replay's error. */
int pat_select_predict(pat_select_cache *c, const pat_select_in *in, int alg, int root, double *ebar_s);

/* The share of an algorithm's excess over the link's replay left under a
 * pattern: 1 - (1 - g) * b, g = 1 - (max a - min a) / level_s clamped to
 * [0, 1] (what a spread leaves of the synchronised start), b = beta m /
 * (alpha + beta m) of mp's link for blocks of m bytes (the excess is the
 * ports' loss only in a transfer's bytes: at 1 B it is per-message
 * overheads, which no spread removes); 0 if level_s <= 0. */
double pat_select_synchronised_share(int P, const int64_t *arrival_ns, double level_s, double block_bytes,
                                     const pat_model_params *mp);

/* Choose.  Returns PAT_OK, or PAT_EINVAL (bad input, or nothing allowed can
 * be predicted and NATIVE is not allowed). */
int pat_select(pat_select_cache *c, const pat_select_in *in, pat_select_out *out);


#endif
