/*
 * When a call exchanges arrivals (auto): an arrival exchange costs about one
 * small all-gather, so it is made only where arrival-awareness can pay.
 *
 * Per call site (pat/sites.h; sites are block sizes, so every rank numbers
 * them alike) a mode, decided from agreed inputs only -- call numbers, block
 * sizes, the model rank 0 broadcast, and what earlier exchanges brought:
 *
 *  - STATIC: the call runs the static choice (the algorithm with the
 *    smallest measured balanced time, NATIVE without a model file) with no
 *    exchange and no message of libpat's own.  Now and then it probes: the
 *    site's call number next_probe exchanges (its records also carry every
 *    rank's actual arrival at the previous call), with a backoff that
 *    doubles, from PAT_PROBE_FIRST to PAT_PROBE_MAX calls, after every probe
 *    that finds nothing to gain.
 *  - EXCHANGE: every call exchanges, ahead of the call (from history or
 *    instrumentation); after PAT_QUIET_MAX exchanged calls in a row that
 *    found nothing to gain, the site goes back to STATIC.
 *
 * The static choice is NATIVE unless a classic algorithm's measured time is
 * PAT_STATIC_MARGIN below NATIVE's.  An exchanged call runs the selection's
 * best algorithm only if it pays by the rule below; otherwise the static
 * choice (a jittery balanced call must not wander among algorithms).
 *
 * A probe or an exchanged call finds something to gain when the selection
 * predicts the best algorithm at least max(PAT_GAIN_FRACTION of the static
 * choice's own cost -- its prediction less the wait for the last arrival,
 * which no algorithm avoids --, one exchange's cost) faster than the static
 * choice for the exchanged arrivals.  A site whose blocks are so small that the
 * static choice takes less than two exchanges never probes (nothing there
 * can pay).  The first call at a new site always exchanges, on arrival: it
 * costs one small all-gather and shows at once whether arrivals are
 * imbalanced (and whether ranks passed different sizes).
 *
 * Whether the next call exchanges is decided at the end of the previous one
 * (for the site expected next), so that ranks may contribute ahead of it.
 *
 * The guardrail (guardrail.h, docs/guardrail.md) has the last word: a site
 * enters the exchange mode only when its guard allows a trial, returns to
 * STATIC when the guard says the alternative measured no cheaper than the
 * static choice, and runs arrival-aware algorithms only while its measured
 * prediction error is small against the arrival spread.  The costs it judges
 * by come from the exchange records, which carry every rank's previous call
 * at the same site.
 */
#ifndef PAT_POLICY_H
#define PAT_POLICY_H

#include <stdint.h>

#include "algorithms/algorithms.h"
#include "pat/exchange.h"
#include "pat/sites.h"
#include "runtime/guardrail.h"

struct pat_comm_state;

#define PAT_PROBE_FIRST 8     /* calls between the first probes of a site */
#define PAT_PROBE_MAX 64      /* at most this many calls between probes: a probe costs about one
                                 exchange X, and a site that probes has calls of at least 2X, so
                                 probing costs under 1/128 of the calls' time, and an imbalance
                                 that appears is found within PAT_PROBE_MAX calls */
#define PAT_QUIET_MAX 3       /* exchanged calls without gain before a site goes static */
#define PAT_GAIN_FRACTION 0.05
#define PAT_STATIC_MARGIN 0.10 /* a classic algorithm replaces NATIVE as the static choice only if its
                                  measured balanced time is at least this much smaller: calibration
                                  noise must not make a balanced code pay (b2b on shared memory with a
                                  --quick model: NEX/RDB picked at 1-64 B ran 1.2-1.5x NATIVE) */

enum pat_site_mode { PAT_MODE_STATIC = 0, PAT_MODE_EXCHANGE = 1 };

/* Online refinement (STAR-MPI, Faraj 2006): per site and algorithm, the
 * ratio of measured to predicted cost of the calls it ran (prediction under
 * the actual arrivals; cost = ē above the wait for the last arrival),
 * smoothed; it scales later predictions.  An algorithm never measured at
 * the site whose predicted cost is within PAT_EXPLORE_WITHIN of the best
 * one's is run once to be measured: at most PAT_EXPLORE_TOTAL times per
 * site, PAT_EXPLORE_SPACING calls apart, only in the exchange mode. */
typedef struct pat_refine {
  double ratio[PAT_ALG_COUNT];    /* 0: no sample yet */
  int samples[PAT_ALG_COUNT];
  int explored[PAT_ALG_COUNT];    /* times it was run to be measured */
  int explorations;               /* at the site, in all */
  long long last_explore;         /* site call number of the last exploration */
  /* for the report: sums of predicted and measured ē per algorithm */
  double pred_sum[PAT_ALG_COUNT], meas_sum[PAT_ALG_COUNT];
} pat_refine;

#define PAT_REFINE_WEIGHT 0.3     /* weight of a new ratio sample */
#define PAT_REFINE_CLAMP 5.0      /* ratios are kept within [1/5, 5] */
#define PAT_EXPLORE_MAX 1         /* runs of an unmeasured algorithm to measure it, per site */
#define PAT_EXPLORE_TOTAL 4       /* explorations per site in all */
#define PAT_EXPLORE_SPACING 32    /* site calls between explorations */
#define PAT_EXPLORE_WITHIN 1.10   /* explore an algorithm whose cost (above the wait for the last arrival)
                                     is predicted within 10% of the best one's */

/* This rank's last call at a site, carried in its next record for the site. */
typedef struct pat_last_call {
  long long call;        /* its number on the communicator; -1: none */
  int64_t arrival_ns, elapsed_ns, predicted_ns;
  int alg, flags;        /* PAT_PREV_* (pat/exchange.h) */
} pat_last_call;

typedef struct pat_site_policy {
  int mode;              /* enum pat_site_mode */
  int static_alg;        /* the static choice for the site's block size (pat_policy_static_alg) */
  int never;             /* blocks too small for arrival-awareness to pay: no probes */
  long long next_probe;  /* STATIC: the site call number that exchanges next */
  int backoff;           /* STATIC: calls between probes */
  int quiet;             /* EXCHANGE: exchanged calls in a row without gain */
  long long exchanged;   /* calls that exchanged (report) */
  pat_refine refine;
  pat_guard guard;       /* measured costs against the static choice's */
  pat_last_call last;    /* this rank's last call here */
  long long learned_call; /* the last call number learned from (each is learned once) */
} pat_site_policy;

typedef struct pat_policy {
  pat_site_policy site[PAT_SITES_MAX];
  int next_exchanges;   /* the next call exchanges: ranks may contribute ahead of it */
  int one_node_native;  /* auto runs NATIVE without exchanges here (PAT_ONE_NODE; the same on every rank) */
  /* the call under way, once committed (pat_policy_commit): */
  int cur_exchanged, cur_alt; /* it exchanged; it ran in the exchange mode or not the static choice */
  int cur_static;             /* PAT_EXCHANGE=always: it ran the static choice in the STATIC mode */
  int cur_kept;               /* it kept a plan-ahead algorithm on history's records (decide.h) */
  int64_t cur_predicted_ns;   /* what this rank's record said of its arrival */
  /* The refinement sample of the last learned call, not yet replayed
   * (pat_policy_settle); its arrivals are in cs->planner.scratch. */
  struct {
    int pending, site, alg;
    double measured, wait;
  } unsettled;
} pat_policy;

void pat_policy_init(pat_policy *pl);

/* Under auto, is `site` planned ahead: in the exchange mode, its last call
 * ran an algorithm flagged PAT_ALGF_PLAN_AHEAD?  Then the call after it
 * exchanges records from history as soon as it ends, even in an
 * instrumented process (arrivals.c), and runs that algorithm again
 * (decide.c) for as long as the guard finds it cheaper than the static
 * choice: its schedule needs no prediction, and a plan made before the last
 * rank's PAT_Edge lets blocks move while late ranks compute.  Agreed inputs
 * (the site's policy state): every rank answers alike. */
int pat_policy_plans_ahead(const struct pat_comm_state *cs, int site);

/* Does auto defer to NATIVE, without exchanges, on a communicator whose
 * ranks are on nodes node[0..P-1]?  Yes when every rank shares one node and
 * no model file is loaded, unless PAT_ONE_NODE=auto: on shared memory the
 * call is bound by the last arrival, so arrival-awareness has nothing to
 * hide, and without a model file the classic alternatives are guesses
 * (BENCHMARKS.md).  Agreed inputs only: every rank answers alike. */
int pat_policy_one_node_native(int P, const int *node);

/* A site was created (or took an old one's place) at site call 0. */
void pat_policy_new_site(struct pat_comm_state *cs, int site);

/* Does this call exchange arrivals?  setting: the algorithm setting;
 * fresh: its site is new. */
int pat_policy_call_exchanges(const struct pat_comm_state *cs, int setting, int fresh);

/* Whether running an algorithm predicted at best_ns instead of the static
 * choice predicted at static_ns pays, for arrivals whose last one costs a wait
 * of wait_s: the rule above. */
int pat_policy_gain_pays(const struct pat_comm_state *cs, int64_t static_ns, int64_t best_ns, double wait_s);

/* The static choice for blocks of `bytes`: the algorithm with the smallest
 * measured balanced time for this P, or NATIVE without one. */
int pat_policy_static_alg(const struct pat_comm_state *cs, int64_t bytes);

/* An exchanged call at `site` has run what `choice` says: learn from the
 * records what the previous call's algorithm really cost (every rank's
 * record carries its measurement), count an exploration, and (auto) update
 * the site's mode from the choice's predictions.  Called after the decision,
 * never before it, so that a decision made ahead (background) and one made
 * in the call see the same state. */
struct pat_choice;
void pat_policy_commit(struct pat_comm_state *cs, int site, const struct pat_choice *choice, int setting);

/* Replay the last learned call's algorithm under its actual arrivals and
 * fold the ratio of measured to predicted cost into its site's refinement.
 * pat_policy_commit only notes the sample: the replay costs about a
 * millisecond of CPU at P = 8 (an arrival-aware schedule in the fluid
 * model), and at the end of a call it ran while the other ranks' last
 * transfers needed the CPU (on the emulated cluster the kernel carries the
 * network on the ranks' cores: RELAY at N = 1M, maxDelay 100 ms measured
 * about 3 ms faster without it, BENCHMARKS.md).  Settled before the next
 * choice (pat_choose) and before the report reads the refinement, so every
 * decision sees the same state as before, on every rank. */
void pat_policy_settle(struct pat_comm_state *cs);

/* A call at `site` ran alg, arrived and left at these times: remember it
 * for the next record, and decide whether the next call exchanges. */
void pat_policy_end_call(struct pat_comm_state *cs, int site, int alg, int64_t arrival_ns, int64_t exit_ns,
                         int setting);

/* This rank's record for a call of `bytes` per block: its last call at that
 * site (prev_* fields; prev_call -1 when there is none). */
void pat_policy_fill_record(const struct pat_comm_state *cs, int64_t bytes, pat_xrec *rec);

/* One exchange's cost (s): the measured NATIVE time for a record, or an
 * estimate from the model's latency. */
double pat_policy_exchange_cost(const struct pat_comm_state *cs);

#endif
