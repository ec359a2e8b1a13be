/*
 * Measured costs per regime, and which candidate a site explores next
 * (auto; engine.c asks).  Pure C.
 *
 * A site's calls fall into two regimes by the exchanged arrivals: balanced
 * (the spread max a - min a under one block's time tau) and imbalanced.
 * The fastest algorithm differs between them (DIRECT or RING balanced,
 * RELAY under imbalance; issue 53), so costs measured in one say nothing of
 * the other.  Per regime and algorithm the last PAT_ARM_SAMPLES costs of the
 * exchange mode's calls (c = mean e - wait for the last arrival, the
 * guardrail's agreed cost, exchange included) are kept; their median is the
 * algorithm's measured cost there, and replaces the model's prediction as
 * soon as there is one (the median: a site's first call of an algorithm
 * builds its schedules and touches buffers cold, and the network stalls a
 * call now and then).
 *
 * Exploration: the candidates are RELAY, DIRECT and RING (each the fastest
 * somewhere; on nodes HRELAY, HRING and RING) and a model file's first pick
 * in the regime, minus the static choice (the guardrail measures that one
 * without an exchange).  The engine runs nothing else but what the site
 * measured and its static choice: every algorithm the model predicts near
 * its pick would make too many candidates, each measured three times.  A
 * candidate with fewer than PAT_EXPLORE_K samples in the call's regime is
 * explored, the one predicted (or measured) cheapest first, unless two
 * samples already put it PAT_EXPLORE_DROP times above the cheapest measured
 * (or the static choice's cost): the median of three tells apart candidates
 * 10% apart on a network as noisy as the emulated one.  Then measured costs
 * alone rank them.  The engine explores only inside the guardrail's budget:
 * from the static choice, each exploration is a trial (the guardrail judges
 * it, and a lost one backs off); in a kept alternative, at most one call in
 * PAT_EXPLORE_EVERY (the kept one's gain pays for the others).  So with C
 * candidates in a regime, every one has its PAT_EXPLORE_K samples (or was
 * dropped) within PAT_EXPLORE_EVERY * PAT_EXPLORE_K * C of the regime's
 * calls in a kept alternative (tests/unit/test_explore.c), while its
 * credit lasts: a kept alternative explores only while the guardrail's
 * credit holds PAT_EXPLORE_CREDIT static calls' cost, so exploring pauses
 * until the kept one's gains pay it back, and never spends the credit that
 * keeps the kept one (tests/unit/test_engine.c, cold model pick).
 *
 * Near the bound: every sample also keeps the call's e-bar over its lower
 * bound (pat_lower_bound_nodes of the call's arrivals, the model's block
 * time).  While the regime's cheapest measured candidate, with
 * PAT_EXPLORE_K samples, is within PAT_NEAR_BOUND of the bound (the median
 * of its ratios), no other candidate can be much faster, and a kept
 * alternative explores at most one call in PAT_EXPLORE_EVERY_NEAR instead:
 * under imbalance each exploration there costs a call at several times the
 * best's distance from the bound, which a short run cannot pay back.
 * Exploration is deferred, not given up: every candidate still has its
 * samples (or was dropped) within PAT_EXPLORE_EVERY_NEAR * (PAT_EXPLORE_K *
 * C + 1) calls: a kept alternative's first exploration too waits its
 * interval from the call the trial was kept.  A bound from a block time
 * that is too short (the ping-pong of two ranks on one node, on nodes) is
 * lower, so its ratios are larger: it explores as before; one from a block
 * time too long shows as e-bar below e_lb (PAT_BOUND_FLOOR), and says
 * nothing.
 *
 * Far candidates wait too: while every candidate still to explore has
 * measured, each sample, PAT_EXPLORE_DROP times the cheapest known (one
 * sample short of dropped), a kept alternative explores at most one call
 * in PAT_EXPLORE_EVERY_NEAR, near the bound or not.  Its second sample may
 * still show the first was a stall or a cold call, so it is taken, later,
 * where a best candidate just over the near-bound threshold (or on nodes,
 * whose bound is never near) would otherwise pay for it at once.  The
 * guarantee is then the near one's: every candidate measured or dropped
 * within PAT_EXPLORE_EVERY_NEAR * (PAT_EXPLORE_K * C + 1) calls.
 *
 * Rechecks: the emulated cluster has slow phases, and a median of five
 * taken in one says nothing of the next: a candidate measured in one would
 * never be measured again (its median stays above the others', so it never
 * runs).  So a candidate with its samples, within PAT_RECHECK_NEAR of the
 * cheapest known, not the cheapest, whose last sample is PAT_RECHECK_AGE
 * calls old, is measured again: one call, and only if that call beat the
 * others, PAT_ARM_SAMPLES calls in all, so that its median is of new samples
 * only (one call in PAT_RECHECK_AGE per near candidate where nothing
 * changed).  And a candidate whose median would replace the one the site
 * runs, but whose last sample is older than PAT_RECHECK_FRESH calls, runs
 * PAT_ARM_SAMPLES calls first (a full recheck): the one it would replace
 * measured its median in the last few calls, maybe in a slow phase that
 * slowed every algorithm.  If a recheck's median (full, or of a first call
 * that beat the others) would replace the one the site runs, that one is
 * measured again first, PAT_ARM_SAMPLES calls of its own, so that both
 * medians are of the same minutes (BENCHMARKS.md, auto as a user runs it).
 * Calls of the two in turn would not do: a call of RELAY after one of
 * DIRECT exchanges on arrival, one of DIRECT after RELAY's had its exchange
 * ahead, so each pays the other's switch.  A recheck left off (its first
 * call did not beat the others, or the credit ran out) is over after
 * PAT_RECHECK_FRESH calls, so that an old sample never mixes with new ones.
 * The engine rechecks from a kept alternative, while its credit holds a
 * static call's cost, and from a static choice the exchange mode promoted
 * (one measured against the candidates); from another static choice each
 * call of a recheck would pay an exchange where that choice wins.
 */
#ifndef PAT_EXPLORE_H
#define PAT_EXPLORE_H

#include <stdint.h>

#include "algorithms/algorithms.h"

#define PAT_ARM_SAMPLES 5     /* costs kept per regime and algorithm (the median of these ranks it) */
#define PAT_EXPLORE_K 3       /* samples a candidate needs in a regime before it is no longer explored */
#define PAT_EXPLORE_EVERY 2   /* a kept alternative explores at most one call in this many */
#define PAT_EXPLORE_DROP 1.5  /* a candidate whose first two samples both measured this many times the
                                 cheapest is not explored further */
#define PAT_NEAR_BOUND 0.30   /* the cheapest candidate's e-bar within this fraction above e_lb: near the bound */
#define PAT_EXPLORE_EVERY_NEAR 16 /* ... where a kept alternative explores at most one call in this many */
#define PAT_BOUND_FLOOR 0.95  /* a median e-bar / e_lb under this: the bound is wrong, not near */
#define PAT_EXPLORE_CREDIT 1.0 /* a kept alternative explores only while the guard's credit holds this many
                                  static calls' cost (an explored call may cost that much more) */
#define PAT_RECHECK_NEAR 0.25 /* a measured candidate within this fraction of the cheapest known... */
#define PAT_RECHECK_AGE 64    /* ...whose last sample is this many of the site's calls old is measured again */
#define PAT_RECHECK_FRESH (2 * PAT_ARM_SAMPLES) /* a candidate that would replace the one the site runs is
                                 measured again first if its last sample is older than this many calls */
#define PAT_REGIME_JITTER 0.10 /* a spread under this fraction of the call's own time is jitter: balanced */

enum { PAT_REGIME_BALANCED = 0, PAT_REGIME_IMBALANCED = 1, PAT_REGIMES = 2 };

typedef struct pat_arm {
  double cost[PAT_ARM_SAMPLES]; /* the last samples (s), a ring */
  double over_bound[PAT_ARM_SAMPLES]; /* each sample's call: e-bar / e_lb (0: no bound) */
  long long at[PAT_ARM_SAMPLES]; /* each sample's site call */
  int n;                        /* samples ever taken */
} pat_arm;

typedef struct pat_arms {
  pat_arm arm[PAT_REGIMES][PAT_ALG_COUNT];
  long long last_explore; /* site call of the last exploration in a kept alternative (-1: none) */
  int model_pick[PAT_REGIMES]; /* the model's pick the regime first saw (-1: none yet): its one
                                  candidate from the model (pat_arms_model_pick) */
  long long explored;     /* explorations (report) */
  int recheck_alg[PAT_REGIMES];   /* the candidate a recheck measures again (-1: none)... */
  int recheck_n[PAT_REGIMES];     /* ...its samples when the recheck started... */
  int recheck_calls[PAT_REGIMES]; /* ...the recheck's calls so far... */
  int recheck_full[PAT_REGIMES];  /* ...whether it runs PAT_ARM_SAMPLES calls whatever its first measured... */
  long long recheck_last[PAT_REGIMES]; /* ...and the site call of its last call */
} pat_arms;

void pat_arms_init(pat_arms *a);

/* The regime of arrivals arrival[0..P-1] (ns) for blocks that take tau_s to
 * move between two ranks: imbalanced when max - min >= tau. */
int pat_regime(int P, const int64_t *arrival, double tau_s);

/* The regime a site files its calls under: imbalanced only when the spread
 * is also at least PAT_REGIME_JITTER of call_s, the site's own call time (its
 * static choice's cost).  At small blocks a block's time is tens of
 * microseconds, under the jitter of a barrier's exits, and with tau alone a
 * balanced site's calls fell into both regimes by chance: each regime
 * explored its candidates afresh, and a candidate measured clearly slower in
 * one was run again in the other.  A rank late by 10% of the call cannot
 * make an arrival-aware schedule gain more than that 10%. */
int pat_regime_at(int P, const int64_t *arrival, double tau_s, double call_s);

/* A measured cost (s) of alg in a regime, at the site's call `now`;
 * over_bound: its call's e-bar / e_lb (0: not known). */
void pat_arms_add(pat_arms *a, int regime, int alg, double cost, double over_bound, long long now);

/* The median of the first n (1 .. PAT_ARM_SAMPLES) of v. */
double pat_median_small(const double *v, int n);

/* The size class of a call of `bytes` among `classes`: the power of two of its bytes, the largest
 * sharing the last class (the measured choices keep their samples per class: the all-reduce's,
 * allreduce_choice.h, and the non-blocking all-gather's, nbc_choice.h). */
static inline int pat_size_class(int64_t bytes, int classes) {
  int k = 0;
  while (k + 1 < classes && (bytes >> (k + 1)) > 0) k++;
  return k;
}

/* The median of alg's kept samples in the regime (s); 0 if it has none. */
int pat_arms_cost(const pat_arms *a, int regime, int alg, double *cost);

/* Is the regime's cheapest measured candidate (PAT_EXPLORE_K samples or
 * more) near the bound: the median of its samples' e-bar / e_lb at most
 * 1 + PAT_NEAR_BOUND, and at least PAT_BOUND_FLOOR? */
int pat_arms_near_bound(const pat_arms *a, int regime, unsigned candidates);

/* The median of alg's samples' e-bar / e_lb in the regime; 0 if it has
 * none or one without a bound. */
int pat_arms_over_bound(const pat_arms *a, int regime, int alg, double *ratio);

/* Calls between explorations in a kept alternative: PAT_EXPLORE_EVERY, or
 * PAT_EXPLORE_EVERY_NEAR near the bound or while every one of the
 * candidates still to explore has measured, each of its samples,
 * PAT_EXPLORE_DROP times the cheapest known (ref as pat_explore_next's). */
int pat_explore_every(const pat_arms *a, int regime, unsigned candidates, double ref);

/* How a call measures a candidate again (pat_choice.recheck). */
enum { PAT_RECHECK_NONE = 0, PAT_RECHECK_START, PAT_RECHECK_START_FULL, PAT_RECHECK_GOING };

/* Measured again (explore.h, Rechecks): the candidate of a recheck under
 * way in the regime, its last call within PAT_RECHECK_FRESH calls of `now`
 * (*going = 1: its second call if its first sample
 * measured below the cheapest other known cost -- the candidates' and ref,
 * the static choice's S --, or it is full; then up to PAT_ARM_SAMPLES
 * calls, a median of new samples only), or one due for a recheck (PAT_EXPLORE_K samples or more, its
 * median within PAT_RECHECK_NEAR of the cheapest known, not the cheapest,
 * its last sample PAT_RECHECK_AGE site calls before `now`: the stalest
 * such), or -1. */
int pat_explore_recheck(const pat_arms *a, int regime, unsigned candidates, double ref, long long now, int *going);

/* The engine ran a recheck's call of alg at the site's call `now` (how:
 * PAT_RECHECK_START, PAT_RECHECK_START_FULL or PAT_RECHECK_GOING). */
void pat_arms_rechecked(pat_arms *a, int regime, int alg, int how, long long now);

/* Must the leader be measured again before alg replaces it: alg's median
 * is of a recheck's calls only (PAT_ARM_SAMPLES of them), and the leader's
 * holds a sample older than any of them (explore.h, Rechecks)? */
int pat_arms_confirm_leader(const pat_arms *a, int regime, int leader, int alg);

/* Was alg's last sample in the regime taken within PAT_RECHECK_FRESH calls of `now`? */
int pat_arms_fresh(const pat_arms *a, int regime, int alg, long long now);

/* Samples alg has in the regime. */
static inline int pat_arms_n(const pat_arms *a, int regime, int alg) { return a->arm[regime][alg].n; }

/* The model's pick for the regime's candidates: the first one it made
 * there (pick: this call's; -1 none).  Near-tied predictions flip their
 * pick with the arrivals' jitter, and exploring each new pick in turn would
 * run most of the portfolio in a site's first calls. */
int pat_arms_model_pick(pat_arms *a, int regime, int pick);

/* The candidates (bit per algorithm) among `allowed` (0: all): RELAY,
 * DIRECT, RING and the model's pick model_best (-1: none), less static_alg.
 * On a hierarchical node map (several nodes, one of several ranks) HRELAY,
 * HRING and RING instead of RELAY, DIRECT and RING: there the flat ones
 * push every rank's blocks through its node's one link, and exploring them
 * costs a call each of about twice the best's time (BENCHMARKS.md, Nodes
 * and the hierarchical algorithms). */
unsigned pat_explore_candidates(int static_alg, int model_best, unsigned allowed, int hierarchical);

/* The candidate to explore next in the regime, or -1: the unexplored one
 * (fewer than PAT_EXPLORE_K samples, not dropped) of lowest est[alg] (its
 * measured cost where it has one, else the model's; ties to the lower
 * index).  ref: the cost the drop rule compares with besides the measured
 * candidates' (the static choice's S; <= 0: none). */
int pat_explore_next(const pat_arms *a, int regime, unsigned candidates, const double *est, double ref);

/* The cheapest cost the drop rule compares with: the cheapest of the candidates measured PAT_EXPLORE_K
 * times in the regime, or ref (> 0: the static choice's S) if lower; 0 when neither is known. */
double pat_arms_cheapest_known(const pat_arms *a, int regime, unsigned candidates, double ref);

/* Is alg barred in the regime: two samples or more, every one of them
 * PAT_EXPLORE_DROP times the cheapest known (the candidates' measured with
 * PAT_EXPLORE_K samples, and ref, the static choice's S)?  A barred candidate
 * is neither explored nor its trial continued there.  The bar reads the
 * measurements as they stand, so it lifts when the regime's conditions
 * change: a static choice that becomes dearer (ref) or a cheapest candidate
 * measured again higher may leave the barred one under PAT_EXPLORE_DROP
 * times the cheapest, and then it is a candidate again. */
int pat_arms_barred(const pat_arms *a, int regime, unsigned candidates, int alg, double ref);

/* Is alg's exploration in the regime decided already: fewer than
 * PAT_EXPLORE_K samples, more than half of PAT_EXPLORE_K of them at least
 * `over`?  Its median of PAT_EXPLORE_K, what ranks it once explored, is
 * then at least `over` whatever its next samples measure. */
int pat_arms_median_at_least(const pat_arms *a, int regime, int alg, double over);

#endif
