/* Selection: the compiled programs give exactly what replaying the full
 * schedule gives; every "rank" choosing from the same inputs chooses the
 * same; balanced patterns pick a classic algorithm; ties go to the lowest id. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/select.h"
#include "testutil.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd64(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* the reference: build every rank's schedule, replay it */
static int full_replay(int alg, int root, int P, const int64_t *a_ns, int64_t bg_ns, double bb,
                       const pat_model_params *mp, double *f, pat_model_result *res) {
  pat_build_args args = {P, PAT_ALL_RANKS, a_ns, 1000, root, 0, 0, NULL, NULL, NULL};
  pat_sched s;
  int rc = pat_build(alg, &s, &args);
  if (rc) return rc;
  int64_t amin = a_ns[0];
  for (int i = 1; i < P; i++) amin = a_ns[i] < amin ? a_ns[i] : amin;
  double *a = malloc((size_t)P * sizeof *a);
  for (int i = 0; i < P; i++) a[i] = (double)(a_ns[i] - amin) * 1e-9;
  pat_model_params m = *mp;
  m.bg_start = bg_ns == PAT_NO_TIME ? -INFINITY : (double)(bg_ns - amin) * 1e-9;
  memset(res, 0, sizeof *res);
  res->f = f;
  rc = pat_model_replay(&s, a, &m, bb, res);
  free(a);
  pat_sched_free(&s);
  return rc;
}

static int same_choice(const pat_select_out *x, const pat_select_out *y) {
  if (x->alg != y->alg || x->root != y->root || x->balanced != y->balanced || x->omega_ns != y->omega_ns ||
      x->tau_ns != y->tau_ns)
    return 0;
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (x->ebar_ns[i] != y->ebar_ns[i] || x->root_of[i] != y->root_of[i] || x->status[i] != y->status[i]) return 0;
  return 1;
}

static const int classic[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC, PAT_ALG_DIRECT};
#define NCLASSIC 6

int main(void) {
  int64_t *a = malloc(1024 * sizeof *a);
  double *f1 = malloc(1024 * sizeof *f1), *f2 = malloc(1024 * sizeof *f2);
  int *node = malloc(1024 * sizeof *node);
  pat_model_params mp;
  pat_model_params_init(&mp, 5e-5, 8e-9);
  for (int i = 0; i < PAT_ALG_COUNT; i++) { /* per-algorithm parameters, as fitted */
    mp.alg[i].set = 1;
    mp.alg[i].inter.alpha = 5e-5 * (1 + 0.1 * i);
    mp.alg[i].inter.beta = 8e-9 * (1 - 0.05 * i);
  }

  /* ---- 1. programs == full replay ---- */
  const int Ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 31, 32, 33, 48, 63, 64, 100, 128, 255, 256, 1024};
  int checked = 0, uniform = 0;
  pat_select_cache cache;
  pat_select_cache_init(&cache);
  for (size_t pi = 0; pi < sizeof Ps / sizeof *Ps; pi++) {
    int P = Ps[pi];
    for (int k = 0; k < NCLASSIC; k++) {
      int alg = classic[k];
      if ((P > 256 && (alg == PAT_ALG_RING || alg == PAT_ALG_NEX)) || (P > 64 && alg == PAT_ALG_DIRECT))
        continue; /* full builds too slow for a unit test */
      for (int trial = 0; trial < (P > 100 ? 2 : 6); trial++) {
        int64_t base = 1700000000000000000ll + (int64_t)(rnd64() % 1000000);
        int64_t spread = trial == 0 ? 0 : (int64_t)(rnd64() % 50000000);
        for (int i = 0; i < P; i++) a[i] = base + (spread ? (int64_t)(rnd64() % (uint64_t)spread) : 0);
        int64_t bg = trial % 2 ? base + spread / 3 : PAT_NO_TIME;
        int root = (int)(rnd64() % (uint64_t)P);
        double bb = (double)(1 + rnd64() % 100000);
        pat_model_params m = mp;
        if (trial >= 4) { /* two ranks per node, intra-node pair */
          for (int i = 0; i < P; i++) node[i] = i / 2;
          m.node = node;
          m.alg[alg].has_intra = 1;
          m.alg[alg].intra.alpha = 1e-6;
          m.alg[alg].intra.beta = 1e-10;
        }
        pat_model_result r1, r2;
        memset(&r1, 0, sizeof r1);
        r1.f = f1;
        CHECK(pat_predict(&cache, alg, root, P, a, bg, bb, &m, &r1) == PAT_OK, "predict");
        CHECK(full_replay(alg, root, P, a, bg, bb, &m, f2, &r2) == PAT_OK, "replay");
        /* bit for bit, except where a program's port group shares its port
         * (processor sharing, computed in virtual time: rounding apart) */
        int exact = 1;
        for (int i = 0; i < P; i++) exact &= f1[i] == f2[i] || fabs(f1[i] - f2[i]) <= 1e-12 * fabs(f2[i]);
        CHECK(exact && fabs(r1.ebar - r2.ebar) <= 1e-12 * r2.ebar && fabs(r1.r - r2.r) <= 1e-12 * r2.r,
              "%s P=%d trial %d: program %.17g, replay %.17g", pat_algorithms[alg].name, P, trial, r1.ebar, r2.ebar);
        CHECK(alg == PAT_ALG_LNBC || alg == PAT_ALG_RDB || alg == PAT_ALG_BRUCK ||
                  (r1.ebar == r2.ebar && memcmp(f1, f2, (size_t)P * sizeof *f1) == 0),
              "%s P=%d: no port group, so bit for bit", pat_algorithms[alg].name, P);
        /* DIRECT's mesh steps (a rank sends and receives several messages at
         * once) need the replay's max-min sharing: its program defers */
        CHECK(r1.engine == (alg == PAT_ALG_DIRECT && P >= 3 ? PAT_ENGINE_EVENT : PAT_ENGINE_FAST), "program used");
        checked++;
      }
      if (cache.state[alg] == 1 && pat_prog_is_uniform(cache.prog[alg])) uniform++;
    }
  }
  /* eager messages: the program defers to the full replay, same answer */
  {
    int P = 12;
    for (int i = 0; i < P; i++) a[i] = (int64_t)(rnd64() % 10000000);
    pat_model_params m = mp;
    m.eager_bytes = 65536;
    pat_model_result r1, r2;
    memset(&r1, 0, sizeof r1);
    r1.f = f1;
    for (int k = 0; k < NCLASSIC; k++) {
      CHECK(pat_predict(&cache, classic[k], 0, P, a, PAT_NO_TIME, 1000, &m, &r1) == PAT_OK, "predict eager");
      CHECK(full_replay(classic[k], 0, P, a, PAT_NO_TIME, 1000, &m, f2, &r2) == PAT_OK, "replay eager");
      CHECK(r1.ebar == r2.ebar && r1.engine == PAT_ENGINE_EVENT, "eager: %s", pat_algorithms[classic[k]].name);
    }
  }
  /* which programs take the closed form */
  pat_prog *g;
  const struct { int alg, P, uniform; } form[] = {
      {PAT_ALG_RING, 1000, 1}, {PAT_ALG_NEX, 1000, 1}, {PAT_ALG_BRUCK, 1000, 1}, {PAT_ALG_RDB, 1024, 1},
      {PAT_ALG_RDB, 1000, 0},  {PAT_ALG_LNBC, 1000, 0}, {PAT_ALG_NEX, 999, 1}, {PAT_ALG_DIRECT, 64, 0},
      {PAT_ALG_DIRECT, 2, 1},
  };
  for (size_t i = 0; i < sizeof form / sizeof *form; i++) {
    CHECK(pat_prog_compile(&g, form[i].alg, form[i].P, 0, 0) == PAT_OK, "compile");
    CHECK(pat_prog_is_uniform(g) == form[i].uniform, "%s P=%d uniform=%d", pat_algorithms[form[i].alg].name,
          form[i].P, pat_prog_is_uniform(g));
    pat_prog_free(g);
  }
  printf("%d predictions equal to full replays (%d uniform programs)\n", checked, uniform);

  /* ---- 2. agreement: every rank, own cache, same inputs -> same choice ---- */
  for (int trial = 0; trial < 40; trial++) {
    int P = 2 + (int)(rnd64() % 60);
    int64_t spread = trial % 4 == 0 ? 0 : (int64_t)(rnd64() % 100000000);
    for (int i = 0; i < P; i++) a[i] = 1700000000000000000ll + (spread ? (int64_t)(rnd64() % (uint64_t)spread) : 0);
    pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME,
                        .block_bytes = (double)(4 * (1 + rnd64() % 100000)), .mp = &mp, .bslb_roots = 3};
    pat_select_out ref, o;
    pat_select_cache c0;
    pat_select_cache_init(&c0);
    CHECK(pat_select(&c0, &in, &ref) == PAT_OK, "select");
    pat_select_cache_free(&c0);
    for (int rank = 0; rank < P; rank++) {
      pat_select_cache cr;
      pat_select_cache_init(&cr);
      if (rank % 2) pat_select_prepare(&cr, P, 0, 0, 0); /* warm or cold cache: no difference */
      int64_t *mine = malloc((size_t)P * sizeof *mine);
      memcpy(mine, a, (size_t)P * sizeof *mine);
      pat_select_in my = in;
      my.arrival_ns = mine;
      memset(&o, 0xff, sizeof o);
      CHECK(pat_select(&cr, &my, &o) == PAT_OK, "select");
      CHECK(same_choice(&o, &ref), "rank %d disagrees (P=%d): %d vs %d", rank, P, o.alg, ref.alg);
      free(mine);
      pat_select_cache_free(&cr);
    }
    CHECK(ref.alg > PAT_ALG_NATIVE && ref.alg < PAT_ALG_COUNT, "a real algorithm");
    CHECK(ref.ebar_ns[ref.alg] <= ref.ebar_ns[PAT_ALG_RING], "the choice is the minimum");
  }

  /* ---- 3. balanced patterns pick a classic algorithm, or RELAY (plan-ahead: its
   * prediction only orders its sends, so its balanced schedule competes) ---- */
  for (int trial = 0; trial < 30; trial++) {
    int P = 2 + (int)(rnd64() % 100);
    double bb = (double)(4 * (1 + rnd64() % 100000));
    int64_t tau = pat_quantise_ns(5e-5 + 8e-9 * bb);
    for (int i = 0; i < P; i++) a[i] = 5000000 + (int64_t)(rnd64() % (uint64_t)tau); /* omega < tau */
    pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME, .block_bytes = bb, .mp = &mp};
    pat_select_out o;
    CHECK(pat_select(&cache, &in, &o) == PAT_OK, "select");
    CHECK(o.balanced && o.tau_ns == tau, "balanced, tau %lld vs %lld", (long long)o.tau_ns, (long long)tau);
    CHECK(pat_algorithms[o.alg].flags & (PAT_ALGF_CLASSIC | PAT_ALGF_PLAN_AHEAD), "balanced P=%d picked %s", P,
          pat_algorithms[o.alg].name);
    CHECK(o.status[PAT_ALG_BDR] == -1 && o.status[PAT_ALG_BSLB] == -1 && o.status[PAT_ALG_ARD] == -1,
          "arrival-aware algorithms that bet on the prediction considered on a balanced pattern");
    CHECK(o.status[PAT_ALG_RELAY] != -1, "RELAY not considered on a balanced pattern (P=%d)", P);
    CHECK(o.status[PAT_ALG_NATIVE] == -1, "native is never predicted");
    /* imbalanced: arrival-aware ones are tried */
    a[P - 1] += 100 * tau;
    CHECK(pat_select(&cache, &in, &o) == PAT_OK && !o.balanced, "select imbalanced");
    CHECK(o.status[PAT_ALG_BDR] != -1, "BDR not tried on an imbalanced pattern");
    CHECK(o.status[PAT_ALG_BDR] == PAT_OK || o.status[PAT_ALG_BDR] == PAT_SELECT_OVER_BUDGET,
          "BDR status %d", o.status[PAT_ALG_BDR]);
  }

  /* ---- the per-call budget for arrival-aware schedules ---- */
  pat_sched probe;
  int have_bdr = pat_build(PAT_ALG_BDR, &probe, &(pat_build_args){4, 0, NULL, 0, 0, 0, 0, NULL, NULL, NULL}) == PAT_OK;
  if (have_bdr) pat_sched_free(&probe);
  if (have_bdr) {
    int P = 200;
    double bb = 40000;
    int64_t tau = pat_quantise_ns(5e-5 + 8e-9 * bb);
    for (int i = 0; i < P; i++) a[i] = (int64_t)(rnd64() % (uint64_t)(50 * tau));
    pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME, .block_bytes = bb, .mp = &mp};
    pat_select_out o;
    CHECK(pat_select(&cache, &in, &o) == PAT_OK, "select P=200");
    CHECK(o.status[PAT_ALG_BDR] == PAT_SELECT_OVER_BUDGET, "BDR at P=200 is over the default budget (%d)",
          o.status[PAT_ALG_BDR]);
    CHECK(o.status[PAT_ALG_BSLB] == PAT_OK, "BSLB at P=200 is within the budget (%d)", o.status[PAT_ALG_BSLB]);
    in.arrival_max_ops = SIZE_MAX;
    CHECK(pat_select(&cache, &in, &o) == PAT_OK && o.status[PAT_ALG_BDR] == PAT_OK, "no budget: BDR predicted");
    pat_model_result r;
    memset(&r, 0, sizeof r);
    CHECK(pat_predict(&cache, PAT_ALG_BDR, 0, P, a, PAT_NO_TIME, bb, &mp, &r) == PAT_OK &&
              pat_quantise_ns(r.ebar) == o.ebar_ns[PAT_ALG_BDR],
          "the selection's BDR prediction is the replay's");
  }

  /* ---- the same budget for DIRECT, whose program sorts its ~P^2 transfers per call ---- */
  {
    double bb = 40000;
    int64_t tau = pat_quantise_ns(5e-5 + 8e-9 * bb);
    const struct { int P, within; } cases[] = {{64, 1}, {91, 1}, {92, 0}, {200, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
      int P = cases[k].P;
      for (int i = 0; i < P; i++) a[i] = (int64_t)(rnd64() % (uint64_t)(50 * tau));
      pat_select_in in = {.P = P, .arrival_ns = a, .bg_start_ns = PAT_NO_TIME, .block_bytes = bb, .mp = &mp};
      pat_select_out o;
      pat_select_cache cd;
      pat_select_cache_init(&cd);
      CHECK(pat_select(&cd, &in, &o) == PAT_OK, "select P=%d", P);
      CHECK(o.status[PAT_ALG_DIRECT] == (cases[k].within ? PAT_OK : PAT_SELECT_OVER_BUDGET),
            "DIRECT at P=%d: status %d", P, o.status[PAT_ALG_DIRECT]);
      CHECK(o.status[PAT_ALG_RING] == PAT_OK && o.status[PAT_ALG_LNBC] == PAT_OK, "the others are predicted");
      CHECK(cases[k].within || cd.state[PAT_ALG_DIRECT] == 0, "DIRECT over the budget is not compiled");
      pat_select_cache_free(&cd);
      pat_select_cache_init(&cd);
      CHECK(pat_select_prepare(&cd, P, 0, 0, 0) == PAT_OK, "prepare");
      CHECK(cd.state[PAT_ALG_DIRECT] == (cases[k].within ? 1 : 0), "prepare P=%d compiles DIRECT: %d", P,
            cd.state[PAT_ALG_DIRECT]);
      pat_select_cache_free(&cd);
      if (P == 200) { /* without a budget it is predicted, as pat_predict predicts it */
        in.arrival_max_ops = SIZE_MAX;
        CHECK(pat_select(&cache, &in, &o) == PAT_OK && o.status[PAT_ALG_DIRECT] == PAT_OK, "no budget: DIRECT");
        pat_model_result r;
        memset(&r, 0, sizeof r);
        CHECK(pat_predict(&cache, PAT_ALG_DIRECT, 0, P, a, PAT_NO_TIME, bb, &mp, &r) == PAT_OK &&
                  pat_quantise_ns(r.ebar) == o.ebar_ns[PAT_ALG_DIRECT],
              "the selection's DIRECT prediction is pat_predict's");
      }
    }
  }

  /* ---- 4. ties: at P=2 ring, nex, rdb and bruck are one exchange ---- */
  {
    pat_model_params one;
    pat_model_params_init(&one, 5e-5, 8e-9);
    int64_t two[2] = {0, 0};
    pat_select_in in = {.P = 2, .arrival_ns = two, .bg_start_ns = PAT_NO_TIME, .block_bytes = 1000, .mp = &one};
    pat_select_out o;
    CHECK(pat_select(&cache, &in, &o) == PAT_OK, "select");
    CHECK(o.alg == PAT_ALG_RING, "tie goes to the lowest id, got %s", pat_algorithms[o.alg].name);
    CHECK(o.ebar_ns[PAT_ALG_RING] == o.ebar_ns[PAT_ALG_NEX] && o.ebar_ns[PAT_ALG_RING] == o.ebar_ns[PAT_ALG_BRUCK],
          "equal predictions");
    in.allowed = (1u << PAT_ALG_BRUCK) | (1u << PAT_ALG_NEX);
    CHECK(pat_select(&cache, &in, &o) == PAT_OK && o.alg == PAT_ALG_NEX, "allowed set, tie");
    CHECK(o.status[PAT_ALG_RING] == -1, "ring not allowed");
    in.allowed = 1u << PAT_ALG_NATIVE;
    CHECK(pat_select(&cache, &in, &o) == PAT_OK && o.alg == PAT_ALG_NATIVE, "only native");
    in.allowed = 1u << PAT_ALG_BDR;
    int rc = pat_select(&cache, &in, &o);
    CHECK(rc == PAT_OK ? o.alg == PAT_ALG_BDR : rc == PAT_EINVAL, "only an arrival-aware algorithm");
    CHECK(pat_quantise_ns(1.4999999e-9) == 1 && pat_quantise_ns(2.5e-9) == 3 && pat_quantise_ns(NAN) == INT64_MAX,
          "quantise");
  }
  pat_select_cache_free(&cache);
  free(a);
  free(f1);
  free(f2);
  free(node);
  return TEST_RESULT();
}
