/*
 * The guardrail of a call site (auto): measured costs decide whether the site
 * may leave its static choice, and for how long.  docs/guardrail.md states
 * the rule and the bound it holds.
 *
 * A call's measured cost is c = mean_i e_i - W over the ranks (e = exit -
 * arrival, W = mean_i(max a - a_i), the wait for the last arrival that no
 * algorithm avoids), computed from the exchange records, which carry every
 * rank's previous call at the site: every rank sees the same costs and takes
 * the same decisions.  Two arms:
 *
 *  - static: the static choice without an exchange.  Its mean cost S
 *    (smoothed) is the baseline; with a model file its measured balanced
 *    time stands in until the site measures it.
 *  - alternative: a call in the exchange mode (an exchange, then the model's
 *    pick), whatever it ran.
 *
 * A budget account (credit, seconds) opens at CAP * S once S is known,
 * earns BUDGET * S per site call, is charged min(c - S, CAP * S) per
 * alternative call (a gain pays in), and is capped at CAP * S.  The site may
 * leave the static choice only when credit >= 0, S is known and its backoff
 * has run out; it starts a trial: a warm-up call (neither charged nor judged:
 * schedules are built and buffers touched for the first time), then TRIAL
 * judged calls; the trial is kept if their mean cost is below S, else lost.
 * Any time the credit falls below zero the alternative has lost.  A lost
 * trial sends the site back to the static choice and doubles its backoff
 * (BACKOFF_FIRST .. BACKOFF_MAX calls).  Against a model file's S not yet
 * measured, a trial that does not win is not lost: the site runs the static
 * choice until the next probe has measured S, and tries again against that.
 *
 * S is measured only on static calls, so a kept alternative is judged
 * against the S of before it was kept.  Where that S was measured high (a
 * site's first calls, a disturbed moment), an alternative slower than the
 * static choice was kept for the rest of the run.  So a kept alternative returns
 * to the static choice after REFRESH_FIRST calls, doubling each time up to
 * REFRESH_MAX: not a loss (no backoff); the next static sample lowers S if
 * it is lower, and a new trial judges the alternative against that.  S is
 * sampled one static call per probe, and a network stalls a call now and
 * then for many times its cost (in Open MPI's own all-gather, and in plain
 * MPI too): a sample counts as at most SPIKE times S, so that one stalled
 * call does not make every alternative look cheaper.
 *
 * Predictions weighed by their error: per call the records give every rank's
 * predicted and actual arrival; err = mean_i |d_i - mean d| (d = predicted -
 * actual), spread = mean_i |a_i - mean a|.  Arrival-aware algorithms may run
 * only while err <= TRUST * spread (smoothed); ratio 1 means the predictions
 * explain nothing of the arrival pattern.  A site found unpredictable is
 * distrusted for a backoff (DISTRUST_FIRST .. BACKOFF_MAX calls, doubling
 * each time it is found so again), during which it neither runs
 * arrival-aware algorithms nor probes; afterwards one new measurement
 * decides.  So an unpredictable site runs at most about two arrival-aware
 * calls per distrust period (the one that is measured and the one decided
 * before its measurement arrives).
 *
 * Pure C: no MPI, no clocks; the caller passes costs and site call numbers.
 */
#ifndef PAT_GUARDRAIL_H
#define PAT_GUARDRAIL_H

enum pat_guard_state {
  PAT_GUARD_STATIC = 0,  /* the static choice; may try when allowed */
  PAT_GUARD_EXPLORING,   /* a trial of the alternative */
  PAT_GUARD_KEPT,        /* the alternative measured cheaper: kept while the credit lasts */
  PAT_GUARD_BACKOFF      /* the alternative lost: static until next_try (of the regime) */
};

#define PAT_GUARD_BUDGET 0.03      /* the alternative may cost at most 3% above static over a window... */
#define PAT_GUARD_CAP 2.0          /* ...plus a credit of at most 2 static calls' cost */
#define PAT_GUARD_TRIAL 4          /* alternative calls measured before a verdict */
#define PAT_GUARD_BACKOFF_FIRST 16 /* calls of static after the first lost trial */
#define PAT_GUARD_BACKOFF_MAX 1024 /* at most: a trial every 1024 calls in the long run */
#define PAT_GUARD_WEIGHT 0.25      /* weight of a new sample of the static cost... */
#define PAT_GUARD_SPIKE 2.0        /* ...counted as at most this many times S */
#define PAT_GUARD_TRUST 0.5        /* predictions must explain half of the arrival spread */
#define PAT_GUARD_ERR_WEIGHT 0.3   /* weight of a new prediction error sample */
#define PAT_GUARD_DISTRUST_FIRST 16 /* calls without arrival-awareness after predictions first failed */
#define PAT_GUARD_REFRESH_FIRST 256 /* a kept alternative returns to static after this many calls... */
#define PAT_GUARD_REFRESH_MAX 1024  /* ...doubling each time, to measure S again */

/* Trials back off per regime of the arrivals (balanced, imbalanced; the
 * regimes of explore.h): a trial lost at balanced arrivals says nothing of
 * what would win once a rank is late.  With one backoff per site, a site
 * that lost a few balanced trials and then turned imbalanced would run its
 * static choice for the grown backoff before its first imbalanced trial
 * (tests/unit/test_engine.c, planted). */
#define PAT_GUARD_REGIMES 2

typedef struct pat_guard {
  int state;           /* enum pat_guard_state */
  int has_prior;       /* s_cost is a model file's balanced time, not yet measured */
  int prior_retried;   /* a trial did not win against that prior: S is measured before the next verdict */
  int regime;          /* the regime of the site's last learned call (set by the engine) */
  long long next_try[PAT_GUARD_REGIMES]; /* site call number from which a trial may start, per regime */
  int backoff[PAT_GUARD_REGIMES];        /* calls of static after the next lost trial, per regime */
  double s_cost;       /* S (s): the static choice's measured cost, smoothed */
  long long s_n;       /* its samples */
  double credit;       /* budget account (s) */
  double trial_sum;    /* the current trial's judged costs (s) and calls */
  int trial_n;
  int warmed;          /* the trial's first (warm-up) call has been measured */
  double err, spread;  /* smoothed prediction error and arrival spread (s) */
  int err_n;           /* their samples */
  int distrusted;      /* predictions failed: no arrival-aware algorithm before distrust_until */
  long long distrust_until;
  int distrust_backoff;
  long long refresh_at; /* site call at which a kept alternative returns to static to measure S again */
  int refresh_interval; /* calls of the next kept alternative before its refresh */
  int refreshing;       /* the next static sample lowers S if lower, instead of being smoothed into it */
  long long refreshes;  /* for the report */
  long long remeasures; /* trials that did not win against a model file's S, which was then measured (tests) */
  /* for the report */
  double alt_sum;      /* alternative calls' costs (s) and calls */
  long long alt_n;
  long long trials, lost;
} pat_guard;

/* prior_s > 0: the static choice's balanced time from a model file, which
 * stands in for S until the site measures it; 0: none. */
void pat_guard_init(pat_guard *g, double prior_s);

/* The site's static choice changed (the engine's promotion): its cost is
 * not known, prior_s stands in for it (as pat_guard_init's); the state
 * about predictions and the report's counts stay. */
void pat_guard_new_static(pat_guard *g, double prior_s);

/* Is S known (measured, or a model file's prior)? */
int pat_guard_knows_static(const pat_guard *g);

/* Does the guard wait for a measurement of S (a refresh, or a trial that
 * did not win against the model file's S): the next probe should bring a
 * static call's records. */
int pat_guard_wants_static_sample(const pat_guard *g);

/* May the site be in the exchange mode at site call `call` with arrivals of
 * `regime` (a trial or a kept alternative under way, or one allowed to
 * start in that regime)? */
int pat_guard_may_leave(const pat_guard *g, long long call, int regime);

/* The earliest site call at which a trial may start in some regime. */
long long pat_guard_next_try(const pat_guard *g);

/* May arrival-aware algorithms run at site call `call` (predictions trusted,
 * or a distrust period over)? */
int pat_guard_trusts_predictions(const pat_guard *g, long long call);

/* The site enters the exchange mode at `call`: a trial starts. */
void pat_guard_enter(pat_guard *g, long long call);

/* The policy left the exchange mode on its own at `call` (nothing more to
 * gain).  A trial not yet kept counts as lost. */
void pat_guard_leave(pat_guard *g, long long call);

/* A trial under way ends without a verdict: the site checked a model file's
 * static choice against MPI's own, and the check is done (engine.h, Model
 * check).  Not a loss: no backoff, since what it measured says nothing
 * against the alternatives still to try. */
void pat_guard_stop(pat_guard *g);

/* A measured call of the site, learned at site call `call`: of the static
 * choice without an exchange (alt = 0) or of the exchange mode (alt = 1);
 * cost: c (s).  Returns 1 if the site must return to the static choice now:
 * the alternative has lost (the guard is in BACKOFF, or STATIC when the
 * trial ended before S was known, next_try set), or a kept one is refreshed
 * (STATIC, a trial allowed from the next call). */
int pat_guard_measured(pat_guard *g, long long call, int alt, double cost);

/* The prediction error and arrival spread of a measured call (s), learned
 * at site call `call`. */
void pat_guard_prediction(pat_guard *g, long long call, double err, double spread);

/* One call of the site has ended: the budget accrues. */
void pat_guard_tick(pat_guard *g);

/* "kept, 1.20 ms vs static 2.31 ms, 1 trial lost" (report). */
void pat_guard_describe(const pat_guard *g, char *out, int size);

#endif
