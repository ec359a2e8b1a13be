/*
 * auto's decision engine: per call site, whether a call exchanges arrivals,
 * which algorithm it runs, and what the call taught.  Pure C: no MPI, no
 * threads, no clock.  Every input is an argument that every rank agrees on
 * (call numbers, block sizes, the exchanged records, the broadcast model,
 * the job's settings), so every rank's engine decides alike; the runtime
 * gathers the inputs and applies the result (src/runtime/call.c for a
 * call, plan.c for a plan the background thread makes ahead), and a unit
 * test drives the engine without MPI (tests/unit/test_engine.c).
 *
 * A call meets the engine three times:
 *   1. pat_engine_exchanges: does this call exchange arrivals?
 *   2. pat_engine_learn, then pat_engine_choose: learn from the exchanged
 *      records what the site's previous call cost (each call is learned
 *      once, so learning again from the same records changes nothing),
 *      then, given the exchanged arrivals, which algorithm (reads the
 *      state, never changes it, so a choice made ahead by the background
 *      thread and one made in the call agree);
 *   3. pat_engine_commit (an exchanged call) and pat_engine_end_call (every
 *      call): what ran updates the site's mode, and decides whether the
 *      next call exchanges.
 *
 * The rules (the constants below; docs/design.md §6):
 *
 * Per call site (sites are block sizes, so every rank numbers them alike) a
 * mode:
 *  - STATIC: the call runs the static choice (the algorithm with the
 *    smallest measured balanced time, NATIVE without a model file; a classic
 *    algorithm replaces NATIVE only if it is PAT_STATIC_MARGIN faster, and
 *    where the file has back-to-back times, back to back too) with
 *    no exchange and no message of libpat's own.  Now and then it probes:
 *    the site's call number next_probe exchanges (its records also carry
 *    every rank's actual arrival at the previous call), with a backoff that
 *    doubles, from PAT_PROBE_FIRST to PAT_PROBE_MAX calls, after every probe
 *    that finds nothing to gain.  A site whose blocks are so small that the
 *    static choice takes less than two exchanges never probes: as modelled
 *    at its first call, as measured (the guard's S) once it has been; the
 *    exchange too as modelled, then as measured (pat_engine_exchange_cost).
 *  - EXCHANGE: every call exchanges, ahead of the call (from history or
 *    instrumentation); after PAT_QUIET_MAX exchanged calls in a row that
 *    found nothing to gain, the site goes back to STATIC.
 * The first call at a new site always exchanges, on arrival: it costs one
 * small all-gather and shows at once whether arrivals are imbalanced (and
 * whether ranks passed different sizes).  Whether the next call exchanges is
 * decided at the end of the previous one (for the site expected next), so
 * that ranks may contribute ahead of it.
 *
 * The gain rule (pat_engine_gain_pays, the only place it is applied): an
 * exchanged call runs the selection's best algorithm, and a probe finds
 * something to gain, only if the best is predicted at least max(
 * PAT_GAIN_FRACTION of the static choice's own cost -- its prediction less
 * the wait for the last arrival, which no algorithm avoids --, one
 * exchange's cost) faster than the static choice for the exchanged
 * arrivals; otherwise the static choice (a jittery balanced call must not
 * wander among algorithms).
 *
 * The prediction (model/select.h) is the measured balanced level of each
 * algorithm where the model file has one, plus the schedule replay's
 * response to the arrivals, scaled by the site's online refinement
 * (refine.h).  A plan-ahead algorithm (PAT_ALGF_PLAN_AHEAD) that a site in
 * the exchange mode ran last is kept while the guard allows it: its plan,
 * made from history before the last rank's edge, lets blocks move while
 * late ranks compute.
 *
 * Promotion: where the exchange mode runs one classic algorithm (it needs no
 * exchange) for PAT_PROMOTE_CALLS calls in a row and they cost, exchange
 * included, PAT_STATIC_MARGIN less than the static choice, that algorithm
 * becomes the site's static choice and the site returns to STATIC, where it
 * runs without the exchange; provided its last rank also leaves no later, on
 * the mean, than the static choice's measured calls' did (the critical path:
 * from the last arrival to the last exit, without the exchange; S where
 * none was measured), since a program whose ranks meet again at their next
 * collective waits there for the last one out.  Where only that fails the
 * site returns to its static choice (the trial lost): staying in the
 * exchange mode paid an exchange a call for a gain in the mean exit alone
 * (osu_allgather 1.03 -> 1.16x MPI's own on the emulated cluster).  Without
 * a model file the static choice is NATIVE, and only the exchange mode could
 * run another algorithm, paying an exchange on each call where a classic one
 * beats Open MPI's own.  The
 * costs are the guard's (agreed), so every rank promotes alike.
 *
 * Measurements win (explore.h): per regime (balanced or imbalanced
 * arrivals, against a block's time) the exchange mode's measured cost of an
 * algorithm replaces its prediction as soon as it has one, and the static
 * choice's measured S replaces the static choice's; each candidate (RELAY,
 * DIRECT, RING, the model's pick and those near it) is explored until it
 * has PAT_EXPLORE_K samples in the regime: from the static choice as a
 * trial of that candidate, which the guard judges like any trial, and in a
 * kept alternative at most one call in PAT_EXPLORE_EVERY.  A prediction
 * alone would keep the model's pick for good, or leave the static choice
 * in place under imbalance, where another candidate, never measured, is
 * much faster (issue 53).
 *
 * The guardrail (guardrail.h, docs/guardrail.md) has the last word: a site
 * enters the exchange mode only when its guard allows a trial, returns to
 * STATIC when the guard says the alternative measured no cheaper than the
 * static choice, and runs arrival-aware algorithms that bet on predictions
 * only while its measured prediction error is small against the arrival
 * spread (plan-ahead ones, whose predictions only order their sends, run
 * either way).  The costs it judges
 * by come from the exchange records, which carry every rank's previous call
 * at the same site.
 */
#ifndef PAT_ENGINE_H
#define PAT_ENGINE_H

#include <stdint.h>

#include "algorithms/algorithms.h"
#include "decide/explore.h"
#include "decide/guardrail.h"
#include "decide/refine.h"
#include "decide/static_rule.h"
#include "decide/vchoice.h"
#include "model/model.h"
#include "model/select.h"

#define PAT_ENGINE_SITES 16   /* call sites per communicator: PAT_SITES_MAX (pat/sites.h) */

#define PAT_PROBE_FIRST 8     /* calls between the first probes of a site */
#define PAT_PROBE_MAX 64      /* at most this many calls between probes: a probe costs about one
                                 exchange X, and a site that probes has calls of at least 2X, so
                                 probing costs under 1/128 of the calls' time, and an imbalance
                                 that appears is found within PAT_PROBE_MAX calls */
#define PAT_EXCHANGE_SAMPLES 5 /* the exchange's measured costs kept (their median is taken)... */
#define PAT_EXCHANGE_KNOWN 2   /* ...once at least this many were measured */
#define PAT_QUIET_MAX 3       /* exchanged calls without gain before a site goes static */
#define PAT_GAIN_FRACTION 0.05
/* PAT_STATIC_MARGIN: decide/static_rule.h, the static rule the all-gatherv's choice shares */

#define PAT_PROMOTE_CALLS 8    /* exchanged calls in a row of one classic algorithm, measured PAT_STATIC_MARGIN
                                  below the static choice, that make it the site's static choice */

/* What exploration may cost (docs/guardrail.md, What a new call shape costs).  A site explores only while
 * its exploring calls' losses so far (each max(0, c - S)) plus what the next one is expected to lose stay
 * within PAT_EXPLORE_BUDGET of its time so far (site calls x S) plus PAT_EXPLORE_ALLOW static calls' cost,
 * and only a candidate whose gain over the calls it may still run (as many as it has run: a run's length
 * is guessed from its past) exceeds what its trial costs: a warm-up and PAT_GUARD_TRIAL calls, each with an
 * exchange, plus the loss the guard lets a losing trial take (at most PAT_GUARD_CAP static calls).  The
 * gain of a candidate not yet measured at the site nor carried from another is hoped to be at least
 * PAT_EXPLORE_HOPE of R where the model does not predict more: the model may rank it wrongly.  Gains
 * and losses are against R, what a call of the site costs already: S, or the cheapest candidate measured
 * PAT_EXPLORE_K times in the regime where that is cheaper. */
#define PAT_EXPLORE_BUDGET 0.05
#define PAT_EXPLORE_ALLOW 1.0
#define PAT_EXPLORE_HOPE 0.10

/* Measurements carried between sites (a size sweep makes a new site at every size): a candidate's
 * measured cost over MPI's own at one size stands in at another within PAT_CARRY_SPAN times its block
 * size, until the new site measures it.  A family measured no faster there (its ratio at least
 * 1 - PAT_GAIN_FRACTION) is not explored, and one measured faster is explored first. */
#define PAT_CARRY_SPAN 4

/* Model check: a site whose static choice a model file made (not NATIVE) measures it without an exchange
 * at its call 1 (counting from 0) and NATIVE at its call 2, and drops the model for the site when it
 * learns at its call 3 if NATIVE measured PAT_GAIN_FRACTION cheaper; a check that cannot run within
 * PAT_CHECK_CALLS calls is given up (the model is trusted, as before). */
#define PAT_CHECK_CALLS 8

enum pat_site_mode { PAT_MODE_STATIC = 0, PAT_MODE_EXCHANGE = 1 };

/* How the arrivals of an exchanged call were contributed, by every rank. */
enum pat_engine_records { PAT_RECORDS_MIXED = 0, PAT_RECORDS_ACTUAL = 1, PAT_RECORDS_HISTORY = 2 };

/* How a rank's last call at a site ran (the guardrail's arms); the same
 * values as the exchange record's PAT_PREV_* (pat/exchange.h). */
#define PAT_LAST_STATIC 1
#define PAT_LAST_ALT 2
#define PAT_LAST_PREDICTED 4
#define PAT_LAST_EXCHANGED 8

/* A rank's last call at a site: what its next record for the site carries,
 * and what the engine reads back from every rank's record. */
typedef struct pat_last_call {
  long long call;        /* its number on the communicator; -1: none */
  int64_t arrival_ns, elapsed_ns, predicted_ns;
  int alg, flags;        /* PAT_LAST_* */
  /* in a rank's record, besides its last call at the site: what the exchange of its latest
   * exchanged call (at any site) cost it (pat_engine_end's exchange_ns; -1: none) */
  int64_t exchange_ns;
} pat_last_call;

typedef struct pat_engine_site {
  int mode;              /* enum pat_site_mode */
  int64_t bytes;         /* the site's block size */
  int static_alg;        /* the static choice for it (pat_engine_static_alg, or a promoted one) */
  int never;             /* blocks too small for arrival-awareness to pay: no probes */
  long long next_probe;  /* STATIC: the site call number that exchanges next */
  int backoff;           /* STATIC: calls between probes */
  int quiet;             /* EXCHANGE: exchanged calls in a row without gain */
  long long exchanged;   /* calls that exchanged (report) */
  pat_refine refine;
  pat_guard guard;       /* measured costs against the static choice's */
  pat_last_call last;    /* this rank's last call here */
  long long learned_call; /* the last call number learned from (each is learned once) */
  int streak_alg;        /* the classic algorithm the last exchanged calls ran, PAT_PROMOTE_CALLS... */
  int streak_n;          /* ...of them in a row, costing streak_sum (s) */
  double streak_sum;
  double streak_last_out; /* ...and streak_last_out on the critical path (s, the last exit's; engine.c) */
  double static_last_out; /* the static choice's measured calls: their critical paths (s), summed */
  int static_last_out_n;
  int promotions;        /* classic algorithms made the static choice (report) */
  pat_arms arms;         /* the exchange mode's measured costs per regime and algorithm (explore.h) */
  int trial_alg;         /* the candidate the guard's current trial measures, -1: the best, as chosen */
  int regime_last, regime_seen; /* the regime of the last learned call; of the last two that agreed */
  int leader[PAT_REGIMES]; /* per regime (explore.h), what the exchange mode last ran as the best, not to be
                            measured (-1: none): another replaces it only PAT_GAIN_FRACTION cheaper */
  double explore_spent;  /* what exploring calls lost over S so far (s), against PAT_EXPLORE_BUDGET */
  long long explore_call; /* the communicator call number of the site's last exploring call (-1: none) */
  int explore_cuts;      /* trials ended because the budget was spent or their candidate was barred (report) */
  int checking;          /* the model file's static choice is still to be measured against NATIVE */
  int model_timed;       /* the model file measured the static choice at the site's size (its levels) */
  int model_dropped;     /* the report's flag: measurement contradicted the model file here (NATIVE measured
                            cheaper than its static choice, or its pick clearly dearer than the cheapest known);
                            the site runs NATIVE as its static choice and ignores the model's pick */
  long long model_dropped_at; /* the site call at which it was dropped (-1: not dropped) */
} pat_engine_site;

/* A family's measured cost over MPI's own at some block size, per regime (PAT_CARRY_SPAN). */
typedef struct pat_carry {
  double ratio;          /* median cost / NATIVE's cost (S, or NATIVE's median) */
  int64_t bytes;         /* the block size it was measured at; 0: none */
} pat_carry;

/* What the engine decides from, besides the calls: fixed for a communicator
 * and the same on every rank. */
typedef struct pat_engine_config {
  int P;
  const pat_model_params *mp; /* the broadcast model; must stay valid */
  int have_model;             /* mp came from a model file */
  const int *node;            /* node id of every rank (P entries); must stay valid */
  int exchange_always;        /* PAT_EXCHANGE=always: every call of auto exchanges */
  int plan_ahead;             /* PAT_PLAN_AHEAD_AUTO: keep a plan-ahead algorithm */
  int one_node_auto;          /* PAT_ONE_NODE=auto: bet on one node too */
  int record_bytes;           /* the size of an exchange record (one exchange gathers P of them) */
} pat_engine_config;

/* What choose decides: the algorithm, and the predictions it was judged by. */
typedef struct pat_choice {
  int alg, root;
  int static_alg;                  /* what the call would run without an exchange */
  int explored;                    /* alg was chosen to be measured, not as the best... */
  int recheck;                     /* ...again (explore.h, Rechecks: PAT_RECHECK_*) */
  int kept;                        /* a plan-ahead algorithm kept from the site's last call */
  int history;                     /* the records were the call-site history's predictions */
  int regime;                      /* the regime of the arrivals the choice saw (explore.h) */
  int64_t ebar_ns[PAT_ALG_COUNT];  /* predictions (refined), INT64_MAX: not predicted */
  int64_t static_ns;               /* the static choice as a call without an exchange runs it: ebar_ns's,
                                      but an arrival-aware one (RELAY of unequal blocks) on its balanced
                                      schedule from each rank's arrival; INT64_MAX: not predicted */
  double wait;                     /* the wait for the last arrival in them (s), which no algorithm avoids */
} pat_choice;

/* The inputs of a choice. */
typedef struct pat_engine_call {
  int site;                /* -1: a site not made yet (its first call) */
  long long site_calls;    /* calls the site has recorded */
  int setting;             /* the algorithm setting (>= 0: fixed, or PAT_ALG_AUTO) */
  int64_t bytes;           /* per block (an all-gatherv's: the mean block) */
  const int64_t *shape;    /* an all-gatherv's blocks (P bytes), NULL for equal ones */
  const int64_t *arrival;  /* the exchanged arrivals (P, common clock), NULL if none */
  int64_t bg_start_ns;     /* when background work can start (PAT_NO_TIME: planned ahead) */
  int records;             /* enum pat_engine_records */
} pat_engine_call;

/* The end of a call, for pat_engine_end_call. */
typedef struct pat_engine_end {
  int site;                /* where it was recorded (made by now) */
  long long call;          /* its number on the communicator */
  int setting, alg;        /* the setting it ran under, and what it ran */
  int64_t arrival_ns, exit_ns;
  /* what exchanging cost this call: from the later of its arrival and the last rank's contribution
   * (no exchange ends before it) to its choice made; -1: it did not exchange, or it was its site's
   * first call (made on arrival, its connections and buffers new) */
  int64_t exchange_ns;
  int next_site;           /* the site expected next (-1: unknown) */
  long long next_site_calls; /* calls that site has recorded */
} pat_engine_end;

typedef struct pat_engine {
  pat_engine_config cfg;
  int one_node_native;     /* auto runs NATIVE without exchanges here (pat_engine_one_node_native) */
  int hierarchical;        /* several nodes, one of several ranks: the node algorithms are candidates */
  int next_exchanges;      /* the next call exchanges: ranks may contribute ahead of it */
  pat_engine_site site[PAT_ENGINE_SITES];
  pat_carry carry[PAT_REGIMES][PAT_ALG_COUNT]; /* the last measured ratio of every family, for new sites */
  /* the call under way, once committed: */
  struct {
    int exchanged, alt;    /* it exchanged; it ran in the exchange mode or not the static choice */
    int statik;            /* PAT_EXCHANGE=always: it ran the static choice in the STATIC mode */
    int kept;              /* it kept a plan-ahead algorithm on history's records */
    int history;           /* its records were history's predictions */
    int64_t predicted_ns;  /* what this rank's record said of its arrival */
    int explores;          /* it explored, or ran a trial's call: charged to the site's exploration budget */
  } cur;
  /* The refinement sample of the last learned call, not yet replayed
   * (pat_engine_settle), and its arrivals. */
  struct {
    int pending, site, alg;
    double measured, wait;
    int64_t *arrival;      /* P */
  } unsettled;
  pat_last_call *records;  /* P: every rank's previous call, from the exchanged records (commit) */
  /* The exchange's measured cost: this rank's latest (its records carry it), and the agreed
   * samples, each the mean over the ranks of what their records carried (PAT_EXCHANGE_SAMPLES) */
  int64_t exchange_mine_ns;
  double exchange_sample[PAT_EXCHANGE_SAMPLES];
  int exchange_samples;
  double *bound_arrival;   /* P: a learned call's arrivals (s) for its lower bound */
  pat_select_cache select; /* the selection's compiled schedules */
  pat_vsites vsites;       /* all-gatherv: the choice per count vector (vchoice.h) */
} pat_engine;

/* One line on the site's state after a call, for the decision log
 * (PAT_DECISIONS): mode, guard, the static choice and its cost S, credit,
 * the trial's candidate and, per regime, the measured median of every
 * algorithm the exchange mode ran ("relay 3x 61.2ms"). */
void pat_engine_describe_site(const pat_engine *e, int site, char *out, int size);

/* The refinement's ratios a choice at `site` scales the model's predictions by (out: PAT_ALG_COUNT
 * entries, used where they are scaled).  Where the model file measured the site's static choice at its
 * size (its levels), and while the site keeps the model, an algorithm the site never ran takes the
 * common scale of those it ran (pat_refine_with_unrun): a model made on another network (another
 * rate, another calibration) is off for every schedule, and its unscaled predictions made those never
 * run look cheap beside the ones measured, so that a kept alternative explored them (3 + 3 + 2 ranks
 * at 200 Mbit/s with a 500 Mbit/s calibration: RING predicted at 36 ms above the wait, measured at
 * 155; HRING's ratio 2.4, HRELAY's 5).  Without levels the replay's errors differ from schedule to
 * schedule (a planted site whose model had none found RELAY 26 calls later), and without a model file
 * the default parameters' guesses are not scaled. */
const double *pat_engine_ratios(const pat_engine *e, int site, double *out);

/* 0, or -1 when out of memory (P arrivals and records). */
int pat_engine_init(pat_engine *e, const pat_engine_config *cfg);
void pat_engine_free(pat_engine *e);

/* Does auto defer to NATIVE, without exchanges, on a communicator whose
 * ranks are on nodes node[0..P-1]?  Yes when every rank shares one node,
 * with or without a model file, unless PAT_ONE_NODE=auto: on shared memory
 * the call is bound by the last arrival, so arrival-awareness has little to
 * hide; a model fitted on a network does not describe a node's shared
 * memory; and the deciding costs more than a small block's whole call there
 * (BENCHMARKS.md, Balanced calls through the drop-in). */
int pat_engine_one_node_native(int P, const int *node, int one_node_auto);
/* Do the P ranks with nodes node[] all share one node? */
int pat_engine_one_node(int P, const int *node);

/* A site was made (or took an old one's place) for blocks of `bytes`, or
 * for an all-gatherv's blocks shape[0..P-1] (NULL: equal blocks; bytes is
 * then their mean): its static choice is the all-gatherv's
 * (pat_engine_static_choice_v); probes and the exchange mode are the
 * all-gather's, against that choice as a call without an exchange runs it
 * (pat_choice.static_ns). */
void pat_engine_new_site(pat_engine *e, int site, int64_t bytes, const int64_t *shape);

/* 1. Does this call exchange arrivals?  fresh: its site is new.  A fixed
 * arrival-aware setting exchanges every call, a fixed classic one never;
 * auto asks the sites.  A call the previous one announced as exchanging
 * always exchanges, whatever the setting is now: ranks may have contributed
 * to its exchange ahead of it, and it must complete on every rank. */
int pat_engine_exchanges(const pat_engine *e, int setting, int fresh);

/* The algorithm a call that does not exchange runs under auto: the site's
 * static choice (site -1: the one for blocks of `bytes`). */
int pat_engine_static_choice(const pat_engine *e, int site, int64_t bytes);

/* Does auto run MPI's own all-gatherv without a look at the counts: where it
 * defers to NATIVE (one_node_native), without measured levels (no model
 * file), and beyond PAT_VCHOICE_MAX_P ranks?  It reads only what is fixed
 * when the communicator's state is made, so a caller needs no lock. */
static inline int pat_engine_v_defers(const pat_engine *e) {
  return e->one_node_native || !e->cfg.have_model || e->cfg.P > PAT_VCHOICE_MAX_P;
}

/* The algorithm an all-gatherv with blocks of bytes[0..P-1] runs under
 * auto: NATIVE where auto defers to it (pat_engine_v_defers), else the count
 * vector signature's cached choice (pat_vsig), made by pat_vchoice for the
 * first vector with that signature. */
int pat_engine_static_choice_v(pat_engine *e, const int64_t *bytes);

/* Under auto, is `site` planned ahead: in the exchange mode, its last call
 * ran a plan-ahead algorithm?  Then the call after it exchanges records
 * from history as soon as it ends, even in an instrumented process, and
 * runs that algorithm again for as long as the guard finds it cheaper than
 * the static choice. */
int pat_engine_plans_ahead(const pat_engine *e, int site);

/* 2. The choice for a call.  A fixed setting is obeyed; auto predicts every
 * algorithm for the arrivals and takes the smallest by the gain rule, or,
 * now and then, one to explore (refine.h).  Settles a pending refinement
 * sample first; otherwise reads the state only. */
void pat_engine_choose(pat_engine *e, const pat_engine_call *call, pat_choice *out);

/* 2a. Before a choice at `site` (with site_calls recorded calls; -1: a new
 * site, nothing to learn): learn from the records (pat_engine_records,
 * filled by the caller from the exchange) what the site's previous call
 * really cost, so that the choice sees it.  Learning after the choice, the
 * measurement of an algorithm reached only the choice after next: without
 * a model file a site judged its first probe by the model's word alone
 * (for NATIVE: the best classic schedule's replay, where Open MPI's own
 * measures far slower) and backed off, and each algorithm it tried ran
 * twice. */
void pat_engine_learn(pat_engine *e, int site, long long site_calls);

/* 3a. An exchanged call at `site` (with site_calls recorded calls) has run
 * what `choice` says, decided after pat_engine_learn (a site the call
 * itself made has nothing to learn): count an exploration, and under auto
 * update the site's mode from the choice's predictions.  predicted_ns: what
 * this rank's own record said of its arrival. */
void pat_engine_commit(pat_engine *e, int site, long long site_calls, const pat_choice *choice, int setting,
                       int64_t predicted_ns);
/* Where the caller puts every rank's previous call (P entries) before
 * pat_engine_learn. */
static inline pat_last_call *pat_engine_records(pat_engine *e) { return e->records; }

/* 3b. Every call that ran, after commit: remember it for the next record at
 * its site, and decide whether the next call exchanges. */
void pat_engine_end_call(pat_engine *e, const pat_engine_end *end);

/* Does the next call exchange (decided by the last end_call)? */
static inline int pat_engine_next_exchanges(const pat_engine *e) { return e->next_exchanges; }

/* This rank's last call at `site` (for its next record there), or NULL if
 * the site (-1: unknown) has none. */
const pat_last_call *pat_engine_last(const pat_engine *e, int site);

/* Replay the last learned call's algorithm under its actual arrivals and
 * fold the ratio of measured to predicted cost into its site's refinement.
 * Commit only notes the sample: the replay costs CPU (an arrival-aware
 * schedule in the fluid model), and at the end of a call it would run while
 * the other ranks' last transfers need the CPU, which on a machine whose
 * kernel carries the network on the ranks' cores slows the call.  Settled
 * before the next choice and before the report reads the refinement, so
 * every decision sees the same state on every rank. */
void pat_engine_settle(pat_engine *e);

/* A site's state, for the report and pat_info (read only). */
static inline const pat_engine_site *pat_engine_site_state(const pat_engine *e, int site) { return &e->site[site]; }

/* The static choice for blocks of `bytes`: the algorithm with the smallest
 * measured balanced time for this P, or NATIVE without one. */
int pat_engine_static_alg(const pat_engine *e, int64_t bytes);

/* Whether running an algorithm predicted at best_ns instead of the static
 * choice predicted at static_ns pays, for arrivals whose last one costs a
 * wait of wait_s: the gain rule above. */
int pat_engine_gain_pays(const pat_engine *e, int64_t static_ns, int64_t best_ns, double wait_s);

/* One exchange's cost (s) as modelled: the model file's measured NATIVE time for a record, or an
 * estimate from the model's latency. */
double pat_engine_exchange_modelled(const pat_engine *e);
/* One exchange's cost (s) as the rules take it: the modelled one, or, once PAT_EXCHANGE_KNOWN
 * agreed samples were measured, their median where it is longer.  An exchanged call pays more than
 * the small all-gather of its records the model counts (the choice is made in it, and the threads
 * of a node share its cores): on the emulated cluster (P = 8) the ranks measured 0.3 ms at 8 KiB
 * and up to 1.0 at 64 KiB where the model said 0.20-0.24, and at 8 KiB, where an exchanged call of
 * MPI's own took 1.4-2.1 ms and the call alone 0.7, the site probed and explored less (BENCHMARKS.md,
 * Balanced calls through the drop-in). */
double pat_engine_exchange_cost(const pat_engine *e);
/* This rank's measured cost of its latest exchange (-1: none): its next record carries it. */
static inline int64_t pat_engine_exchange_mine(const pat_engine *e) { return e->exchange_mine_ns; }

/* ē of alg (s) for these arrivals, as the choice predicts it but without
 * refinement: 0, or -1 if it cannot be predicted. */
int pat_engine_predict(pat_engine *e, int alg, const int64_t *arrival, int64_t bytes, double *ebar);

#endif
