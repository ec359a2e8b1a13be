/* The decision engine (decide/engine.h) agrees on every rank, does its job,
 * and decides as the runtime's policy did before it became one engine.
 *
 * Ranks are simulated without MPI: each has its own engine and call-site
 * table, its own local times (arrivals, exits, predictions differ), and sees
 * the same agreed inputs a real run gives every rank (call sizes, exchanged
 * records).  For random call sequences every rank must take the same
 * exchange / no-exchange decision, make the same choice, and plan the same
 * next call -- also when some ranks decide ahead (as a background thread
 * does) and then again in the call.  Then the engine's purpose: a balanced
 * site probes ever more rarely, an imbalanced one exchanges and runs
 * arrival-aware algorithms, and a site of tiny blocks never probes.
 *
 * The decision log: a hash of every simulated call's decisions (exchange,
 * algorithm, root, kept, explored, next exchange, site mode).  The expected
 * values are what the runtime's policy (src/runtime/policy.c and decide.c,
 * which the engine replaced at the commit that added this file) decided
 * for the same sequences: the engine reproduces them call by call.  (The
 * measured sequences were later cut from 6 trials of 400 calls to 2 of 200,
 * for CI's time; the policy's test_policy.c at 6a47bae, cut alike, prints
 * the same three new values.)  A change that means to change decisions
 * updates them, and says so: the values below are since the engine learns
 * a call's cost from the next exchange's records before the choice they
 * lead to, not after it (pat_engine_learn; test_native_measured), which
 * changes every part's sequence from each site's second exchange on, and
 * since a site whose predictions are distrusted may still run RELAY (a
 * plan-ahead algorithm: its prediction only orders its sends), and since
 * RELAY's send budget at P <= 8 is 320 messages, not 160
 * (pat_relay_max_sends: its 1 MiB blocks in 28 pieces, not 21), which
 * changes its predictions in the measured parts.  The engine's static
 * prediction of an arrival-aware static choice (an all-gatherv's) changes
 * none of these sequences: the same values with and without it.  And since
 * a kept alternative is refreshed (decide/guardrail.h: back to the static
 * choice after 256, 512, ... calls, a probe two calls on to measure S
 * anew, a new trial), which changes every part but the agreement from a
 * site's first refresh on; and since a classic algorithm the exchange mode
 * ran PAT_PROMOTE_CALLS calls in a row, measured cheaper, becomes the
 * static choice (engine.h, Promotion: the measured parts; the simulated
 * static calls run the site's static choice, pat_engine_static_choice);
 * and since the replay moves a pair's transfers one after the other (one
 * connection per pair, model.h), which changes RELAY's predictions (its
 * pieces to one relay no longer all end at once) and so every part; and
 * since measurements win and each site explores its candidates per regime
 * (decide/explore.h: a measured cost replaces the prediction, the static
 * choice's S the static prediction, and RELAY, DIRECT, RING and the model's
 * pick are each measured PAT_EXPLORE_K times, from the static choice as a
 * trial), which changes every part from a site's first probe on; and
 * since exploration is bounded (engine.h, PAT_EXPLORE_BUDGET: a site
 * explores only a candidate whose hoped gain over its calls so far pays for
 * its trial, while its exploring calls' losses stay within 5% of its time
 * plus one static call; a trial whose candidate is barred or whose budget is
 * spent ends), the regime is balanced under 10% of the call's own time
 * (explore.h, pat_regime_at), a model file's static choice is checked
 * against NATIVE at a site's third call, and measured ratios are carried to
 * sites of nearby sizes, which changes every part; and since test_unpredictable
 * runs 1,500 calls at each P, not 3,000 (for CI's time: the replays take most
 * of it), which changes its part and every one after it; and since a trial is
 * judged and cut against S as measured, not a model file's (the exploration
 * budget's charges and a barred candidate's reference; the guard's account
 * opens full when S is first measured), and a site at its static choice tries
 * what its regime measured cheaper than S before it explores the others
 * (test_stale_model), which changes every part; and since, where a model
 * file measured a site's static choice, the algorithms the site never ran
 * are predicted with the ratio its libpat schedules measured against the
 * model (engine.c, pat_engine_ratios), which changes the parts with levels
 * (plan-ahead, always, never). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/engine.h"
#include "model/measured.h"
#include "model/select.h"
#include "pat/sites.h"
#include "testutil.h"

#define MAXP 16
#define MS 1000000LL
#define RECORD_BYTES 72 /* an exchange record's size (the runtime's pat_xrec on x86-64) */

static unsigned long long rng = 88172645463325252ull;
static double urand(void) { /* xorshift: the same sequence on every run */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static uint64_t decision_log = 1469598103934665603ull; /* FNV-1a of every call's decisions */
static void log_decision(long long v) {
  for (int i = 0; i < 8; i++) {
    decision_log ^= (uint64_t)(v >> (8 * i)) & 0xff;
    decision_log *= 1099511628211ull;
  }
}

static uint64_t hash_bytes(const void *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= ((const unsigned char *)p)[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* The job: the broadcast model and the settings every engine is made with. */
static pat_model_params model;
static int job_plan_ahead, job_exchange_always;
static int node_of[MAXP]; /* every rank on a node of its own */
static int job_have_model = 1; /* the model is a model file's (0: PAT_Init's ping-pong estimate) */

/* One simulated rank: what the runtime keeps for the engine. */
typedef struct sim_rank {
  pat_engine e;
  pat_sites sites;
  pat_choice choice;     /* the choice of the call under way */
} sim_rank;

/* What every rank contributed to an exchange: its predicted arrival and its
 * last call at the site. */
typedef struct record {
  int64_t arrival_ns;
  pat_last_call prev;
} record;

#define PAT_LATE_OUT_LIBPAT (-2) /* sim.late_out_alg: every algorithm's but NATIVE's */

typedef struct sim {
  int P;
  sim_rank *rank[MAXP];
  int64_t now; /* common clock of the simulation */
  double pred_noise_ms; /* predictions are the arrivals plus U[0, this] */
  double pred_random_ms; /* > 0: predictions are drawn in [now, now + this], whatever the arrivals */
  double native_factor;  /* > 0: NATIVE costs this times what the model predicts (1: as predicted) */
  int late_out_alg;      /* >= 0: this algorithm's last rank (P - 1) leaves late_out_factor times its cost later;
                            PAT_LATE_OUT_LIBPAT: every algorithm's but NATIVE's */
  double late_out_factor;
  const double (*planted)[PAT_ALG_COUNT]; /* non-NULL: what each algorithm costs (ms) per regime (explore.h) */
  double cold_factor; /* > 0: the first call costs this times its planted cost (connections made, buffers touched) */
  double exchange_factor; /* > 0: an exchange costs this times the modelled one (1: as modelled) */
  int slow_alg;          /* with slow_until > 0: this algorithm's calls (-1: every one's) from call slow_from to
                            before call slow_until cost... */
  long long slow_from, slow_until;
  double slow_factor;    /* ...this times their planted cost (the network's slow phases) */
  int first_on_arrival;  /* a site's first call decides on its actual arrivals after the last one, as the runtime's */
  int all_ahead;         /* every even rank decides ahead and again (else one rank a call, in turn) */
  long long exchanged, calls, arrival_aware, prediction_bets, kept;
  long long plan_ahead_runs; /* exchanged calls that ran a plan-ahead algorithm (kept or chosen) */
  long long explored;        /* exchanged calls that ran a candidate to measure it */
} sim;

static sim_rank *make_rank(int P) {
  sim_rank *r = calloc(1, sizeof *r);
  pat_engine_config cfg = {.P = P,
                           .mp = &model,
                           .have_model = job_have_model,
                           .node = node_of,
                           .exchange_always = job_exchange_always,
                           .plan_ahead = job_plan_ahead,
                           .record_bytes = RECORD_BYTES};
  if (pat_engine_init(&r->e, &cfg) != 0) abort();
  pat_sites_init(&r->sites);
  return r;
}

static void free_rank(sim_rank *r) {
  pat_engine_free(&r->e);
  free(r);
}

/* What every rank contributes: its arrival (predicted, with its own error)
 * and what it measured in its previous call. */
static void exchange(sim *s, const int64_t *arrival, int64_t bytes, record *all) {
  for (int q = 0; q < s->P; q++) {
    int64_t predicted = s->pred_random_ms > 0 ? s->now + (int64_t)(urand() * s->pred_random_ms * MS) /* unrelated */
                                              : arrival[q] + (int64_t)(urand() * s->pred_noise_ms * MS);
    all[q].arrival_ns = predicted;
    const pat_last_call *l = pat_engine_last(&s->rank[q]->e, pat_sites_lookup(&s->rank[q]->sites, bytes));
    all[q].prev = l ? *l : (pat_last_call){.call = -1, .alg = -1};
    all[q].prev.exchange_ns = pat_engine_exchange_mine(&s->rank[q]->e); /* at any site, as the runtime's */
  }
}

/* What an exchange costs the simulated world's calls (s), what each rank measures of it. */
static double world_exchange(const sim *s) {
  return pat_engine_exchange_modelled(&s->rank[0]->e) * (s->exchange_factor > 0 ? s->exchange_factor : 1.0);
}

/* Rank r's choice for the call from the exchanged records, after learning
 * from them (as the runtime's pat_plan_decide does). */
static void choose(sim *s, int r, int site, int64_t bytes, const record *all, int kind) {
  sim_rank *sr = s->rank[r];
  int64_t arrival[MAXP];
  pat_last_call *prev = pat_engine_records(&sr->e);
  for (int q = 0; q < s->P; q++) {
    arrival[q] = all[q].arrival_ns;
    prev[q] = all[q].prev;
  }
  pat_engine_learn(&sr->e, site, site >= 0 ? sr->sites.site[site].calls : 0);
  pat_engine_call call = {.site = site,
                          .site_calls = site >= 0 ? sr->sites.site[site].calls : 0,
                          .setting = PAT_ALG_AUTO,
                          .bytes = bytes,
                          .arrival = arrival,
                          .bg_start_ns = s->now,
                          .records = kind};
  if (site < 0 && s->first_on_arrival) {
    call.records = PAT_RECORDS_ACTUAL;
    for (int q = 0; q < s->P; q++)
      if (arrival[q] > call.bg_start_ns) call.bg_start_ns = arrival[q];
  }
  pat_engine_choose(&sr->e, &call, &sr->choice);
}

/* One call of `bytes` per block with these arrivals; returns 1 if every rank agreed. */
static int call(sim *s, int64_t bytes, const int64_t *arrival) {
  int site[MAXP] = {0}, fresh[MAXP] = {0}, ex[MAXP] = {0}, alg[MAXP] = {0};
  record all[MAXP];
  int agreed = 1;
  for (int r = 0; r < s->P; r++) {
    sim_rank *sr = s->rank[r];
    site[r] = pat_sites_lookup(&sr->sites, bytes);
    fresh[r] = site[r] < 0;
    ex[r] = pat_engine_exchanges(&sr->e, PAT_ALG_AUTO, fresh[r]);
    if (ex[r] != ex[0]) agreed = 0;
  }
  if (ex[0]) exchange(s, arrival, bytes, all);
  uint64_t digest0 = 0;
  for (int r = 0; r < s->P; r++) {
    sim_rank *sr = s->rank[r];
    if (ex[0]) {
      /* decided ahead, as a background thread does, then in the call: the same.  Every even rank in
       * the agreement test; elsewhere one rank a call, in turn (each choice replays the model's
       * candidates, most of this test's time, and the second adds only this check) */
      if (s->all_ahead ? r % 2 == 0 : r == s->calls % s->P) {
        choose(s, r, site[r], bytes, all, PAT_RECORDS_HISTORY);
        uint64_t ahead = hash_bytes(&sr->choice, sizeof sr->choice);
        choose(s, r, site[r], bytes, all, PAT_RECORDS_HISTORY);
        if (hash_bytes(&sr->choice, sizeof sr->choice) != ahead) agreed = 0;
      } else {
        choose(s, r, site[r], bytes, all, PAT_RECORDS_HISTORY);
      }
      alg[r] = sr->choice.alg;
      uint64_t d = hash_bytes(&sr->choice, sizeof sr->choice);
      if (r == 0) digest0 = d;
      if (d != digest0) agreed = 0;
    } else {
      alg[r] = pat_engine_static_choice(&sr->e, site[r], bytes); /* the site's: promotion may change it */
    }
    if (alg[r] != alg[0]) agreed = 0;
  }
  /* run: the world behaves as the model says, within 10%: every rank leaves
   * when the last one has arrived plus the algorithm's predicted cost (and
   * the exchange's, if the call exchanged) */
  int64_t last = arrival[0];
  for (int r = 1; r < s->P; r++)
    if (arrival[r] > last) last = arrival[r];
  double cost;
  if (s->planted) { /* the model's replay is not asked: the planted cost replaces it */
    cost = 1e-3 * s->planted[pat_regime(s->P, arrival, pat_model_cost(model.dflt.inter, (double)bytes, 1.0))][alg[0]];
  } else {
    double predicted;
    if (pat_engine_predict(&s->rank[0]->e, alg[0], arrival, bytes, &predicted) != 0) predicted = 0.001;
    cost = predicted - pat_select_wait(s->P, arrival);
    if (alg[0] == PAT_ALG_NATIVE && s->native_factor > 0) cost *= s->native_factor;
  }
  if (s->cold_factor > 0 && s->calls == 0) cost *= s->cold_factor;
  if (s->slow_until > 0 && (s->slow_alg < 0 || alg[0] == s->slow_alg) && s->calls >= s->slow_from &&
      s->calls < s->slow_until)
    cost *= s->slow_factor;
  if (cost < 1e-6) cost = 1e-6;
  if (ex[0]) cost += world_exchange(s); /* an exchange is paid in the call */
  for (int r = 0; r < s->P; r++) {
    sim_rank *sr = s->rank[r];
    int64_t exit_ns = last + (int64_t)(cost * (0.9 + 0.2 * urand()) * 1e9);
    if ((alg[0] == s->late_out_alg || (s->late_out_alg == PAT_LATE_OUT_LIBPAT && alg[0] != PAT_ALG_NATIVE)) &&
        r == s->P - 1)
      exit_ns += (int64_t)(s->late_out_factor * cost * 1e9);
    if (fresh[r]) {
      int made;
      site[r] = pat_sites_find(&sr->sites, (int)bytes, bytes, &made);
      pat_engine_new_site(&sr->e, site[r], bytes, NULL);
    }
    if (ex[0]) {
      pat_engine_commit(&sr->e, site[r], sr->sites.site[site[r]].calls, &sr->choice, PAT_ALG_AUTO,
                        all[r].arrival_ns);
    }
    pat_sites_record(&sr->sites, site[r], arrival[r], exit_ns);
    int next = pat_sites_next(&sr->sites);
    pat_engine_end end = {.site = site[r],
                          .call = sr->sites.calls - 1,
                          .setting = PAT_ALG_AUTO,
                          .alg = alg[r],
                          .arrival_ns = arrival[r],
                          .exit_ns = exit_ns,
                          .exchange_ns = ex[0] && !fresh[r] ? (int64_t)(world_exchange(s) * 1e9) : -1,
                          .next_site = next,
                          .next_site_calls = next >= 0 ? sr->sites.site[next].calls : 0};
    pat_engine_end_call(&sr->e, &end);
    if (pat_engine_next_exchanges(&sr->e) != pat_engine_next_exchanges(&s->rank[0]->e)) agreed = 0;
    if (site[r] != site[0]) agreed = 0;
  }
  const pat_engine *e0 = &s->rank[0]->e;
  log_decision(ex[0]);
  log_decision(alg[0]);
  log_decision(ex[0] ? s->rank[0]->choice.root : -1);
  log_decision(ex[0] ? s->rank[0]->choice.kept : -1);
  log_decision(ex[0] ? s->rank[0]->choice.explored : -1);
  log_decision(pat_engine_next_exchanges(e0));
  log_decision(pat_engine_site_state(e0, site[0])->mode);
  s->calls++;
  s->exchanged += ex[0];
  s->arrival_aware += (pat_algorithms[alg[0]].flags & PAT_ALGF_ARRIVAL) != 0;
  /* the ones that bet on the predictions (a plan-ahead algorithm does not) */
  s->prediction_bets += (pat_algorithms[alg[0]].flags & (PAT_ALGF_ARRIVAL | PAT_ALGF_PLAN_AHEAD)) == PAT_ALGF_ARRIVAL;
  s->kept += ex[0] && s->rank[0]->choice.kept;
  s->explored += ex[0] && s->rank[0]->choice.explored;
  s->plan_ahead_runs += ex[0] && (pat_algorithms[alg[0]].flags & PAT_ALGF_PLAN_AHEAD);
  s->now = last + 3 * MS;
  return agreed;
}

/* Arrivals: balanced (jitter only), or one rank late by `late` ms. */
static void arrivals(sim *s, int64_t *a, double late_ms) {
  int late_rank = (int)(urand() * s->P);
  for (int r = 0; r < s->P; r++) {
    a[r] = s->now + (int64_t)(urand() * 0.05 * MS);
    if (r == late_rank) a[r] += (int64_t)(late_ms * MS);
  }
}

static void sim_start(sim *s, int P) {
  memset(s, 0, sizeof *s);
  s->late_out_alg = -1;
  s->P = P;
  for (int r = 0; r < P; r++) s->rank[r] = make_rank(P);
  s->now = 1000 * MS;
  s->pred_noise_ms = 0.2;
}

static void sim_end(sim *s) {
  for (int r = 0; r < s->P; r++) free_rank(s->rank[r]);
}

static int test_agreement(void) {
  const int64_t sizes[] = {8, 4096, 65536, 262144, 1 << 20};
  for (int trial = 0; trial < 20; trial++) {
    sim s;
    sim_start(&s, 2 + trial % 7);
    s.all_ahead = 1;
    int64_t a[MAXP];
    for (int k = 0; k < 300; k++) {
      int64_t bytes = sizes[(int)(urand() * 5)];
      if (urand() < 0.7 && k > 0) bytes = sizes[k % 2 ? 1 : 3]; /* mostly alternating sites */
      arrivals(&s, a, urand() < 0.4 ? 20.0 * urand() : 0.0);
      CHECK(call(&s, bytes, a), "trial %d call %d: ranks disagree", trial, k);
    }
    sim_end(&s);
  }
  return 0;
}

/* A balanced site probes ever more rarely; an imbalanced one exchanges and
 * runs arrival-aware algorithms; tiny blocks never probe. */
static int test_purpose(void) {
  int64_t a[MAXP];
  sim s;
  sim_start(&s, 8);
  for (int k = 0; k < 2000; k++) {
    arrivals(&s, a, 0.0);
    call(&s, 262144, a);
  }
  /* probes after 8, 16, 32, 64, then every 64 calls: about 2000 / 64 */
  /* and one exploration trial (a warm-up and PAT_GUARD_TRIAL calls) per candidate: RELAY, DIRECT, RING, the
   * model's pick (explore.h) */
  CHECK(s.exchanged <= 40 + 4 * (1 + PAT_GUARD_TRIAL), "balanced: %lld of 2000 calls exchanged (probes should back off)",
        s.exchanged);
  CHECK(s.exchanged >= 3, "balanced: %lld exchanges (the first call and some probes expected)", s.exchanged);
  long long before = s.exchanged, aa_before = s.arrival_aware;
  for (int k = 0; k < 300; k++) {
    arrivals(&s, a, 50.0); /* one rank 50 ms late: many block times at 256 KiB */
    call(&s, 262144, a);
  }
  /* found by the next probe, at most PAT_PROBE_MAX calls later; then every call exchanges */
  CHECK(s.exchanged - before >= 300 - PAT_PROBE_MAX - 1, "imbalanced: only %lld of 300 calls exchanged",
        s.exchanged - before);
  CHECK(s.arrival_aware - aa_before >= 200, "imbalanced: only %lld of 300 calls arrival-aware",
        s.arrival_aware - aa_before);
  before = s.exchanged;
  for (int k = 0; k < 2000; k++) {
    arrivals(&s, a, 0.0);
    call(&s, 262144, a);
  }
  CHECK(s.exchanged - before <= 45, "balanced again: %lld of 2000 calls exchanged", s.exchanged - before);
  sim_end(&s);

  sim_start(&s, 8);
  for (int k = 0; k < 1000; k++) {
    arrivals(&s, a, 20.0);
    call(&s, 4, a); /* 4 bytes: a block costs less than an exchange */
  }
  CHECK(s.exchanged == 1, "tiny blocks: %lld exchanges (only the first call should)", s.exchanged);
  sim_end(&s);
  return 0;
}

/* Arrivals redrawn at random every call, predictions that know nothing of
 * them: arrival-aware algorithms that bet on the predictions run at most
 * about twice per distrust period (guardrail.h), and the periods double up
 * to PAT_GUARD_BACKOFF_MAX calls.  A plan-ahead algorithm (RELAY) needs no
 * prediction: chosen even while the predictions are distrusted, and kept
 * where it plans ahead, it exchanges every call, judged by its cost alone
 * (in this world, what the model predicts); the other calls exchange
 * rarely. */
static int test_unpredictable(void) {
  int64_t a[MAXP];
  sim s;
  for (int P = 3; P <= 8; P += 5) {
    sim_start(&s, P);
    s.pred_random_ms = 20.0;
    const int n = 1500;
    for (int k = 0; k < n; k++) {
      for (int r = 0; r < P; r++) a[r] = s.now + (int64_t)(urand() * 20.0 * MS);
      CHECK(call(&s, 262144, a), "P=%d call %d: ranks disagree", P, k);
    }
    int periods = 0;
    for (int b = PAT_GUARD_DISTRUST_FIRST, sum = 0; sum < n; b = b * 2 > PAT_GUARD_BACKOFF_MAX ? b : b * 2) {
      sum += b;
      periods++;
    }
    long long bound = 2 * (periods + 1) + 2;
    CHECK(s.prediction_bets <= bound, "P=%d: %lld calls bet on predictions out of %d (bound %lld)", P,
          s.prediction_bets, n, bound);
    CHECK(s.exchanged - s.plan_ahead_runs <= n / 8,
          "P=%d: %lld of %d calls exchanged, %lld of them ran a plan-ahead algorithm (%lld kept)", P, s.exchanged, n,
          s.plan_ahead_runs, s.kept);
    sim_end(&s);
  }
  return 0;
}

/* A call's cost is learned from the next exchange's records before the
 * choice they lead to, and replayed (settled) by that choice, not at the
 * end of the call (its replay would take the CPU from the other ranks'
 * last transfers): the choice sees the sample, and learning again from the
 * same records, or a second settle, adds nothing. */
static int test_settle(void) {
  int64_t a[MAXP];
  sim s;
  sim_start(&s, 4);
  int settled = 0;
  for (int k = 0; k < 300; k++) {
    arrivals(&s, a, 30.0);
    CHECK(call(&s, 262144, a), "call %d: ranks disagree", k);
    sim_rank *sr = s.rank[k % 4];
    pat_engine *e = &sr->e;
    int site = pat_sites_lookup(&sr->sites, 262144);
    CHECK(!e->unsettled.pending, "call %d: a sample left pending after the call", k);
    if (!pat_engine_next_exchanges(e)) continue; /* no records: nothing is learned */
    /* the records the next exchange carries: every rank's last call here */
    pat_last_call *prev = pat_engine_records(e);
    for (int q = 0; q < s.P; q++) {
      prev[q] = *pat_engine_last(&s.rank[q]->e, pat_sites_lookup(&s.rank[q]->sites, 262144));
      prev[q].exchange_ns = pat_engine_exchange_mine(&s.rank[q]->e); /* at any site, as the runtime's */
    }
    long long calls = sr->sites.site[site].calls;
    pat_engine_learn(e, site, calls);
    if (!e->unsettled.pending) continue; /* learned already: this rank's choice in the call saw it */
    int alg = e->unsettled.alg;
    const pat_refine *rf = &pat_engine_site_state(e, site)->refine;
    int before = rf->samples[alg];
    pat_choice choice;
    pat_engine_call c = {.site = site,
                         .site_calls = calls,
                         .setting = PAT_ALG_AUTO,
                         .bytes = 262144,
                         .arrival = a,
                         .bg_start_ns = s.now,
                         .records = PAT_RECORDS_HISTORY};
    pat_engine_choose(e, &c, &choice);
    CHECK(!e->unsettled.pending, "call %d: the choice did not settle the refinement", k);
    CHECK(rf->samples[alg] == before + 1, "call %d: %d samples of %s after settling, %d before", k, rf->samples[alg],
          pat_algorithms[alg].name, before);
    pat_engine_settle(e);
    pat_engine_learn(e, site, calls);
    CHECK(!e->unsettled.pending && rf->samples[alg] == before + 1,
          "call %d: learning or settling again added a sample", k);
    settled++;
  }
  CHECK(settled >= 100, "only %d of 300 imbalanced calls left a sample to learn", settled);
  sim_end(&s);
  return 0;
}

/* A site's first call exchanges on arrival, so its plan comes after the
 * last arrival.  What the engine learns from it must still be what a plan
 * made ahead would gain: with one rank 50 ms late the choice's predictions
 * show a gain that pays (before, they never did, and auto waited
 * PAT_PROBE_FIRST calls for its first probe before it tried anything). */
static int test_first_call_gain(void) {
  sim s;
  sim_start(&s, 8);
  int64_t a[MAXP], last = 0;
  arrivals(&s, a, 50.0);
  for (int r = 0; r < s.P; r++)
    if (a[r] > last) last = a[r];
  pat_engine *e = &s.rank[0]->e;
  pat_engine_call call = {.site = -1,
                          .setting = PAT_ALG_AUTO,
                          .bytes = 262144,
                          .arrival = a,
                          .bg_start_ns = last,
                          .records = PAT_RECORDS_ACTUAL};
  pat_choice c;
  pat_engine_choose(e, &call, &c);
  int best = c.static_alg;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (c.ebar_ns[alg] < c.ebar_ns[best]) best = alg;
  CHECK(best != c.static_alg && pat_engine_gain_pays(e, c.ebar_ns[c.static_alg], c.ebar_ns[best], c.wait),
        "a first call on arrival, one rank 50 ms late: best %s, no gain over %s that pays", pat_algorithms[best].name,
        pat_algorithms[c.static_alg].name);
  sim_end(&s);
  return 0;
}

/* Without a model file NATIVE is predicted as the best classic schedule.
 * Where it measures 1.7x that (Open MPI's all-gather at P = 16 on the
 * emulated cluster, 1M: 280 ms against RING's 200), the first probe learns
 * its cost before it chooses, so auto leaves NATIVE within a few calls
 * (learning after the choice, the probe found no gain by the model's word,
 * the site backed off 16 calls, and auto left NATIVE at the 20th call).
 * Where NATIVE costs what it is predicted to, auto stays with it, but for
 * one exploration trial of each candidate (explore.h): without a model
 * file's levels nothing says the others are not faster. */
static int test_native_measured(void) {
  int64_t a[MAXP];
  for (int slow = 0; slow < 2; slow++) {
    sim s;
    sim_start(&s, 8);
    s.native_factor = slow ? 1.7 : 1.0;
    int first_other = -1, native = 0;
    const int n = 60;
    long long exchanged_before_last = 0;
    for (int k = 0; k < n; k++) {
      arrivals(&s, a, 0.0);
      if (k == n - 30) exchanged_before_last = s.exchanged;
      CHECK(call(&s, 1 << 20, a), "NATIVE x%.1f, call %d: ranks disagree", s.native_factor, k);
      int alg = pat_engine_last(&s.rank[0]->e, 0)->alg;
      if (alg == PAT_ALG_NATIVE)
        native++;
      else if (first_other < 0)
        first_other = k;
    }
    const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
    printf("NATIVE x%.1f: first other algorithm at call %d, %d of %d calls NATIVE; static choice %s (%d promotions), "
           "%lld of the last 30 calls exchanged\n",
           s.native_factor, first_other, native, n, pat_algorithms[sp->static_alg].name, sp->promotions,
           s.exchanged - exchanged_before_last);
    /* a NATIVE slower than its model is left for what measured cheapest: a
     * classic algorithm the exchange mode kept running becomes the static
     * choice (promotion: the site stops paying an exchange for it), or the
     * site keeps what it measured cheapest in the exchange mode (its exchange
     * in its cost) */
    if (slow) {
      double kept_cost = 0, cheapest = 0, c;
      int kept = pat_engine_last(&s.rank[0]->e, 0)->alg;
      for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
        if (pat_arms_cost(&sp->arms, PAT_REGIME_BALANCED, alg, &c) && (cheapest == 0 || c < cheapest)) cheapest = c;
      int promoted = sp->static_alg != PAT_ALG_NATIVE && !(pat_algorithms[sp->static_alg].flags & PAT_ALGF_ARRIVAL) &&
                     s.exchanged - exchanged_before_last <= 10;
      int measured_best = pat_arms_cost(&sp->arms, PAT_REGIME_BALANCED, kept, &kept_cost) &&
                          kept_cost <= cheapest * (1.0 + PAT_GAIN_FRACTION);
      CHECK(promoted || measured_best,
            "NATIVE 1.7x: static choice %s, %lld of the last 30 calls exchanged; runs %s, measured %.2f ms "
            "against the cheapest %.2f ms", pat_algorithms[sp->static_alg].name, s.exchanged - exchanged_before_last,
            pat_algorithms[kept].name, 1e3 * kept_cost, 1e3 * cheapest);
    } else
      CHECK(sp->static_alg == PAT_ALG_NATIVE && sp->promotions == 0, "NATIVE as predicted: static choice %s",
            pat_algorithms[sp->static_alg].name);
    if (slow)
      CHECK(first_other >= 0 && first_other <= 6 && native <= 8,
            "NATIVE measured 1.7x its prediction: first other algorithm at call %d, %d of %d calls NATIVE",
            first_other, native, n);
    else
      /* four candidates (RELAY, DIRECT, RING, the model's pick): a trial each at most */
      CHECK(native >= n - 4 - 4 * (1 + PAT_GUARD_TRIAL) && sp->guard.trials <= 4 &&
                s.exchanged - exchanged_before_last <= 8,
            "NATIVE as predicted: only %d of %d calls ran it (first other at call %d), %lld trials, %lld of the last "
            "30 exchanged: more than one trial per candidate explored (explore.h)", native, n, first_other,
            sp->guard.trials, s.exchanged - exchanged_before_last);
    sim_end(&s);
  }
  return 0;
}

/* Promotion looks at the last rank out (engine.h).  NATIVE measures 1.7x
 * its prediction, as in test_native_measured, where a classic schedule is
 * promoted (DIRECT); here every schedule of libpat's lets its last rank out
 * 1.5x its cost after the others (graph500's BFS under the drop-in on the
 * emulated cluster: one rank held up in DIRECT's transfers from every rank
 * at once).  Their means stay under NATIVE's by more than the margin (1.19
 * against 1.7 of the prediction), and the means alone promoted RING; but the
 * program, whose ranks wait at their next collective for the last one out,
 * would wait 2.5x the schedule's cost against NATIVE's 1.9.  NATIVE stays. */
static int test_promote_last_out(void) {
  int64_t a[MAXP];
  const pat_model_params saved = model;
  pat_model_params_init(&model, 50e-6, 8e-9); /* as test_native_measured's: no measured times */
  const unsigned long long seed = rng;
  const uint64_t log_before = decision_log;
  for (int tail = 0; tail < 2; tail++) {
    rng = seed; /* the same world but for the tail */
    sim s;
    sim_start(&s, 8);
    s.native_factor = 1.7;
    s.late_out_alg = tail ? PAT_LATE_OUT_LIBPAT : -1;
    s.late_out_factor = 1.5;
    for (int k = 0; k < 60; k++) {
      arrivals(&s, a, 0.0);
      CHECK(call(&s, 1 << 20, a), "last rank out %s, call %d: ranks disagree", tail ? "late" : "on time", k);
    }
    const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
    printf("libpat's last rank out %s: static choice %s (%d promotions)\n", tail ? "late" : "on time",
           pat_algorithms[sp->static_alg].name, sp->promotions);
    if (tail)
      CHECK(sp->static_alg == PAT_ALG_NATIVE && sp->promotions == 0,
            "%s promoted though the last rank leaves 1.5x its cost late", pat_algorithms[sp->static_alg].name);
    else
      CHECK(sp->static_alg != PAT_ALG_NATIVE && sp->promotions > 0,
            "last rank out on time: static choice %s, %d promotions", pat_algorithms[sp->static_alg].name,
            sp->promotions);
    sim_end(&s);
  }
  model = saved;
  /* the tests after it draw and log what they did before it was written (their logs' digests) */
  rng = seed;
  decision_log = log_before;
  return 0;
}

/* Exploration finds a planted best candidate in each regime (explore.h), as
 * the emulated cluster measured them at P = 8, 1M floats (issue 53): at
 * balanced arrivals DIRECT 1.2x faster than RELAY and 1.33x than NATIVE; one
 * rank 100 ms late, RELAY 1.55x faster than DIRECT.  The costs are planted
 * per regime whatever the model predicts (wrong, as a model may be: the
 * replay of this model ranks them otherwise), without a model file's levels
 * and with levels that make DIRECT the static choice.  Phases of 150 calls:
 * balanced, imbalanced, balanced again (the first phase's measurements still
 * hold).  Each phase's best must run on at least 90% of its last 50 calls,
 * and be found (run on 5 calls in a row) within its phase's first
 * PLANTED_FOUND calls: the static site's next probe (up to PAT_PROBE_MAX
 * calls away after a balanced phase), then a trial from the static choice
 * per candidate (a warm-up and PAT_GUARD_TRIAL judged calls; RELAY, DIRECT,
 * RING and the model's pick) with the guard's backoff after each lost one,
 * or PAT_EXPLORE_EVERY * PAT_EXPLORE_K calls per candidate in a kept
 * alternative.  Found at calls 17 (balanced) and 85-94 (imbalanced, after
 * the balanced phase's lost trials backed off) when this was written; with
 * the guard's backoff per regime, at calls 15 and 7 (with another random
 * stream the site-wide backoff had not found RELAY in 150 calls).  The
 * levels were one size each until the cold model pick's test, which a
 * level does not answer (measured.c needs two): the second variant ran
 * without them.  With them (add_level), RELAY is found at call 24 (33 once a
 * kept alternative's first exploration waits its interval). */
#define PLANTED_FOUND 100

/* A model file's measured time of `alg` (seconds) at `bytes` a block, as a
 * calibration gives it: a level needs two sizes or more (measured.c), and
 * its smallest, 64 B in 100 us, is what an exchange of records costs. */
static void add_level(double alg, int64_t bytes, double seconds) {
  pat_measured_add(&model.measured, (int)alg, 64, 100e-6);
  pat_measured_add(&model.measured, (int)alg, (double)bytes / 2, seconds / 2);
  pat_measured_add(&model.measured, (int)alg, (double)bytes, seconds);
}

/* A model file at P = 8 whose levels at `bytes` a block measure DIRECT
 * fastest at balanced arrivals: the static choice. */
static void add_direct_levels_native(int64_t bytes, double native_s) {
  model.measured.P = 8;
  const double lv[][2] = {{PAT_ALG_NATIVE, native_s}, {PAT_ALG_DIRECT, 0.075}, {PAT_ALG_RELAY, 0.090},
                          {PAT_ALG_RING, 0.095}, {PAT_ALG_BRUCK, 0.13}, {PAT_ALG_NEX, 0.13}, {PAT_ALG_RDB, 0.13}};
  for (size_t i = 0; i < sizeof lv / sizeof *lv; i++) add_level(lv[i][0], bytes, lv[i][1]);
}

static void add_direct_levels(int64_t bytes) { add_direct_levels_native(bytes, 0.100); }

/* When a phase's best algorithm was found (run on 5 calls in a row: the
 * first of them, -1 before) and how many calls from tail_from on ran it. */
typedef struct found_track {
  int run, found_at, tail, tail_from;
} found_track;

static void track(found_track *t, int k, int is_best) {
  t->run = is_best ? t->run + 1 : 0;
  if (t->run == 5 && t->found_at < 0) t->found_at = k - 4;
  if (k >= t->tail_from) t->tail += is_best;
}
/* Every algorithm planted at `ms` in both regimes (the tests then set the ones they name). */
static void plant_every(double planted[2][PAT_ALG_COUNT], double ms) {
  for (int g = 0; g < 2; g++)
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) planted[g][alg] = ms;
}

static int test_planted(void) {
  static const double cost[2][PAT_ALG_COUNT] = {
      /* ms above the wait; algorithms not named cost 130 */
      [PAT_REGIME_BALANCED] = {[PAT_ALG_NATIVE] = 100, [PAT_ALG_DIRECT] = 75, [PAT_ALG_RELAY] = 90, [PAT_ALG_RING] = 95},
      [PAT_REGIME_IMBALANCED] = {[PAT_ALG_NATIVE] = 100, [PAT_ALG_DIRECT] = 93, [PAT_ALG_RELAY] = 60,
                                 [PAT_ALG_RING] = 110}};
  double planted[2][PAT_ALG_COUNT];
  for (int g = 0; g < 2; g++)
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) planted[g][alg] = cost[g][alg] > 0 ? cost[g][alg] : 130;
  const int64_t bytes = 1 << 19; /* 1M floats at P = 8 */
  const pat_model_params saved = model;
  for (int with_levels = 0; with_levels < 2; with_levels++) {
    if (with_levels) add_direct_levels(bytes);
    sim s;
    sim_start(&s, 8);
    s.planted = (const double(*)[PAT_ALG_COUNT])planted;
    int64_t a[MAXP];
    const double late[3] = {0.0, 100.0, 0.0};
    const int best[3] = {PAT_ALG_DIRECT, PAT_ALG_RELAY, PAT_ALG_DIRECT};
    for (int phase = 0; phase < 3; phase++) {
      found_track t = {.found_at = -1, .tail_from = 100};
      for (int k = 0; k < 150; k++) {
        arrivals(&s, a, late[phase]);
        CHECK(call(&s, bytes, a), "planted, %s, phase %d call %d: ranks disagree", with_levels ? "levels" : "no levels",
              phase, k);
        track(&t, k, pat_engine_last(&s.rank[0]->e, 0)->alg == best[phase]);
      }
      const int found_at = t.found_at, tail = t.tail;
      printf("planted, %s, %s: %s found at call %d, %d of the last 50 calls\n", with_levels ? "levels" : "no levels",
             late[phase] > 0 ? "imbalanced" : "balanced", pat_algorithms[best[phase]].name, found_at, tail);
      CHECK(found_at >= 0 && found_at <= PLANTED_FOUND, "planted, %s, phase %d: %s found at call %d (within %d)",
            with_levels ? "levels" : "no levels", phase, pat_algorithms[best[phase]].name, found_at, PLANTED_FOUND);
      CHECK(tail >= 45, "planted, %s, phase %d: %s ran %d of the last 50 calls", with_levels ? "levels" : "no levels",
            phase, pat_algorithms[best[phase]].name, tail);
    }
    sim_end(&s);
    model = saved;
  }
  return 0;
}

/* A model file's pick at a site's first call is measured warm before the
 * guard judges it, and a kept alternative's exploration does not spend the
 * credit that keeps it.  The emulated cluster at P = 8, 1M floats, one rank
 * 10 ms late, with a full calibration: the site's first call ran the
 * model's pick RELAY (10% faster than the static DIRECT there) cold, at
 * twice its later cost; that cost replaced RELAY's prediction, the trial's
 * next calls ran DIRECT in the exchange mode, found nothing to gain and
 * lost, and the backoff put the next trial past the launch's 20 calls.
 * Here the simulated model's pick at that first call is ARD, planted 10%
 * faster than DIRECT (the others at 1.85x).  ARD must be found (5 calls in
 * a row) within the first 20 calls and hold 90% of the 40 after: the trial
 * measures it warm, and the kept ARD's exploration of the others, each at
 * 1.85x, pauses while the credit is low instead of exhausting it (it did in
 * six calls, and the site went back to DIRECT for the backoff). */
/* A site under a model file (DIRECT its static choice, add_direct_levels) whose first call is cold
 * (2x), one rank late by late_ms, 60 calls at the costs planted: ARD, the simulated model's pick, must
 * run the first call, be found (5 calls in a row) within the first 20 calls and run at least `tail`
 * of the last 40. */
static int model_pick_run(const char *what, double planted[2][PAT_ALG_COUNT], double late_ms, int tail) {
  const int64_t bytes = 1 << 19;
  const pat_model_params saved = model;
  add_direct_levels(bytes);
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  s.cold_factor = 2.0;
  s.first_on_arrival = 1;
  int64_t a[MAXP];
  found_track t = {.found_at = -1, .tail_from = 20};
  int first = -1;
  for (int k = 0; k < 60; k++) {
    arrivals(&s, a, late_ms);
    CHECK(call(&s, bytes, a), "%s, call %d: ranks disagree", what, k);
    int alg = pat_engine_last(&s.rank[0]->e, 0)->alg;
    if (k == 0) first = alg;
    track(&t, k, alg == PAT_ALG_ARD);
  }
  printf("%s: first call %s, ard found at call %d, %d of the last 40 calls\n", what, pat_algorithms[first].name,
         t.found_at, t.tail);
  CHECK(first == PAT_ALG_ARD, "%s: the first call ran %s, not the model's pick", what, pat_algorithms[first].name);
  CHECK(t.found_at >= 0 && t.found_at < 20, "%s: ard found at call %d (within 20)", what, t.found_at);
  CHECK(t.tail >= tail, "%s: ard ran %d of the last 40 calls", what, t.tail);
  sim_end(&s);
  model = saved;
  return 0;
}

static int test_cold_model_pick(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_every(planted, 130);
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_DIRECT] = 70;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_ARD] = 63; /* the simulated model's pick */
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_NATIVE] = 80;
  return model_pick_run("cold model pick", planted, 10.0, 36);
}

/* The stale model's network: every cost 2.5x the levels of add_direct_levels, ARD the fastest. */
static void plant_stale_network(double planted[2][PAT_ALG_COUNT]) {
  plant_every(planted, 250);
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_DIRECT] = 190;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_ARD] = 120;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_NATIVE] = 400;
}

/* A model file made on a faster network than the program's: every cost 2.5 times what its levels say
 * (DIRECT, its static choice, 75 ms there and 190 here).  The model's pick ARD is the fastest here too
 * (120 ms), and the site's first call runs it cold (2x).  Measured on the emulated cluster (3 + 3 + 2
 * ranks, 200 Mbit/s, a 500 Mbit/s calibration, one rank 100 ms late): that cold call was charged to
 * the exploration budget against the model's S, which it exceeded at once, and the budget's cut lost
 * the trial there, the guard's own rule for a model's S (not lost: S measured first) bypassed; the
 * site ran its static choice for the backoff and after (auto 1.6x the fastest over 20 and 30 calls).
 * ARD must hold most of the calls from call 20 on. */
static int test_stale_model(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_stale_network(planted);
  return model_pick_run("stale model", planted, 100.0, 32);
}

/* The model check runs MPI's own once where the model file measured it near its static choice
 * (1.33x DIRECT), and never where it measured it PAT_EXPLORE_DROP times slower or more (2.7x): on
 * nodes that one call of MPI's own cost most of what auto lost over 20 calls.  The stale model's
 * case (test_stale_model), MPI's own planted at 400 ms. */
static int test_model_check_far(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_stale_network(planted);
  const int64_t bytes = 1 << 19;
  const pat_model_params saved = model;
  for (int far = 0; far < 2; far++) {
    add_direct_levels_native(bytes, far ? 0.200 : 0.100);
    sim s;
    sim_start(&s, 8);
    s.planted = (const double(*)[PAT_ALG_COUNT])planted;
    s.first_on_arrival = 1;
    int64_t a[MAXP];
    int native = 0;
    for (int k = 0; k < 30; k++) {
      arrivals(&s, a, 100.0);
      CHECK(call(&s, bytes, a), "model check far %d, call %d: ranks disagree", far, k);
      native += pat_engine_last(&s.rank[0]->e, 0)->alg == PAT_ALG_NATIVE;
    }
    printf("model check, NATIVE %s DIRECT in the model: %d of 30 calls NATIVE\n", far ? "2.7x" : "1.33x", native);
    CHECK(far ? native == 0 : native == 1, "model check, NATIVE %s DIRECT: %d calls of NATIVE", far ? "2.7x" : "1.33x",
          native);
    sim_end(&s);
    model = saved;
  }
  return 0;
}

/* Eight ranks on nodes of two, no model file, the costs planted (ms above the wait, per regime and
 * algorithm), for the planted-on-nodes cases; nodes_sim_end puts a node per rank and the model back. */
static void nodes_sim_start(sim *s, double planted[2][PAT_ALG_COUNT]) {
  for (int r = 0; r < MAXP; r++) node_of[r] = r / 2;
  job_have_model = 0;
  sim_start(s, 8);
  s->planted = (const double(*)[PAT_ALG_COUNT])planted;
}

static void nodes_sim_end(sim *s) {
  sim_end(s);
  for (int r = 0; r < MAXP; r++) node_of[r] = r;
  job_have_model = 1;
}

/* The same on nodes (4 x 2, no model file), with the costs the emulated
 * cluster measured at 4 hosts x 2 ranks, 1M floats (ms): the hierarchical
 * algorithms are found, and the flat ones exploration passes over there
 * are never run (measured at twice the best's time, a call each cost that
 * before; explore.h). */
static int test_planted_nodes(void) {
  static const double cost[2][PAT_ALG_COUNT] = {
      /* ms above the wait; algorithms not named cost 400 */
      [PAT_REGIME_BALANCED] = {[PAT_ALG_NATIVE] = 377, [PAT_ALG_RING] = 173, [PAT_ALG_HRING] = 159,
                               [PAT_ALG_HRELAY] = 144, [PAT_ALG_RELAY] = 283},
      [PAT_REGIME_IMBALANCED] = {[PAT_ALG_NATIVE] = 373, [PAT_ALG_RING] = 150, [PAT_ALG_HRING] = 170,
                                 [PAT_ALG_HRELAY] = 65, [PAT_ALG_RELAY] = 199}};
  double planted[2][PAT_ALG_COUNT];
  for (int g = 0; g < 2; g++)
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) planted[g][alg] = cost[g][alg] > 0 ? cost[g][alg] : 400;
  const int64_t bytes = 1 << 19;
  sim s;
  nodes_sim_start(&s, planted);
  int64_t a[MAXP];
  const double late[2] = {0.0, 100.0};
  for (int phase = 0; phase < 2; phase++) {
    found_track t = {.found_at = -1, .tail_from = 100};
    int ran[PAT_ALG_COUNT] = {0}, distinct = 0;
    for (int k = 0; k < 150; k++) {
      arrivals(&s, a, late[phase]);
      CHECK(call(&s, bytes, a), "planted on nodes, phase %d call %d: ranks disagree", phase, k);
      int alg = pat_engine_last(&s.rank[0]->e, 0)->alg;
      if (!ran[alg]++) distinct++;
      track(&t, k, alg == PAT_ALG_HRELAY);
    }
    const int found_at = t.found_at, tail = t.tail;
    printf("planted on nodes, %s: hrelay found at call %d, %d of the last 50 calls; %d algorithms run, relay %d, "
           "direct %d\n", late[phase] > 0 ? "imbalanced" : "balanced", found_at, tail, distinct, ran[PAT_ALG_RELAY],
           ran[PAT_ALG_DIRECT]);
    CHECK(found_at >= 0 && found_at <= PLANTED_FOUND, "planted on nodes, phase %d: hrelay found at call %d (within %d)",
          phase, found_at, PLANTED_FOUND);
    CHECK(tail >= 45, "planted on nodes, phase %d: hrelay ran %d of the last 50 calls", phase, tail);
    /* NATIVE, the three candidates and the model's pick */
    CHECK(distinct <= 5 && ran[PAT_ALG_RELAY] == 0 && ran[PAT_ALG_DIRECT] == 0,
          "planted on nodes, phase %d: %d algorithms run, flat relay %d times, direct %d", phase, distinct,
          ran[PAT_ALG_RELAY], ran[PAT_ALG_DIRECT]);
  }
  nodes_sim_end(&s);
  return 0;
}

/* What a trial may gain is judged against what the site already runs: on nodes, with HRELAY found at
 * 65 ms and MPI's own (S) at 373, a RING planted at 2.1x S (as on 4 x 2 ranks placed round robin) is
 * not worth a trial once HRELAY is measured (judged against S, the calls' horizon paid for one at call
 * 39; the one early trial, at call 8, comes before that). */
static int test_far_candidate(void) {
  double planted[2][PAT_ALG_COUNT];
  for (int g = 0; g < 2; g++)
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) planted[g][alg] = 400;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_NATIVE] = 373;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_HRELAY] = 65;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_HRING] = 170;
  planted[PAT_REGIME_IMBALANCED][PAT_ALG_RING] = 800;
  sim s;
  nodes_sim_start(&s, planted);
  int64_t a[MAXP];
  int ran[PAT_ALG_COUNT] = {0}, late_ring = 0;
  for (int k = 0; k < 150; k++) {
    arrivals(&s, a, 100.0);
    CHECK(call(&s, 1 << 19, a), "far candidate, call %d: ranks disagree", k);
    int alg = pat_engine_last(&s.rank[0]->e, 0)->alg;
    ran[alg]++;
    late_ring += k >= 30 && alg == PAT_ALG_RING;
  }
  printf("far candidate: ring %d, hring %d, hrelay %d of 150 calls\n", ran[PAT_ALG_RING], ran[PAT_ALG_HRING],
         ran[PAT_ALG_HRELAY]);
  CHECK(late_ring == 0, "far candidate: RING (2.1x S) tried on %d calls from call 30 on", late_ring);
  CHECK(ran[PAT_ALG_HRELAY] >= 130, "far candidate: HRELAY ran %d of 150 calls", ran[PAT_ALG_HRELAY]);
  nodes_sim_end(&s);
  return 0;
}

/* Which calls' predictions the guard judges: a call chosen on history's
 * records bets on them unless it ran a plan-ahead algorithm (its
 * prediction only orders its sends; judged, an instrumented program's site
 * looked unpredictable and was held at NATIVE); records made by
 * instrumentation are judged whatever ran. */
static int test_history_not_judged(void) {
  int spread[2] = {0, 1};
  pat_engine_config cfg = {.P = 2, .mp = &model, .have_model = 1, .node = spread, .record_bytes = 72};
  const struct {
    int history, alg, judged;
  } cases[] = {{1, PAT_ALG_RELAY, 0}, {1, PAT_ALG_HRELAY, 0}, {1, PAT_ALG_BDR, 1}, {0, PAT_ALG_RELAY, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    pat_engine e;
    CHECK(pat_engine_init(&e, &cfg) == 0, "init");
    pat_engine_new_site(&e, 0, 1 << 20, NULL);
    pat_choice c = {.alg = cases[i].alg, .static_alg = PAT_ALG_NATIVE, .history = cases[i].history, .explored = 1};
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) c.ebar_ns[alg] = INT64_MAX;
    c.static_ns = INT64_MAX;
    pat_engine_commit(&e, 0, 3, &c, PAT_ALG_AUTO, 1000);
    pat_engine_end end = {.site = 0, .call = 3, .setting = PAT_ALG_AUTO, .alg = cases[i].alg, .arrival_ns = 0,
                          .exchange_ns = -1,
                          .exit_ns = 1000000, .next_site = 0, .next_site_calls = 4};
    pat_engine_end_call(&e, &end);
    int judged = (pat_engine_last(&e, 0)->flags & PAT_LAST_PREDICTED) != 0;
    CHECK(judged == cases[i].judged, "%s on %s records: predictions %sjudged", pat_algorithms[cases[i].alg].name,
          cases[i].history ? "history's" : "instrumentation's", judged ? "" : "not ");
    pat_engine_free(&e);
  }
  return 0;
}

/* The same agreement with a model file's measured balanced times (P = 8):
 * the static choice is a classic algorithm at some sizes, the guard starts
 * from the measured prior, and the levels enter every prediction. */
static int test_measured(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, 50e-6, 8e-9);
  mp.measured.P = 8;
  const double sizes[] = {8, 4096, 65536, 262144, 1 << 20};
  /* NATIVE slow at large blocks, RING and DIRECT faster; BDR, RELAY measured too */
  const double native_s[] = {20e-6, 60e-6, 900e-6, 3.4e-3, 14e-3};
  for (int i = 0; i < 5; i++) {
    double n = native_s[i];
    pat_measured_add(&mp.measured, PAT_ALG_NATIVE, sizes[i], n);
    pat_measured_add(&mp.measured, PAT_ALG_RING, sizes[i], n * (i < 2 ? 1.3 : 0.8));
    pat_measured_add(&mp.measured, PAT_ALG_DIRECT, sizes[i], n * (i < 3 ? 1.5 : 0.85));
    pat_measured_add(&mp.measured, PAT_ALG_BDR, sizes[i], n * 1.4);
    pat_measured_add(&mp.measured, PAT_ALG_RELAY, sizes[i], n * 1.1);
  }
  model = mp;
  const int64_t bytes_of[] = {8, 4096, 65536, 262144, 1 << 20};
  for (int trial = 0; trial < 2; trial++) {
    sim s;
    sim_start(&s, 8);
    int64_t a[MAXP];
    for (int k = 0; k < 200; k++) {
      int64_t bytes = bytes_of[(int)(urand() * 5)];
      if (urand() < 0.8 && k > 0) bytes = bytes_of[trial % 2 ? 3 : 4];
      arrivals(&s, a, (k / 50) % 2 ? 40.0 * urand() : 0.0);
      CHECK(call(&s, bytes, a), "measured trial %d call %d: ranks disagree", trial, k);
    }
    sim_end(&s);
  }
  return 0;
}

/* The static choice with back-to-back times (the emulated cluster's case):
 * DIRECT 20% faster than NATIVE after a pause but 2x slower back to back
 * must not replace NATIVE where both were measured back to back; it does
 * where it wins both ways, and above the back-to-back table's sizes. */
static int test_static_b2b(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, 50e-6, 8e-9);
  mp.measured.P = 8;
  const double sizes[] = {1, 4096, 65536};
  for (int i = 0; i < 3; i++) {
    pat_measured_add(&mp.measured, PAT_ALG_NATIVE, sizes[i], 500e-6 * (1 + i));
    pat_measured_add(&mp.measured, PAT_ALG_DIRECT, sizes[i], 400e-6 * (1 + i));
  }
  model = mp;
  sim_rank *r = make_rank(8);
  CHECK(pat_engine_static_alg(&r->e, 64) == PAT_ALG_DIRECT, "no b2b table: DIRECT, 20%% faster after a pause");
  mp.b2b.P = 8;
  pat_measured_add(&mp.b2b, PAT_ALG_NATIVE, 1, 90e-6);
  pat_measured_add(&mp.b2b, PAT_ALG_NATIVE, 4096, 140e-6);
  pat_measured_add(&mp.b2b, PAT_ALG_DIRECT, 1, 185e-6);
  pat_measured_add(&mp.b2b, PAT_ALG_DIRECT, 4096, 220e-6);
  model = mp;
  for (int64_t b = 1; b <= 4096; b *= 2)
    CHECK(pat_engine_static_alg(&r->e, b) == PAT_ALG_NATIVE, "%lld B: NATIVE, DIRECT is slower back to back",
          (long long)b);
  CHECK(pat_engine_static_alg(&r->e, 16384) == PAT_ALG_DIRECT, "above the b2b table: the pause's ranking");
  mp.b2b.alg[PAT_ALG_DIRECT].seconds[0] = 80e-6;  /* 11% faster back to back */
  mp.b2b.alg[PAT_ALG_DIRECT].seconds[1] = 130e-6; /* 7%: within the margin */
  model = mp;
  CHECK(pat_engine_static_alg(&r->e, 1) == PAT_ALG_DIRECT, "1 B: DIRECT wins both ways");
  CHECK(pat_engine_static_alg(&r->e, 4096) == PAT_ALG_NATIVE, "4 KiB: DIRECT within the margin back to back");
  free_rank(r);
  pat_model_params_init(&model, 50e-6, 8e-9);
  return 0;
}

/* PAT_ONE_NODE: auto defers to NATIVE wherever every rank shares one node,
 * with a model file too, even one that measured DIRECT 20% faster; on two
 * nodes that model decides, and PAT_ONE_NODE=auto bets on one node too. */
static int test_one_node(void) {
  int shared[4] = {3, 3, 3, 3}, spread[4] = {3, 3, 5, 3};
  CHECK(pat_engine_one_node_native(4, shared, 0) == 1, "one node: NATIVE");
  CHECK(pat_engine_one_node_native(4, spread, 0) == 0, "two nodes: auto decides");
  CHECK(pat_engine_one_node_native(4, shared, 1) == 0, "PAT_ONE_NODE=auto: auto decides on one node");
  CHECK(pat_engine_one_node_native(1, shared, 0) == 1, "one rank: NATIVE");
  pat_model_params mp;
  pat_model_params_init(&mp, 50e-6, 8e-9);
  mp.measured.P = 4;
  const double sizes[] = {1, 4096, 1 << 20};
  for (int i = 0; i < 3; i++) {
    pat_measured_add(&mp.measured, PAT_ALG_NATIVE, sizes[i], 500e-6 * (1 + i));
    pat_measured_add(&mp.measured, PAT_ALG_DIRECT, sizes[i], 400e-6 * (1 + i));
  }
  for (int c = 0; c < 3; c++) { /* one node; two nodes; one node with PAT_ONE_NODE=auto */
    pat_engine_config cfg = {
        .P = 4, .mp = &mp, .have_model = 1, .node = c == 1 ? spread : shared, .one_node_auto = c == 2, .record_bytes = 72};
    pat_engine e;
    CHECK(pat_engine_init(&e, &cfg) == 0, "init");
    int defers = c == 0;
    CHECK(e.one_node_native == defers, "case %d: the engine %s", c, defers ? "defers" : "decides");
    CHECK(pat_engine_exchanges(&e, PAT_ALG_AUTO, 1) == !defers, "case %d: a new site %s", c,
          defers ? "does not exchange" : "exchanges");
    CHECK(pat_engine_v_defers(&e) == defers, "case %d: an all-gatherv %s", c, defers ? "defers" : "is chosen for");
    for (int i = 0; i < 3; i++)
      CHECK(pat_engine_static_alg(&e, (int64_t)sizes[i]) == (defers ? PAT_ALG_NATIVE : PAT_ALG_DIRECT),
            "case %d, %.0f B: %s", c, sizes[i], defers ? "NATIVE" : "DIRECT, measured faster");
    pat_engine_free(&e);
  }
  return 0;
}

/* An all-gatherv's unequal-block site whose static choice is RELAY (its
 * balanced schedule, as vchoice picks it with the emulated cluster's model
 * file).  With one rank 50 ms late the static mode runs that schedule from
 * each rank's arrival, so the exchanged RELAY (a plan made ahead, the late
 * rank relaying while it computes) is predicted faster by a gain that pays,
 * and the site enters the exchange mode; on balanced arrivals it finds no
 * gain.  Before, the static cost was the exchanged prediction itself and
 * such a site never found one.  Its probes come as an equal-block site's. */
static int test_unequal_relay_site(void) {
  enum { P = 8 };
  pat_model_params mp; /* RELAY's balanced schedule measured the fastest, as on the emulated cluster */
  pat_model_params_init(&mp, 50e-6, 8e-9);
  mp.measured.P = P;
  const int classic[] = {PAT_ALG_NATIVE, PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_DIRECT};
  for (int i = 0; i < 3; i++) {
    const double bytes = 262144 << i, t = 0.01 * (1 << i);
    for (size_t k = 0; k < sizeof classic / sizeof *classic; k++) pat_measured_add(&mp.measured, classic[k], bytes, t);
    pat_measured_add(&mp.measured, PAT_ALG_RELAY, bytes, 0.8 * t);
  }
  int spread[P];
  int64_t shape[P], a[P], mean = 0;
  for (int r = 0; r < P; r++) {
    spread[r] = r;
    shape[r] = r == P - 1 ? (16LL << 20) / 11 : (4LL << 20) / 11; /* 1M floats, one rank's block 4x */
    mean += shape[r] / P;
  }
  for (int late = 0; late < 2; late++) {
    pat_engine_config cfg = {.P = P, .mp = &mp, .have_model = 1, .node = spread, .record_bytes = 72};
    pat_engine e;
    CHECK(pat_engine_init(&e, &cfg) == 0, "init");
    pat_engine_new_site(&e, 0, mean, shape);
    e.site[0].static_alg = PAT_ALG_RELAY;
    pat_guard_init(&e.site[0].guard, 0.07); /* its static calls measured */
    for (int r = 0; r < P; r++) a[r] = 1000000000LL + (late && r == P - 1 ? 50000000LL : 1000LL * r);
    pat_engine_call call = {.site = 0, .site_calls = 10, .setting = PAT_ALG_AUTO, .bytes = mean, .shape = shape,
                            .arrival = a, .bg_start_ns = PAT_NO_TIME, .records = PAT_RECORDS_MIXED};
    pat_choice c;
    pat_engine_choose(&e, &call, &c);
    const int gain = c.static_ns != INT64_MAX && c.ebar_ns[PAT_ALG_RELAY] < c.static_ns &&
                     pat_engine_gain_pays(&e, c.static_ns, c.ebar_ns[PAT_ALG_RELAY], c.wait);
    CHECK(gain == late, "%s: static RELAY %.1f ms, exchanged %.1f ms: %s", late ? "one rank 50 ms late" : "balanced",
          c.static_ns == INT64_MAX ? -1.0 : 1e-6 * (double)c.static_ns, 1e-6 * (double)c.ebar_ns[PAT_ALG_RELAY],
          gain ? "a gain" : "no gain");
    /* predicted at the mean block, only the static choice (here RELAY) competes with RELAY */
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
      CHECK((c.ebar_ns[alg] != INT64_MAX) == (alg == PAT_ALG_RELAY),
            "%s: %s %s", late ? "late" : "balanced", pat_algorithms[alg].name,
            c.ebar_ns[alg] != INT64_MAX ? "predicted, not a candidate for unequal blocks" : "not predicted");
    CHECK(c.alg == PAT_ALG_RELAY, "%s: the choice is %s, not RELAY", late ? "late" : "balanced",
          pat_algorithms[c.alg].name);
    pat_engine_commit(&e, 0, 10, &c, PAT_ALG_AUTO, a[0]);
    CHECK((e.site[0].mode == PAT_MODE_EXCHANGE) == late, "%s: the site %s the exchange mode",
          late ? "one rank late" : "balanced", late ? "enters" : "stays out of");
    pat_engine_free(&e);
  }
  /* probes: an unequal-block site's come when an equal-block site's do */
  int spread4[4] = {0, 1, 2, 3};
  int64_t shape4[4] = {1 << 20, 1 << 20, 1 << 20, 4 << 20};
  pat_engine_config cfg = {.P = 4, .mp = &model, .node = spread4, .record_bytes = 72};
  pat_engine e;
  CHECK(pat_engine_init(&e, &cfg) == 0, "init");
  pat_engine_new_site(&e, 0, 7 << 19, shape4); /* the mean of shape4 */
  pat_engine_new_site(&e, 1, 7 << 19, NULL);
  for (int site = 0; site < 2; site++) {
    pat_engine_end end = {.site = site, .call = 100, .setting = PAT_ALG_AUTO, .alg = PAT_ALG_NATIVE, .exchange_ns = -1,
                          .arrival_ns = 0, .exit_ns = 1000000, .next_site = site, .next_site_calls = 1000};
    pat_engine_end_call(&e, &end);
    CHECK(pat_engine_next_exchanges(&e) == 1, "%s site: its probe is due, the next call does not exchange",
          site ? "an equal-block" : "an unequal-block");
  }
  pat_engine_free(&e);
  return 0;
}

/* At balanced arrivals RELAY, DIRECT, RING and NATIVE planted at these
 * costs (ms), every other algorithm and regime at 130. */
static void plant_balanced(double planted[2][PAT_ALG_COUNT], double relay, double direct, double ring, double native) {
  plant_every(planted, 130);
  planted[PAT_REGIME_BALANCED][PAT_ALG_RELAY] = relay;
  planted[PAT_REGIME_BALANCED][PAT_ALG_DIRECT] = direct;
  planted[PAT_REGIME_BALANCED][PAT_ALG_RING] = ring;
  planted[PAT_REGIME_BALANCED][PAT_ALG_NATIVE] = native;
}

/* An unpredictable site explores in the regime of the arrivals it measures.
 * At balanced arrivals the minibench's barrier undoes the spread of the
 * last call's exits, and the history's predictions put the ranks far apart
 * (emulated cluster, P = 8, 256K floats, no model file): the choices saw
 * the imbalanced regime, whose candidates had no samples, and explored
 * DIRECT and RELAY every other call for 200 calls, while their samples, taken at
 * balanced arrivals, went to the balanced regime.  Here the predictions are
 * drawn over 60 ms whatever the arrivals (balanced), with RELAY planted
 * fastest: every candidate needs PAT_EXPLORE_K samples (RELAY, DIRECT and
 * RING), each first call of a trial is a warm-up, and DIRECT, within
 * PAT_RECHECK_NEAR of RELAY, is measured again once every PAT_RECHECK_AGE
 * calls, PAT_ARM_SAMPLES times at most (explore.h, Rechecks): at most
 * 3 * (PAT_EXPLORE_K + 1) + PAT_ARM_SAMPLES * 300 / PAT_RECHECK_AGE
 * explored calls (146 when the regime was the predictions'), and RELAY
 * holds the last 100. */
static int test_explore_regime_unpredictable(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_balanced(planted, 60, 75, 95, 100);
  const int64_t bytes = 1 << 19;
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  s.pred_random_ms = 60;
  int64_t a[MAXP];
  int tail = 0;
  for (int k = 0; k < 300; k++) {
    arrivals(&s, a, 0.0);
    CHECK(call(&s, bytes, a), "unpredictable regime, call %d: ranks disagree", k);
    if (k >= 200) tail += pat_engine_last(&s.rank[0]->e, 0)->alg == PAT_ALG_RELAY;
  }
  const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
  printf("unpredictable regime: %lld explored calls in 300, relay %d of the last 100, imbalanced samples: "
         "relay %d direct %d ring %d\n", s.explored, tail, pat_arms_n(&sp->arms, PAT_REGIME_IMBALANCED, PAT_ALG_RELAY),
         pat_arms_n(&sp->arms, PAT_REGIME_IMBALANCED, PAT_ALG_DIRECT),
         pat_arms_n(&sp->arms, PAT_REGIME_IMBALANCED, PAT_ALG_RING));
  const int most = 3 * (PAT_EXPLORE_K + 1) + PAT_ARM_SAMPLES * 300 / PAT_RECHECK_AGE;
  CHECK(s.explored <= most, "unpredictable regime: %lld explored calls (at most %d)", s.explored, most);
  CHECK(tail >= 90, "unpredictable regime: relay ran %d of the last 100 calls", tail);
  sim_end(&s);
  return 0;
}

/* A candidate measured in a slow phase is measured again (explore.h,
 * Rechecks).  RELAY planted 10% cheaper than DIRECT at balanced arrivals,
 * but its calls of the first 30 cost 1.25x (the emulated cluster, P = 8,
 * 256K floats: RELAY's first calls measured 21 ms a call, and the site ran
 * DIRECT at 19 for the rest of a 200-call launch, where RELAY alone takes
 * 17.7 ms).  RELAY must run at least 90 of the last 100 of 300 calls. */
/* The algorithm each of `calls` balanced calls ran (ran[k]) at a site where
 * RELAY costs 60, DIRECT 66, RING 90 and NATIVE 100 (ms), and slow_alg's
 * calls (-1: every one's) from call `from` to before `until` cost `factor`
 * times as much; *explored: the calls that explored.  Nonzero where the
 * ranks disagreed. */
static int run_slow_phase(int slow_alg, long long from, long long until, double factor, int calls, int *ran,
                          long long *explored) {
  double planted[2][PAT_ALG_COUNT];
  plant_balanced(planted, 60, 66, 90, 100);
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  s.slow_alg = slow_alg;
  s.slow_from = from;
  s.slow_until = until;
  s.slow_factor = factor;
  int64_t a[MAXP];
  for (int k = 0; k < calls; k++) {
    arrivals(&s, a, 0.0);
    CHECK(call(&s, 1 << 19, a), "slow phase, call %d: ranks disagree", k);
    ran[k] = pat_engine_last(&s.rank[0]->e, 0)->alg;
  }
  *explored = s.explored;
  sim_end(&s);
  return 0;
}

static int test_recheck_slow_phase(void) {
  int ran[300], tail = 0;
  long long explored;
  if (run_slow_phase(PAT_ALG_RELAY, 0, 30, 1.25, 300, ran, &explored)) return 1;
  for (int k = 200; k < 300; k++) tail += ran[k] == PAT_ALG_RELAY;
  printf("slow phase: call 30 ran %s, relay %d of the last 100 calls, %lld explored calls\n",
         ran[30] == PAT_ALG_DIRECT ? "direct" : "another", tail, explored);
  CHECK(tail >= 90, "slow phase: relay ran %d of the last 100 calls", tail);
  return 0;
}

/* A candidate whose exploration is decided is not measured further: on 8
 * hosts at 256K floats, 10 ms, DIRECT at 1.22x RELAY took its third trial
 * call (5% of auto's 20 calls went to DIRECT and RING).  Planted so, in the
 * site's first calls, DIRECT and RING stop at two samples each, both over
 * RELAY's cost less PAT_GAIN_FRACTION (their medians of three could not be
 * under it), RELAY gets its three, and the site runs RELAY from then on. */
static int test_decided_candidate(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_balanced(planted, 60, 73, 82, 100);
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  int64_t a[MAXP];
  int tail = 0;
  for (int k = 0; k < 50; k++) {
    arrivals(&s, a, 0.0);
    CHECK(call(&s, 1 << 19, a), "decided candidate, call %d: ranks disagree", k);
    if (k >= 40) tail += pat_engine_last(&s.rank[0]->e, 0)->alg == PAT_ALG_RELAY;
  }
  const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
  const int relay = pat_arms_n(&sp->arms, PAT_REGIME_BALANCED, PAT_ALG_RELAY),
            direct = pat_arms_n(&sp->arms, PAT_REGIME_BALANCED, PAT_ALG_DIRECT),
            ring = pat_arms_n(&sp->arms, PAT_REGIME_BALANCED, PAT_ALG_RING);
  printf("decided candidate: samples relay %d direct %d ring %d in 50 calls, relay %d of the last 10\n", relay,
         direct, ring, tail);
  CHECK(relay >= PAT_EXPLORE_K && direct <= 2 && ring <= 2,
        "decided candidate: samples relay %d direct %d ring %d (DIRECT and RING at most 2)", relay, direct, ring);
  CHECK(tail == 10, "decided candidate: relay ran %d of the last 10 calls", tail);
  sim_end(&s);
  return 0;
}

/* A slow phase of the network that slows every algorithm, while the site
 * runs RELAY: its median rises past DIRECT's, measured 60 calls before, so
 * DIRECT is measured again (a full recheck), after the phase.  Without
 * RELAY measured again too, DIRECT's new median beat RELAY's slow one and
 * the site ran DIRECT at 1.1x until RELAY's recheck (P = 8, 256K floats,
 * balanced: DIRECT on 69-130 calls of 200).  Nor may a recheck of DIRECT
 * left off 25 calls before (its first call did not beat RELAY) go on
 * instead, four calls with that old call's sample in the median, and not
 * full.  With both the site keeps RELAY: of the 60 calls from the phase
 * on, the five of DIRECT's recheck and no more than a handful of others. */
static int test_slow_phase_every_algorithm(void) {
  int ran[160], relay_before = 0, relay_after = 0;
  long long explored;
  if (run_slow_phase(-1, 100, 105, 1.3, 160, ran, &explored)) return 1;
  for (int k = 80; k < 100; k++) relay_before += ran[k] == PAT_ALG_RELAY;
  for (int k = 100; k < 160; k++) relay_after += ran[k] == PAT_ALG_RELAY;
  printf("slow phase of every algorithm: relay %d of calls 80-99, %d of calls 100-159\n", relay_before,
         relay_after);
  CHECK(relay_before >= 18, "slow phase of every algorithm: relay ran %d of calls 80-99", relay_before);
  CHECK(relay_after >= 50, "slow phase of every algorithm: relay ran %d of calls 100-159", relay_after);
  return 0;
}

/* The best as chosen changes only for PAT_GAIN_FRACTION of the leader's
 * cost: the medians of two candidates 10% apart cross now and then through
 * the network's noise (P = 8, 256K floats, balanced: RELAY's last five
 * calls measured 18.5 ms against DIRECT's 18.2, RELAY alone takes 17.7 and
 * DIRECT 19.2), and the site then ran DIRECT for the rest of the launch,
 * RELAY having no new samples to show its cost.  A site whose leader is
 * RELAY keeps it against DIRECT 2% cheaper, and takes DIRECT 12% cheaper. */
static int test_leader_hysteresis(void) {
  const int64_t bytes = 1 << 18;
  const double direct_ms[2] = {18.1, 16.3}, relay_ms = 18.5;
  for (int cheaper = 0; cheaper < 2; cheaper++) {
    pat_engine_config cfg = {.P = 8, .mp = &model, .have_model = 0, .node = node_of, .record_bytes = RECORD_BYTES};
    pat_engine e;
    CHECK(pat_engine_init(&e, &cfg) == 0, "init");
    pat_engine_new_site(&e, 0, bytes, NULL);
    pat_engine_site *sp = &e.site[0];
    pat_guard_init(&sp->guard, 0.0235); /* NATIVE's static calls measured, RELAY kept against them */
    sp->guard.s_n = 5;
    sp->guard.state = PAT_GUARD_KEPT;
    sp->mode = PAT_MODE_EXCHANGE;
    sp->leader[PAT_REGIME_BALANCED] = PAT_ALG_RELAY;
    for (int k = 0; k < PAT_ARM_SAMPLES; k++) {
      pat_arms_add(&sp->arms, PAT_REGIME_BALANCED, PAT_ALG_RELAY, 1e-3 * relay_ms, 1.2, 95);
      pat_arms_add(&sp->arms, PAT_REGIME_BALANCED, PAT_ALG_DIRECT, 1e-3 * direct_ms[cheaper], 1.3, 95);
      pat_arms_add(&sp->arms, PAT_REGIME_BALANCED, PAT_ALG_RING, 20e-3, 1.4, 95);
    }
    int64_t a[MAXP];
    for (int r = 0; r < 8; r++) a[r] = 1000000000LL + 1000LL * r;
    pat_engine_call call = {.site = 0, .site_calls = 100, .setting = PAT_ALG_AUTO, .bytes = bytes, .arrival = a,
                            .bg_start_ns = PAT_NO_TIME, .records = PAT_RECORDS_ACTUAL};
    pat_choice c;
    pat_engine_choose(&e, &call, &c);
    const int want = cheaper ? PAT_ALG_DIRECT : PAT_ALG_RELAY;
    printf("leader relay at %.1f ms, direct at %.1f ms: %s\n", relay_ms, direct_ms[cheaper], pat_algorithms[c.alg].name);
    CHECK(c.alg == want && !c.explored, "leader relay at %.1f ms, direct at %.1f ms: chose %s%s, not %s", relay_ms,
          direct_ms[cheaper], pat_algorithms[c.alg].name, c.explored ? " (explored)" : "", pat_algorithms[want].name);
    pat_engine_free(&e);
  }
  return 0;
}

/* The decision log after each part, as the runtime's policy made it. */
static int check_log(const char *part, uint64_t expected) {
  printf("decision log %s %016llx\n", part, (unsigned long long)decision_log);
  CHECK(decision_log == expected, "decision log after %s: %016llx, the policy's was %016llx (decisions changed)", part,
        (unsigned long long)decision_log, (unsigned long long)expected);
  return 0;
}

/* The no-probe rule from the static choice's measured cost: 16 KiB blocks at P = 8 are modelled at
 * more than two exchanges (7 latencies) and probe; where NATIVE measures 0.3x the model (MPI's own
 * small all-gathers take log2 P rounds), the site stops probing once it has measured it, and
 * probes on where it measures as modelled. */
static int test_never_measured(void) {
  int64_t a[MAXP];
  long long exchanged[2];
  for (int cheap = 0; cheap <= 1; cheap++) {
    sim s;
    sim_start(&s, 8);
    s.native_factor = cheap ? 0.3 : 1.0;
    for (int k = 0; k < 2000; k++) {
      arrivals(&s, a, 0.0);
      CHECK(call(&s, 16384, a), "NATIVE x%.1f, call %d: ranks disagree", s.native_factor, k);
    }
    const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
    exchanged[cheap] = s.exchanged;
    CHECK(sp->never == cheap, "NATIVE x%.1f: never = %d (S %.1f us, two exchanges %.1f us)", s.native_factor,
          sp->never, 1e6 * sp->guard.s_cost, 2e6 * pat_engine_exchange_cost(&s.rank[0]->e));
    sim_end(&s);
  }
  CHECK(exchanged[1] <= 4 + 4 * (1 + PAT_GUARD_TRIAL), "cheap static choice: %lld of 2000 calls exchanged", exchanged[1]);
  CHECK(exchanged[0] >= 2000 / PAT_PROBE_MAX, "static choice as modelled: %lld of 2000 calls exchanged (probes)",
        exchanged[0]);
  printf("never from the measured S: %lld exchanges in 2000 calls where S is 0.3x the model, %lld as modelled\n",
         exchanged[1], exchanged[0]);
  return 0;
}


/* ---- What a new call shape costs (engine.h, PAT_EXPLORE_BUDGET; docs/guardrail.md) ---- */

/* Small blocks at P = 8 without a model file, as osu_allgather at 8 KiB measured them on the emulated
 * cluster: NATIVE 1.01 ms, DIRECT 2.35, RELAY 1.6, RING 1.4, the rest 3 (ms, both regimes). */
static void plant_small(double planted[2][PAT_ALG_COUNT]) {
  plant_every(planted, 3.0);
  for (int g = 0; g < 2; g++) {
    planted[g][PAT_ALG_NATIVE] = 1.01;
    planted[g][PAT_ALG_DIRECT] = 2.35;
    planted[g][PAT_ALG_RELAY] = 1.6;
    planted[g][PAT_ALG_RING] = 1.4;
  }
}

/* Balanced arrivals with a jitter of U[0, jitter_ms] per rank. */
static void jittered(sim *s, int64_t *a, double jitter_ms) {
  for (int r = 0; r < s->P; r++) a[r] = s->now + (int64_t)(urand() * jitter_ms * MS);
}

/* A run of `calls` calls of `bytes` at one site with the planted costs; ran[alg]: calls per
 * algorithm; *lost: what the calls that ran another algorithm than NATIVE lost against NATIVE alone
 * (ms, the exchange they paid included); *after_bar: calls of `watch` once it was barred. */
typedef struct small_run {
  int ran[PAT_ALG_COUNT], after_bar;
  double lost;
  long long exchanged;
} small_run;

static int run_small(sim *s, const double planted[2][PAT_ALG_COUNT], int64_t bytes, int calls, double jitter_ms,
                     int watch, small_run *out) {
  memset(out, 0, sizeof *out);
  const double x_ms = 1e3 * world_exchange(s);
  int64_t a[MAXP];
  long long before = s->exchanged;
  for (int k = 0; k < calls; k++) {
    jittered(s, a, jitter_ms);
    const pat_engine *e0 = &s->rank[0]->e;
    const int site = pat_sites_lookup(&s->rank[0]->sites, bytes);
    const double ref = site >= 0 && pat_guard_knows_static(&e0->site[site].guard) ? e0->site[site].guard.s_cost : 0;
    const int barred = site >= 0 && watch >= 0 &&
                       pat_arms_barred(&e0->site[site].arms, PAT_REGIME_BALANCED, ~0u, watch, ref);
    CHECK(call(s, bytes, a), "small blocks, call %d: ranks disagree", k);
    const int alg = pat_engine_last(&s->rank[0]->e, pat_sites_lookup(&s->rank[0]->sites, bytes))->alg;
    out->ran[alg]++;
    if (alg != PAT_ALG_NATIVE) out->lost += planted[PAT_REGIME_BALANCED][alg] + x_ms - planted[PAT_REGIME_BALANCED][PAT_ALG_NATIVE];
    if (barred && alg == watch) out->after_bar++;
  }
  out->exchanged = s->exchanged - before;
  return 0;
}

/* Arrival jitter small against the call's own time (under PAT_REGIME_JITTER of it) but longer than a
 * block's time (1 KiB: 58 us) files every call under the balanced regime: no candidate is explored
 * afresh in the imbalanced one. */
static int test_jitter_regime(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_small(planted);
  job_have_model = 0;
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  small_run run;
  if (run_small(&s, planted, 1024, 200, 0.09, -1, &run)) return 1;
  const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
  int imbalanced = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) imbalanced += pat_arms_n(&sp->arms, PAT_REGIME_IMBALANCED, alg);
  printf("jitter 90 us at 1 KiB (a block 58 us, the call 1 ms): %d imbalanced samples, regime seen %s\n", imbalanced,
         sp->regime_seen == PAT_REGIME_BALANCED ? "balanced" : "imbalanced");
  CHECK(imbalanced == 0 && sp->regime_seen == PAT_REGIME_BALANCED,
        "jitter under 10%% of the call: %d samples filed as imbalanced", imbalanced);
  sim_end(&s);
  job_have_model = 1;
  return 0;
}

/* The no-probe rule from the exchange's measured cost: at 8 KiB (NATIVE 1.01 ms, P = 8, no model file)
 * the modelled exchange is under half the call and the site probes; where an exchange costs the calls
 * three times that (the emulated cluster measured an exchanged call of 8 KiB at 1.4-2.1 ms, the call
 * alone at 0.7), the ranks' records carry it, the rules take it (agreed, every rank alike), and the
 * site stops probing once two exchanges cost more than the call. */
static int test_never_exchange_measured(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_small(planted);
  job_have_model = 0;
  long long later[2];
  for (int high = 0; high <= 1; high++) {
    sim s;
    sim_start(&s, 8);
    s.planted = (const double(*)[PAT_ALG_COUNT])planted;
    s.exchange_factor = high ? 3.0 : 1.0;
    small_run first, rest;
    if (run_small(&s, planted, 8192, 100, 0.05, -1, &first) || run_small(&s, planted, 8192, 200, 0.05, -1, &rest))
      return 1;
    const pat_engine *e0 = &s.rank[0]->e;
    const pat_engine_site *sp = pat_engine_site_state(e0, 0);
    const double x = pat_engine_exchange_cost(e0), world = world_exchange(&s);
    printf("8 KiB, an exchange %.0f us (modelled %.0f): %lld exchanges in the first 100 calls, %lld in the next "
           "200; the rules' exchange %.0f us, never %d\n", 1e6 * world, 1e6 * pat_engine_exchange_modelled(e0),
           first.exchanged, rest.exchanged, 1e6 * x, sp->never);
    CHECK(fabs(x - world) <= 0.01 * world, "exchange x%.0f: the rules take %.0f us, the world's is %.0f us",
          s.exchange_factor, 1e6 * x, 1e6 * world);
    CHECK(sp->never == high, "exchange x%.0f: never = %d (S %.0f us, two exchanges %.0f us)", s.exchange_factor,
          sp->never, 1e6 * sp->guard.s_cost, 2e6 * x);
    later[high] = rest.exchanged;
    sim_end(&s);
  }
  CHECK(later[1] == 0, "an exchange 3x the model's: %lld exchanges in calls 100-300", later[1]);
  CHECK(later[0] >= 200 / PAT_PROBE_MAX, "an exchange as modelled: %lld exchanges (probes) in calls 100-300",
        later[0]);
  job_have_model = 1;
  return 0;
}

/* A candidate measured clearly slower is not tried again, and exploration stays within its budget.
 * DIRECT at 2.35x NATIVE (osu_allgather at 8 KiB, where DIRECT ran 14 of 55 calls): it runs at most
 * twice in 300 calls (the bar needs two samples, the first may be a cold call), never once barred;
 * over the first 55 calls what exploring lost stays within PAT_EXPLORE_BUDGET of the calls' time plus
 * PAT_EXPLORE_ALLOW static calls. */
static int test_explore_budget(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_small(planted);
  job_have_model = 0;
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  small_run first, rest;
  if (run_small(&s, planted, 8192, 55, 0.05, PAT_ALG_DIRECT, &first)) return 1;
  if (run_small(&s, planted, 8192, 245, 0.05, PAT_ALG_DIRECT, &rest)) return 1;
  const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
  const double S = planted[0][PAT_ALG_NATIVE], budget = PAT_EXPLORE_BUDGET * 55 * S + PAT_EXPLORE_ALLOW * S;
  printf("8 KiB, DIRECT 2.35x: first 55 calls native %d direct %d relay %d ring %d, lost %.2f ms (budget %.2f); "
         "300 calls: direct %d, %d after barred, %lld exchanged\n", first.ran[PAT_ALG_NATIVE],
         first.ran[PAT_ALG_DIRECT], first.ran[PAT_ALG_RELAY], first.ran[PAT_ALG_RING], first.lost, budget,
         first.ran[PAT_ALG_DIRECT] + rest.ran[PAT_ALG_DIRECT], first.after_bar + rest.after_bar,
         first.exchanged + rest.exchanged);
  CHECK(first.lost <= budget, "first 55 calls: exploring lost %.2f ms, over the budget %.2f ms", first.lost, budget);
  CHECK(first.ran[PAT_ALG_DIRECT] + rest.ran[PAT_ALG_DIRECT] <= 2 && first.after_bar + rest.after_bar == 0,
        "DIRECT at 2.35x: %d calls in 300, %d after it was barred", first.ran[PAT_ALG_DIRECT] + rest.ran[PAT_ALG_DIRECT],
        first.after_bar + rest.after_bar);
  CHECK(sp->explore_spent <= PAT_EXPLORE_BUDGET * 300 * sp->guard.s_cost + PAT_EXPLORE_ALLOW * sp->guard.s_cost +
                                 2.35e-3,
        "300 calls: the site's account spent %.2f ms", 1e3 * sp->explore_spent);
  sim_end(&s);
  job_have_model = 1;
  return 0;
}

/* A model file is a prior: its static choice (DIRECT, its levels 25% under NATIVE's) is measured at
 * the site's second call, NATIVE at its third, and where NATIVE measures cheaper (DIRECT planted at
 * 130 ms, NATIVE at 100) the model is dropped for the site within 3 calls, NATIVE becoming the static
 * choice; where the model is right (DIRECT at 75) it stays, for one call of NATIVE. */
static int test_model_checked(void) {
  const int64_t bytes = 1 << 19;
  const pat_model_params saved = model;
  add_direct_levels(bytes);
  for (int wrong = 0; wrong < 2; wrong++) {
    double planted[2][PAT_ALG_COUNT];
    plant_balanced(planted, 110, wrong ? 130 : 75, 120, 100);
    sim s;
    sim_start(&s, 8);
    s.planted = (const double(*)[PAT_ALG_COUNT])planted;
    s.first_on_arrival = 1;
    int64_t a[MAXP];
    int native = 0, direct = 0;
    for (int k = 0; k < 30; k++) {
      arrivals(&s, a, 0.0);
      CHECK(call(&s, bytes, a), "model check, call %d: ranks disagree", k);
      const int alg = pat_engine_last(&s.rank[0]->e, 0)->alg;
      native += alg == PAT_ALG_NATIVE;
      direct += alg == PAT_ALG_DIRECT;
    }
    const pat_engine_site *sp = pat_engine_site_state(&s.rank[0]->e, 0);
    char d[600];
    pat_engine_describe_site(&s.rank[0]->e, 0, d, sizeof d);
    printf("model check, DIRECT %s: dropped %d at call %lld, static %s, 30 calls: native %d direct %d\n  %s\n",
           wrong ? "1.3x NATIVE" : "0.75x NATIVE", sp->model_dropped, sp->model_dropped_at,
           pat_algorithms[sp->static_alg].name, native, direct, d);
    if (wrong)
      CHECK(sp->model_dropped && sp->model_dropped_at <= 3 && sp->static_alg == PAT_ALG_NATIVE && direct <= 3,
            "a model contradicted: dropped %d at call %lld, static %s, DIRECT ran %d of 30", sp->model_dropped,
            sp->model_dropped_at, pat_algorithms[sp->static_alg].name, direct);
    else
      CHECK(!sp->model_dropped && sp->static_alg == PAT_ALG_DIRECT && native <= 1,
            "a model confirmed: dropped %d, static %s, NATIVE ran %d of 30", sp->model_dropped,
            pat_algorithms[sp->static_alg].name, native);
    sim_end(&s);
  }
  model = saved;
  return 0;
}

/* New call shapes learn from old ones (PAT_CARRY_SPAN).  Small blocks: after 300 calls at 8 KiB, the
 * next size (16 KiB, a new site) runs none of the candidates measured no faster than NATIVE there.
 * Imbalanced 1M floats (RELAY 0.6x NATIVE, DIRECT 0.93x, RING 1.1x): the next size (2M floats)
 * explores RELAY first and never RING. */
static int test_carry_sizes(void) {
  double planted[2][PAT_ALG_COUNT];
  plant_small(planted);
  job_have_model = 0;
  sim s;
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  small_run a8, a16;
  if (run_small(&s, planted, 8192, 300, 0.05, -1, &a8) || run_small(&s, planted, 16384, 55, 0.05, -1, &a16)) return 1;
  printf("carried, small blocks: 8 KiB ran direct %d relay %d ring %d in 300 calls; 16 KiB direct %d relay %d ring %d "
         "in 55\n", a8.ran[PAT_ALG_DIRECT], a8.ran[PAT_ALG_RELAY], a8.ran[PAT_ALG_RING], a16.ran[PAT_ALG_DIRECT],
         a16.ran[PAT_ALG_RELAY], a16.ran[PAT_ALG_RING]);
  CHECK(a16.ran[PAT_ALG_NATIVE] == 55, "16 KiB after 8 KiB: %d of 55 calls NATIVE", a16.ran[PAT_ALG_NATIVE]);
  sim_end(&s);

  static const double cost[PAT_ALG_COUNT] = {[PAT_ALG_NATIVE] = 100, [PAT_ALG_DIRECT] = 93, [PAT_ALG_RELAY] = 60,
                                             [PAT_ALG_RING] = 110};
  plant_every(planted, 130);
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++)
    if (cost[alg] > 0) planted[PAT_REGIME_IMBALANCED][alg] = cost[alg];
  sim_start(&s, 8);
  s.planted = (const double(*)[PAT_ALG_COUNT])planted;
  int64_t a[MAXP];
  int first_other = -1, ring = 0;
  for (int size = 0; size < 2; size++)
    for (int k = 0; k < 100; k++) {
      arrivals(&s, a, 100.0);
      const int64_t bytes = (int64_t)1 << (19 + size);
      CHECK(call(&s, bytes, a), "carried, imbalanced, size %d call %d: ranks disagree", size, k);
      const int alg = pat_engine_last(&s.rank[0]->e, pat_sites_lookup(&s.rank[0]->sites, bytes))->alg;
      if (size == 1 && alg != PAT_ALG_NATIVE && first_other < 0) first_other = alg;
      if (size == 1) ring += alg == PAT_ALG_RING;
    }
  printf("carried, imbalanced: 2M floats first ran %s besides NATIVE, RING %d times\n",
         first_other >= 0 ? pat_algorithms[first_other].name : "nothing", ring);
  CHECK(first_other == PAT_ALG_RELAY && ring == 0, "2M floats after 1M: first other %s, RING ran %d times",
        first_other >= 0 ? pat_algorithms[first_other].name : "none", ring);
  sim_end(&s);
  job_have_model = 1;
  return 0;
}

/* A model file measured the site's static choice (DIRECT, its levels): the algorithms the site never
 * ran are predicted with the geometric mean of the least and greatest ratio its schedules measured
 * against the model (DIRECT 2.5x, ARD 4x: sqrt 10; with RING at 1.5x, sqrt 6), MPI's own ratio left
 * out; those it ran keep their own.  Unscaled where the file has no levels, once the site
 * dropped the model, and while only arrival-aware schedules were measured (their costs above the wait
 * are the model's least sure). */
static int test_model_ratios(void) {
  const int64_t bytes = 1 << 19;
  const pat_model_params saved = model;
  add_direct_levels(bytes);
  pat_engine_config cfg = {.P = 8, .mp = &model, .have_model = 1, .node = node_of, .record_bytes = 72};
  static const char *cases[] = {"levels", "no levels", "model dropped", "only ARD measured", "RING too"};
  for (int c = 0; c < 5; c++) {
    pat_engine e;
    CHECK(pat_engine_init(&e, &cfg) == 0, "init");
    if (c == 1) model = saved; /* a file without levels */
    pat_engine_new_site(&e, 0, bytes, NULL);
    if (c == 1) add_direct_levels(bytes);
    pat_engine_site *sp = &e.site[0];
    sp->static_alg = PAT_ALG_DIRECT;
    const int run[] = {PAT_ALG_DIRECT, PAT_ALG_ARD, PAT_ALG_NATIVE, PAT_ALG_RING};
    const double ratio[] = {2.5, 4.0, 0.5, 1.5};
    for (int i = c == 3 ? 1 : 0; i < (c == 4 ? 4 : 3); i++) {
      sp->refine.ratio[run[i]] = ratio[i];
      sp->refine.samples[run[i]] = 1;
    }
    sp->model_dropped = c == 2;
    double out[PAT_ALG_COUNT];
    const double *r = pat_engine_ratios(&e, 0, out);
    const double unrun = c == 0 ? sqrt(2.5 * 4.0) : c == 4 ? sqrt(1.5 * 4.0) : 0;
    CHECK(r[PAT_ALG_RELAY] == unrun && r[PAT_ALG_BDR] == unrun && r[PAT_ALG_RING] == (c == 4 ? 1.5 : unrun) &&
              r[PAT_ALG_ARD] == 4.0 && r[PAT_ALG_NATIVE] == 0.5 && r[PAT_ALG_DIRECT] == (c == 3 ? 0 : 2.5),
          "ratios, %s: RELAY %.3f BDR %.3f RING %.3f ARD %.3f NATIVE %.3f DIRECT %.3f (the unrun's: %.3f)", cases[c],
          r[PAT_ALG_RELAY], r[PAT_ALG_BDR], r[PAT_ALG_RING], r[PAT_ALG_ARD], r[PAT_ALG_NATIVE], r[PAT_ALG_DIRECT],
          unrun);
    pat_engine_free(&e);
  }
  model = saved;
  return 0;
}

int main(void) {
  for (int r = 0; r < MAXP; r++) node_of[r] = r;
  pat_model_params_init(&model, 50e-6, 8e-9); /* 50 us, ~1 Gbit/s */
  if (test_agreement() || check_log("agreement", 0x016ceb528823c0fbull)) return 1;
  if (test_purpose() || check_log("purpose", 0xad9be138ae87976aull)) return 1;
  if (test_unpredictable() || check_log("unpredictable", 0x6c849c27ebb91d19ull)) return 1;
  if (test_settle() || check_log("settle", 0xf2eb471e1185068aull)) return 1;
  if (test_first_call_gain() || test_static_b2b() || test_native_measured() || test_promote_last_out() ||
      test_one_node() || test_unequal_relay_site() || test_planted() || test_planted_nodes() ||
      test_cold_model_pick() || test_history_not_judged() || test_explore_regime_unpredictable() ||
      test_leader_hysteresis() || test_recheck_slow_phase() || test_slow_phase_every_algorithm() ||
      test_decided_candidate())
    return 1;
  if (test_measured() || check_log("measured", 0x1aea8ef9efa6dfd5ull)) return 1;
  job_plan_ahead = 1; /* as in a run: on by default */
  if (test_measured() || test_unpredictable() || check_log("plan-ahead", 0x086841efbd151ce6ull)) return 1;
  job_exchange_always = 1;
  if (test_measured() || check_log("always", 0xc44746ee17ebc26full)) return 1;
  job_plan_ahead = job_exchange_always = 0;
  pat_model_params_init(&model, 50e-6, 8e-9); /* test_measured left measured times in it */
  if (test_never_measured() || check_log("never", 0xa85505fe7a0dd13cull)) return 1;
  if (test_jitter_regime() || test_explore_budget() || test_never_exchange_measured() || test_model_checked() ||
      test_carry_sizes() || test_far_candidate() || test_stale_model() || test_model_check_far() || test_model_ratios())
    return 1;
  return TEST_RESULT();
}
