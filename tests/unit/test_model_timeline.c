/* Hand-computed timelines: background receives, bg_start, ports shared by
 * concurrent transfers (the fluid replay), eager sends, an all-to-all step,
 * bad schedules, and the receive-port lower bound.
 *
 * Parameters alpha = 1, beta = 0.5, blocks of 2 bytes: one block costs 2. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "testutil.h"

typedef struct tr {
  int n;
  pat_model_xfer x[64];
} tr;
static void collect(void *ctx, const pat_model_xfer *x) {
  tr *t = ctx;
  if (t->n < 64) t->x[t->n++] = *x;
}
static const pat_model_xfer *find(const tr *t, int step, int from, int to) {
  for (int i = 0; i < t->n; i++)
    if (t->x[i].step == step && t->x[i].from == from && t->x[i].to == to) return &t->x[i];
  return NULL;
}

static void xfer(pat_sched *s, int step, int from, int to, int block) {
  pat_span sp = pat_blocks(s->P, block, 1);
  pat_sched_transfer(s, step, from, to, 1, &sp, 0);
}

/* replay with the given engine; check f exactly */
static int run(const pat_sched *s, const double *a, pat_model_params *mp, int engine, const double *expect_f, tr *t,
               int *engine_used) {
  double f[8];
  pat_model_result res = {0};
  res.f = f;
  mp->engine = engine;
  mp->trace = t ? collect : NULL;
  mp->trace_ctx = t;
  if (t) t->n = 0;
  int rc = pat_model_replay(s, a, mp, 2.0, &res);
  if (rc) {
    fprintf(stderr, "  replay failed: %d\n", rc);
    return 0;
  }
  if (engine_used) *engine_used = res.engine;
  int ok = 1;
  for (int i = 0; i < s->P; i++)
    if (f[i] != expect_f[i]) {
      fprintf(stderr, "  rank %d: f = %.17g, expected %g (engine %d)\n", i, f[i], expect_f[i], res.engine);
      ok = 0;
    }
  return ok;
}

/* The smallest makespan of one port serving blocks released at b[] taking
 * t[] each, over every order of the n blocks (n <= 7). */
static double best_makespan(int n, const double *b, const double *t, int *used, int depth, double now) {
  if (depth == n) return now;
  double best = INFINITY;
  for (int j = 0; j < n; j++) {
    if (used[j]) continue;
    used[j] = 1;
    double m = best_makespan(n, b, t, used, depth + 1, (now > b[j] ? now : b[j]) + t[j]);
    if (m < best) best = m;
    used[j] = 0;
  }
  return best;
}

static void brute_lb_v(int P, const double *a, const double *tau, double *e) {
  double b[8], t[8];
  int used[8] = {0};
  for (int i = 0; i < P; i++) {
    int n = 0;
    for (int j = 0; j < P; j++)
      if (j != i) {
        b[n] = a[j];
        t[n++] = tau[j];
      }
    double f = best_makespan(n, b, t, used, 0, -INFINITY);
    e[i] = P == 1 ? 0 : (f - a[i] > 0 ? f - a[i] : 0);
  }
}

static int brute_lb(int P, const double *a, double tau, double *e) {
  double sum = 0;
  double *b = malloc((size_t)P * sizeof *b);
  for (int i = 0; i < P; i++) {
    int n = 0;
    for (int j = 0; j < P; j++)
      if (j != i) b[n++] = a[j];
    for (int x = 1; x < n; x++) /* insertion sort */
      for (int y = x; y > 0 && b[y - 1] > b[y]; y--) {
        double tmp = b[y];
        b[y] = b[y - 1];
        b[y - 1] = tmp;
      }
    double t = -INFINITY;
    for (int k = 0; k < n; k++) t = (t > b[k] ? t : b[k]) + tau;
    e[i] = P == 1 ? 0 : (t - a[i] > 0 ? t - a[i] : 0);
    sum += e[i];
  }
  free(b);
  return 0;
}

int main(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, 1.0, 0.5);
  tr t;
  const pat_model_xfer *x;
  int used;

  /* ---- 1. background receives, a contended receive port and send port ----
   * step 0: 0->1 b0          (rank 1 only receives: background)
   * step 1: 1->2 b0          (rank 1 forwards; rank 2 only receives: background)
   * step 2: 1->0 b1, 2->0 b2 (ranks 1, 2 send their own: foreground; rank 0 receives two)
   * step 3: 0->1 b2, 0->2 b1 (rank 0 sends two)                                        */
  pat_sched s;
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  s.flags |= PAT_SCHED_MULTI_RECV | PAT_SCHED_MULTI_SEND;
  xfer(&s, 0, 0, 1, 0);
  xfer(&s, 1, 1, 2, 0);
  xfer(&s, 2, 1, 0, 1);
  xfer(&s, 2, 2, 0, 2);
  xfer(&s, 3, 0, 1, 2);
  xfer(&s, 3, 0, 2, 1);
  pat_sched_finalize(&s);
  char err[200];
  CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "hand schedule invalid: %s", err);
  double a1[3] = {0, 2, 10};
  /* 0->1 at 0..2 (rank 1 not arrived: background); 1->2 at 2..4 (rank 2 still
   * computing); 1->0 ready max(2, 4) = 4: 4..6; 2->0 waits for a_2 = 10: 10..12;
   * rank 0 then sends b2 to 1 and b1 to 2, both ready at 12: after alpha (13)
   * they share its send port, half its rate each, so a block (1 s of port
   * time) takes 2 s: both end at 15. */
  double f1[3] = {15, 15, 15};
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    CHECK(run(&s, a1, &mp, eng, f1, &t, &used), "timeline 1, engine %d", eng);
    CHECK(t.n == 6, "6 transfers, got %d", t.n);
    CHECK((x = find(&t, 0, 0, 1)) && x->start == 0 && x->end == 2, "0->1 at 0..2");
    CHECK((x = find(&t, 1, 1, 2)) && x->start == 2 && x->end == 4, "bg receive 1->2 at 2..4");
    CHECK((x = find(&t, 2, 1, 0)) && x->ready == 4 && x->start == 4 && x->end == 6, "1->0 at 4..6");
    CHECK((x = find(&t, 2, 2, 0)) && x->start == 10 && x->end == 12, "2->0 at 10..12");
    CHECK((x = find(&t, 3, 0, 1)) && x->ready == 12 && x->start == 12 && x->end == 15, "0->1 at 12..15, shared");
    CHECK((x = find(&t, 3, 0, 2)) && x->ready == 12 && x->start == 12 && x->end == 15, "0->2 at 12..15, shared");
  }
  mp.engine = PAT_ENGINE_AUTO;
  pat_model_result res = {0};
  double e[3];
  int fg[3];
  res.e = e;
  res.fg_step = fg;
  CHECK(pat_model_replay(&s, a1, &mp, 2.0, &res) == PAT_OK, "replay");
  CHECK(e[0] == 15 && e[1] == 13 && e[2] == 5, "e = %g %g %g", e[0], e[1], e[2]);
  CHECK(res.ebar == 11 && res.r == 15 && res.omega == 10, "ebar %g r %g omega %g", res.ebar, res.r, res.omega);
  CHECK(fg[0] == 0 && fg[1] == 2 && fg[2] == 2, "foreground steps %d %d %d", fg[0], fg[1], fg[2]);

  /* same, any origin: shift every arrival by 1e9 s */
  double a1s[3] = {1e9, 1e9 + 2, 1e9 + 10};
  CHECK(pat_model_replay(&s, a1s, &mp, 2.0, &res) == PAT_OK && res.ebar == 11, "origin shift");

  /* bg_start = 3: rank 1 arrived at 2, before the background thread could
   * start, so its step 0 runs at its arrival (2..4); rank 2's background
   * receive starts when both are ready (4..6); the end is the same. */
  mp.bg_start = 3;
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    CHECK(run(&s, a1, &mp, eng, f1, &t, NULL), "bg_start, engine %d", eng);
    CHECK((x = find(&t, 0, 0, 1)) && x->start == 2 && x->end == 4, "0->1 at 2..4 with bg_start 3");
    CHECK((x = find(&t, 1, 1, 2)) && x->start == 4 && x->end == 6, "1->2 at 4..6 with bg_start 3");
  }
  /* bg_start = +inf (no background thread): rank 2's receive waits for
   * a_2 (10..12), so b1 (from rank 1) and b2 (from rank 2) are both ready at
   * 12 and share rank 0's receive port (12..15), then rank 0's two sends
   * share its send port (15..18). */
  mp.bg_start = INFINITY;
  double f1n[3] = {18, 18, 18};
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    CHECK(run(&s, a1, &mp, eng, f1n, &t, NULL), "no background, engine %d", eng);
    CHECK((x = find(&t, 1, 1, 2)) && x->start == 10 && x->end == 12, "1->2 at 10..12 without background");
    CHECK((x = find(&t, 2, 2, 0)) && x->ready == 12 && x->end == 15, "2->0 shares rank 0's receive port with 1->0");
  }
  mp.bg_start = -INFINITY;
  pat_sched_free(&s);

  /* ---- 2. eager against rendezvous ----
   * P=3, a = {0, 10, 0}, no background thread.
   * step 0: 0->1 b0; step 1: 0<->2 (b0, b2); step 2: 1->0 b1, 0->1 b2; step 3: 0->2 b1 */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  xfer(&s, 0, 0, 1, 0);
  xfer(&s, 1, 0, 2, 0);
  xfer(&s, 1, 2, 0, 2);
  xfer(&s, 2, 1, 0, 1);
  xfer(&s, 2, 0, 1, 2);
  xfer(&s, 3, 0, 2, 1);
  pat_sched_finalize(&s);
  CHECK(pat_sched_check(&s, PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND, err, sizeof err) == 0, "eager schedule: %s", err);
  double a2[3] = {0, 10, 0};
  mp.bg_start = INFINITY;
  /* rendezvous: rank 0 waits for rank 1 in step 0 (10..12), then 12..14, 14..16, 16..18 */
  double f2r[3] = {18, 16, 18};
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++)
    CHECK(run(&s, a2, &mp, eng, f2r, &t, NULL), "rendezvous, engine %d", eng);
  /* eager (2-byte messages below 3 bytes): 0->1 leaves at 0..2 without rank 1;
   * 2->0 at 0..2; 0->2 at 2..4; 0->1 (step 2) at 4..6; 1->0 when rank 1 arrives,
   * 10..12; then 0->2 at 12..14.  Rank 1 gets b0 at max(10, 2) and b2 at max(10, 6). */
  mp.eager_bytes = 3;
  double f2e[3] = {14, 12, 14};
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    CHECK(run(&s, a2, &mp, eng, f2e, &t, &used), "eager, engine %d", eng);
    CHECK((x = find(&t, 0, 0, 1)) && x->eager && x->start == 0 && x->end == 2, "eager 0->1 at 0..2");
    CHECK((x = find(&t, 2, 0, 1)) && x->start == 4 && x->end == 6, "eager 0->1 at 4..6");
    CHECK((x = find(&t, 2, 1, 0)) && x->start == 10 && x->end == 12, "1->0 at 10..12");
  }
  /* a threshold at the message size keeps it rendezvous */
  mp.eager_bytes = 2;
  CHECK(run(&s, a2, &mp, PAT_ENGINE_AUTO, f2r, &t, &used), "threshold is strict");
  mp.eager_bytes = 0;
  mp.bg_start = -INFINITY;
  pat_sched_free(&s);

  /* ---- 3. every rank sends its block to every other in one step: every
   * port carries 3 transfers at a third of its rate, so all 12 end together
   * at alpha + 3 blocks = 1 + 3. ---- */
  pat_sched_init(&s, 4, PAT_ALL_RANKS);
  s.flags |= PAT_SCHED_MULTI_RECV | PAT_SCHED_MULTI_SEND;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (i != j) xfer(&s, 0, i, j, i);
  pat_sched_finalize(&s);
  double a3[4] = {0, 0, 0, 0}, f3[4] = {4, 4, 4, 4};
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    CHECK(run(&s, a3, &mp, eng, f3, &t, &used), "all-to-all step, engine %d", eng);
    CHECK((x = find(&t, 0, 1, 2)) && x->start == 0 && x->end == 4, "1->2 at 0..4");
    CHECK((x = find(&t, 0, 2, 3)) && x->start == 0 && x->end == 4, "2->3 at 0..4");
  }
  pat_sched_free(&s);

  /* ---- 4. bad input ---- */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_span b0 = pat_blocks(2, 0, 1);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &b0, 0); /* no receive */
  pat_sched_finalize(&s);
  res = (pat_model_result){0};
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    mp.engine = eng;
    CHECK(pat_model_replay(&s, NULL, &mp, 2.0, &res) == PAT_EINVAL, "unmatched send accepted (engine %d)", eng);
  }
  pat_sched_free(&s);
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &b0, 0);
  pat_sched_add(&s, 1, 1, PAT_OP_RECV, 0, 1, &b0, 0); /* wrong step */
  pat_sched_finalize(&s);
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    mp.engine = eng;
    CHECK(pat_model_replay(&s, NULL, &mp, 2.0, &res) == PAT_EINVAL, "step mismatch accepted (engine %d)", eng);
  }
  pat_sched_free(&s);
  /* two sends facing each other, no receives */
  pat_span b1 = pat_blocks(2, 1, 1);
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &b0, 0);
  pat_sched_add(&s, 1, 0, PAT_OP_SEND, 0, 1, &b1, 0);
  pat_sched_finalize(&s);
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    mp.engine = eng;
    CHECK(pat_model_replay(&s, NULL, &mp, 2.0, &res) == PAT_EINVAL, "send facing send accepted (engine %d)", eng);
  }
  pat_sched_free(&s);
  /* a receive naming another sender than the one that sends */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  pat_span c0 = pat_blocks(3, 0, 1), c2 = pat_blocks(3, 2, 1);
  pat_sched_add(&s, 0, 0, PAT_OP_RECV, 1, 1, &c2, 0); /* rank 0 expects rank 1 ... */
  pat_sched_add(&s, 2, 0, PAT_OP_SEND, 0, 1, &c2, 0); /* ... but rank 2 sends */
  pat_sched_add(&s, 1, 1, PAT_OP_SEND, 0, 1, &c0, 0);
  pat_sched_finalize(&s);
  for (int eng = PAT_ENGINE_AUTO; eng <= PAT_ENGINE_EVENT; eng++) {
    mp.engine = eng;
    CHECK(pat_model_replay(&s, NULL, &mp, 2.0, &res) == PAT_EINVAL, "wrong sender accepted (engine %d)", eng);
  }
  pat_sched_free(&s);
  pat_sched_init(&s, 2, 0); /* one rank only */
  pat_sched_finalize(&s);
  CHECK(pat_model_replay(&s, NULL, &mp, 2.0, &res) == PAT_EINVAL, "single-rank schedule accepted");
  pat_sched_free(&s);
  mp.engine = PAT_ENGINE_AUTO;

  /* P = 1: nothing to do, leaves at arrival */
  pat_sched_init(&s, 1, PAT_ALL_RANKS);
  pat_sched_finalize(&s);
  double one = 5, fone;
  res = (pat_model_result){0};
  res.f = &fone;
  CHECK(pat_model_replay(&s, &one, &mp, 2.0, &res) == PAT_OK && fone == 5 && res.ebar == 0, "P=1");
  pat_sched_free(&s);

  /* ---- Proficz 2021, Fig. 4(a): RING, P = 4, process 0 late by 2 tau:
   * processes 1-3 spend 5 tau, process 0 spends 3 tau ---- */
  {
    pat_model_params unit;
    pat_model_params_init(&unit, 1.0, 0.0); /* tau = 1 */
    pat_build_args args = {4, PAT_ALL_RANKS, NULL, 0, 0, 0, 0, NULL, NULL, NULL};
    CHECK(pat_build(PAT_ALG_RING, &s, &args) == PAT_OK, "ring");
    double a4[4] = {2, 0, 0, 0}, e4[4];
    res = (pat_model_result){0};
    res.e = e4;
    CHECK(pat_model_replay(&s, a4, &unit, 1.0, &res) == PAT_OK, "replay");
    CHECK(e4[0] == 3 && e4[1] == 5 && e4[2] == 5 && e4[3] == 5, "ring e = %g %g %g %g", e4[0], e4[1], e4[2], e4[3]);
    pat_sched_free(&s);
  }

  /* ---- unequal blocks: equal sizes replay as block_bytes does, bit for
   * bit, for every algorithm (pieces too); DIRECT at P = 2 with blocks of 1
   * and 3 bytes ends when the 3 bytes are through, on both ranks ---- */
  {
    pat_model_params bytes;
    pat_model_params_init(&bytes, 0.0, 1.0);
    double a5[5] = {0, 3, 1, 0, 7}, size5[5] = {2.5, 2.5, 2.5, 2.5, 2.5}, ev[5], eu[5];
    for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
      if (!pat_algorithms[alg].build) continue;
      pat_build_args args = {5, PAT_ALL_RANKS, NULL, 1000, 0, 0, 65536, NULL, NULL, NULL};
      CHECK(pat_build(alg, &s, &args) == PAT_OK, "%s", pat_algorithms[alg].name);
      pat_model_result rv = {.e = ev}, ru = {.e = eu};
      CHECK(pat_model_replay_v(&s, a5, &bytes, size5, &rv) == PAT_OK &&
                pat_model_replay(&s, a5, &bytes, 2.5, &ru) == PAT_OK,
            "%s: replay", pat_algorithms[alg].name);
      CHECK(memcmp(ev, eu, sizeof ev) == 0 && rv.ebar == ru.ebar, "%s: equal blocks replay differently (%g, %g)",
            pat_algorithms[alg].name, rv.ebar, ru.ebar);
      pat_sched_free(&s);
    }
    pat_build_args args = {2, PAT_ALL_RANKS, NULL, 0, 0, 0, 0, NULL, NULL, NULL};
    CHECK(pat_build(PAT_ALG_DIRECT, &s, &args) == PAT_OK, "direct");
    double a2[2] = {0, 0}, size2[2] = {1, 3}, e2[2];
    pat_model_result r2 = {.e = e2};
    CHECK(pat_model_replay_v(&s, a2, &bytes, size2, &r2) == PAT_OK && e2[0] == 3 && e2[1] == 3,
          "direct, blocks of 1 and 3: e = %g %g", e2[0], e2[1]);
    CHECK(pat_model_replay_v(&s, a2, &bytes, NULL, &r2) == PAT_EINVAL, "no sizes accepted");
    pat_sched_free(&s);
  }

  /* ---- 5. lower bound ---- */
  double lb[8], bl[8];
  double z[4] = {0, 0, 0, 0};
  CHECK(pat_lower_bound(4, z, 1.0, lb) == 3.0 && lb[0] == 3 && lb[3] == 3, "balanced P=4: (P-1) tau");
  double late[4] = {0, 0, 0, 100};
  double ebar = pat_lower_bound(4, late, 1.0, lb);
  CHECK(lb[3] == 0 && lb[0] == 101 && lb[1] == 101 && lb[2] == 101, "late rank: %g %g", lb[0], lb[3]);
  CHECK(ebar == 303.0 / 4, "late rank mean %g", ebar);
  double two[2] = {0, 5};
  pat_lower_bound(2, two, 1.0, lb);
  CHECK(lb[0] == 6 && lb[1] == 0, "P=2: %g %g", lb[0], lb[1]);
  uint64_t seed = 12345;
  for (int trial = 0; trial < 200; trial++) {
    int P = 1 + trial % 8;
    double a[8];
    for (int i = 0; i < P; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      a[i] = (double)(seed >> 40) / (1 << 20) * (trial % 3 == 0 ? 1 : 10);
    }
    pat_lower_bound(P, a, 1.0, lb);
    brute_lb(P, a, 1.0, bl);
    for (int i = 0; i < P; i++) CHECK(fabs(lb[i] - bl[i]) < 1e-12, "lower bound differs from brute force");
  }
  /* unequal transfer times (all-gatherv): against the best of every order */
  for (int trial = 0; trial < 300; trial++) {
    int P = 1 + trial % 6;
    double a[8], t[8];
    for (int i = 0; i < P; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      a[i] = (double)(seed >> 40) / (1 << 20) * (trial % 3 == 0 ? 1 : 10);
      if (trial % 5 == 0) a[i] = (double)(i % 2); /* ties between releases */
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      t[i] = (double)(seed >> 40) / (1 << 22) + (trial % 7 == 0 ? 0 : 0.25);
    }
    double mean = pat_lower_bound_v(P, a, t, lb), sum = 0;
    brute_lb_v(P, a, t, bl);
    for (int i = 0; i < P; i++) {
      CHECK(fabs(lb[i] - bl[i]) < 1e-9, "P=%d trial %d: lower bound %g, best order %g", P, trial, lb[i], bl[i]);
      sum += bl[i];
    }
    CHECK(fabs(mean - sum / P) < 1e-9, "mean %g against %g", mean, sum / P);
  }
  double ones[4] = {1, 1, 1, 1}, lbv[4];
  CHECK(pat_lower_bound_v(4, late, ones, lbv) == pat_lower_bound(4, late, 1.0, lb) && lbv[0] == lb[0],
        "equal times: the same bound");
  return TEST_RESULT();
}
