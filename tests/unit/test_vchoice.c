/* auto's all-gatherv choice (decide/vchoice.h): the signature keys count
 * vectors as intended, the table keeps the recent ones, the predictions are
 * the measured level plus the schedule's response to unequal blocks, and the
 * rules (NATIVE without levels, beyond PAT_VCHOICE_MAX_P, for latency-bound
 * and empty calls; an alternative only when clearly faster) hold.  The
 * choice's agreement across ranks is checked under MPI by
 * mpi.test_allgatherv_matrix.model. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "decide/engine.h"
#include "decide/vchoice.h"
#include "model/measured.h"
#include "testutil.h"

#define NR 8

static void fill(int64_t *b, int kind, int64_t total) {
  int64_t w[NR], sw = 0;
  for (int r = 0; r < NR; r++) w[r] = kind == 0 ? 1 : kind == 1 ? (r == NR - 1 ? 4 : 1) : r + 1, sw += w[r];
  for (int r = 0; r < NR; r++) b[r] = total * w[r] / sw;
}

static int test_signature(void) {
  int64_t a[NR], b[NR];
  fill(a, 1, 3200000); /* inside a quarter octave of totals: 3.15-3.67 MB */
  memcpy(b, a, sizeof a);
  CHECK(pat_vsig(NR, a) == pat_vsig(NR, b) && pat_vsig(NR, a) != 0, "equal vectors, equal signatures");
  int64_t t = b[0]; /* the big block moved to another rank */
  b[0] = b[NR - 1], b[NR - 1] = t;
  CHECK(pat_vsig(NR, a) == pat_vsig(NR, b), "the signature ignores which rank holds which block");
  fill(b, 1, 3400000); /* 6% more data: the same quarter octave */
  CHECK(pat_vsig(NR, a) == pat_vsig(NR, b), "a small drift keeps the signature");
  fill(b, 1, 2 * 3200000);
  CHECK(pat_vsig(NR, a) != pat_vsig(NR, b), "twice the data: another signature");
  fill(b, 1, 3800000);
  CHECK(pat_vsig(NR, a) != pat_vsig(NR, b), "19%% more: the next quarter octave");
  fill(b, 2, 3200000);
  CHECK(pat_vsig(NR, a) != pat_vsig(NR, b), "one big block and a ramp differ");
  fill(b, 0, 3200000);
  CHECK(pat_vsig(NR, a) != pat_vsig(NR, b), "one big block and equal blocks differ");
  b[3] = 0, b[4] += 1 << 19;
  CHECK(pat_vsig(NR, b) != pat_vsig(NR, a), "an empty block changes it");
  int64_t zero[NR] = {0};
  CHECK(pat_vsig(NR, zero) != 0, "all empty is a signature too");
  return 0;
}

static int test_table(void) {
  pat_vsites t;
  pat_vsites_init(&t);
  for (int i = 0; i < PAT_VSITES; i++) CHECK(pat_vsites_put(&t, 100 + i, i) == i, "fills empty slots first");
  CHECK(pat_vsites_find(&t, 100) == 0 && t.site[0].calls == 2, "finds and counts");
  CHECK(pat_vsites_find(&t, 99) == -1, "an unknown signature");
  int slot = pat_vsites_put(&t, 200, 7); /* replaces the least recently used: 101 (100 was just used) */
  CHECK(slot == 1, "replaced slot %d, not the least recently used", slot);
  CHECK(pat_vsites_find(&t, 101) == -1 && pat_vsites_find(&t, 100) == 0, "the recent one stays");
  CHECK(t.site[pat_vsites_find(&t, 200)].alg == 7, "keeps the choice");
  return 0;
}

/* A model whose levels are the same function of the size for every
 * algorithm, times a factor (NATIVE's first). */
static void model(pat_model_params *mp, double native_factor, double other_factor) {
  pat_model_params_init(mp, 100e-6, 1.6e-8);
  mp->measured.P = NR;
  const int algs[] = {PAT_ALG_NATIVE, PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_DIRECT, PAT_ALG_RELAY};
  for (size_t i = 0; i < sizeof algs / sizeof *algs; i++)
    for (double m = 1024; m <= 4194304; m *= 4)
      pat_measured_add(&mp->measured, algs[i], m, (i == 0 ? native_factor : other_factor) * (1e-3 + 1.6e-8 * 7 * m));
}

static int test_predictions(void) {
  pat_model_params mp;
  model(&mp, 1.0, 1.0);
  int64_t b[NR];
  double e[PAT_ALG_COUNT], level;
  fill(b, 0, 1 << 22);
  CHECK(pat_vchoice_predict(&mp, NR, b, e) == 7, "NATIVE and six alternatives predicted");
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (isnan(e[alg])) continue;
    pat_model_measured_time(&mp, alg, NR, (double)(1 << 22) / NR, &level);
    CHECK(fabs(e[alg] - level) < 1e-12, "%s: equal blocks predict the level (%g, %g)", pat_algorithms[alg].name,
          e[alg], level);
  }
  fill(b, 1, 1 << 22);
  pat_vchoice_predict(&mp, NR, b, e);
  pat_model_measured_time(&mp, PAT_ALG_RING, NR, (double)(1 << 22) / NR, &level);
  CHECK(e[PAT_ALG_RING] > 1.5 * level, "one big block slows RING's steps (%g against %g)", e[PAT_ALG_RING], level);
  CHECK(e[PAT_ALG_RELAY] < e[PAT_ALG_RING] && e[PAT_ALG_RELAY] < e[PAT_ALG_DIRECT],
        "RELAY spreads the big block: %g, RING %g, DIRECT %g", e[PAT_ALG_RELAY], e[PAT_ALG_RING], e[PAT_ALG_DIRECT]);
  double best_classic = INFINITY;
  const int classic[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_DIRECT};
  for (int i = 0; i < 5; i++)
    if (e[classic[i]] < best_classic) best_classic = e[classic[i]];
  CHECK(fabs(e[PAT_ALG_NATIVE] - best_classic) < 1e-12, "NATIVE responds as the best classic schedule (%g, %g)",
        e[PAT_ALG_NATIVE], best_classic);
  return 0;
}

static int test_rules(void) {
  pat_model_params mp, none;
  int64_t b[NR], zero[NR] = {0};
  fill(b, 1, 1 << 22);
  pat_model_params_init(&none, 100e-6, 1.6e-8);
  CHECK(pat_vchoice(&none, NR, b) == PAT_ALG_NATIVE, "no levels: NATIVE");
  model(&mp, 1.0, 1.0);
  CHECK(pat_vchoice(&mp, NR, zero) == PAT_ALG_NATIVE, "nothing to move: NATIVE");
  CHECK(pat_vchoice(&mp, NR, b) == PAT_ALG_RELAY, "one big block, equal levels: RELAY's response wins (%s)",
        pat_algorithms[pat_vchoice(&mp, NR, b)].name);
  fill(b, 0, 1 << 22);
  CHECK(pat_vchoice(&mp, NR, b) == PAT_ALG_NATIVE, "equal blocks, equal levels: NATIVE");
  model(&mp, 1.0, 0.91);
  CHECK(pat_vchoice(&mp, NR, b) == PAT_ALG_NATIVE, "9%% faster is not clearly faster");
  model(&mp, 1.0, 0.89);
  CHECK(pat_vchoice(&mp, NR, b) == PAT_ALG_RING, "11%% faster is; ties to the lowest id (%s)",
        pat_algorithms[pat_vchoice(&mp, NR, b)].name);
  model(&mp, 1.0, 0.5);
  fill(b, 0, 2048 * NR); /* NATIVE's level here: about 1 ms */
  CHECK(pat_vchoice(&mp, NR, b) != PAT_ALG_NATIVE, "over PAT_VCHOICE_MIN_S: an alternative");
  mp.measured.alg[PAT_ALG_NATIVE].seconds[0] = 0.4 * PAT_VCHOICE_MIN_S; /* at 1 KiB */
  fill(b, 0, 1024 * NR);
  CHECK(pat_vchoice(&mp, NR, b) == PAT_ALG_NATIVE, "latency-bound: NATIVE without a replay");
  mp.measured.P = PAT_VCHOICE_MAX_P + 1;
  int64_t many[PAT_VCHOICE_MAX_P + 1];
  for (int r = 0; r <= PAT_VCHOICE_MAX_P; r++) many[r] = 1 << 20;
  CHECK(pat_vchoice(&mp, PAT_VCHOICE_MAX_P + 1, many) == PAT_ALG_NATIVE, "beyond PAT_VCHOICE_MAX_P: NATIVE");
  return 0;
}

/* The engine's table: a signature's first choice serves the later vectors. */
static int test_engine_cache(void) {
  pat_model_params mp;
  model(&mp, 1.0, 1.0);
  int node[NR] = {0, 1, 2, 3, 4, 5, 6, 7};
  pat_engine_config cfg = {.P = NR, .mp = &mp, .have_model = 1, .node = node, .record_bytes = 72};
  pat_engine e;
  CHECK(pat_engine_init(&e, &cfg) == 0, "init");
  int64_t b[NR];
  fill(b, 1, 3200000);
  CHECK(pat_engine_static_choice_v(&e, b) == PAT_ALG_RELAY, "one big block: RELAY");
  model(&mp, 0.5, 1.0); /* the table answers now, not the model */
  b[0] += 100;
  CHECK(pat_engine_static_choice_v(&e, b) == PAT_ALG_RELAY, "the same signature: the cached choice");
  fill(b, 1, 2 * 3200000);
  CHECK(pat_engine_static_choice_v(&e, b) == PAT_ALG_NATIVE, "a new signature: chosen again");
  pat_engine_free(&e);
  int one_node[NR] = {0};
  cfg.node = one_node;
  cfg.have_model = 0;
  CHECK(pat_engine_init(&e, &cfg) == 0, "init");
  CHECK(pat_engine_static_choice_v(&e, b) == PAT_ALG_NATIVE, "one node without a model file: NATIVE");
  pat_engine_free(&e);
  return 0;
}

int main(void) {
  test_signature();
  test_table();
  test_predictions();
  test_rules();
  test_engine_cache();
  return TEST_RESULT();
}
