/* The selection's prediction from a measured level (pat_select_predict):
 * without a link measurement, the level plus the replay's response with
 * the algorithm's own parameters; with one, the replay at the link's rate
 * plus the level's excess over it, scaled by the share of a synchronised
 * start left (1 at balanced arrivals; once the arrivals spread over the
 * level, only the latency's part of a block's transfer).  pat_select's predictions are these, quantised. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/select.h"
#include "testutil.h"

enum { NR = 8 };

static double replay(const pat_model_params *mp, int alg, const int64_t *a, double block) {
  pat_model_result res;
  memset(&res, 0, sizeof res);
  if (pat_predict(NULL, alg, 0, NR, a, PAT_NO_TIME, block, mp, &res) != PAT_OK) return NAN;
  return res.ebar;
}

/* mp with every transfer at its link's rate, as the rule replays */
static pat_model_params at_link(const pat_model_params *mp) {
  pat_model_params m = *mp;
  m.dflt.inter = mp->link;
  for (int i = 0; i < PAT_ALG_COUNT; i++) m.alg[i].set = 0;
  return m;
}

static int near(double x, double y) { return fabs(x - y) <= 1e-12 + 1e-9 * fabs(y); }

int main(void) {
  const double block = 512.0 * 1024;
  pat_model_params mp;
  pat_model_params_init(&mp, 120e-6, 1.64e-8);
  mp.alg[PAT_ALG_DIRECT].set = 1; /* fitted at balanced arrivals: slower than one pair alone */
  mp.alg[PAT_ALG_DIRECT].inter = (pat_hockney){6e-4, 1.77e-8};
  mp.alg[PAT_ALG_RELAY].set = 1;
  mp.alg[PAT_ALG_RELAY].inter = (pat_hockney){3.6e-4, 1.70e-8};
  double flat[PAT_ALG_COUNT];
  for (int i = 0; i < PAT_ALG_COUNT; i++) flat[i] = NAN;
  flat[PAT_ALG_DIRECT] = 0.0775; /* measured levels: 1.25-1.35x the link's replay */
  flat[PAT_ALG_RING] = 0.0780;
  flat[PAT_ALG_RELAY] = 0.0722;
  const int algs[] = {PAT_ALG_DIRECT, PAT_ALG_RING, PAT_ALG_RELAY, PAT_ALG_NEX};

  int64_t zero[NR] = {0}, spread[NR], wide[NR];
  for (int i = 0; i < NR; i++) {
    spread[i] = (int64_t)((i * 37) % NR) * 5000000; /* 0..35 ms: within the levels */
    wide[i] = (int64_t)((i * 5) % NR) * 40000000;   /* 0..280 ms: past them */
  }
  const int64_t *patterns[] = {zero, spread, wide};

  /* no link: the level plus the response with the algorithm's own parameters */
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 4; j++) {
      int alg = algs[j];
      pat_select_in in = {.P = NR, .arrival_ns = patterns[k], .bg_start_ns = PAT_NO_TIME, .block_bytes = block,
                          .mp = &mp, .flat_s = flat};
      double got;
      CHECK(pat_select_predict(NULL, &in, alg, 0, &got) == PAT_OK, "predict %d", alg);
      double want = replay(&mp, alg, patterns[k], block);
      if (isfinite(flat[alg])) want += flat[alg] - replay(&mp, alg, zero, block);
      CHECK(near(got, want), "no link, alg %d pattern %d: %g, want %g", alg, k, got, want);
    }

  /* with a link: balanced gives the level, wide the link's replay, between the formula */
  pat_model_params ml = mp;
  ml.link_set = 1;
  ml.link = (pat_hockney){130e-6, 1.56e-8};
  pat_model_params lr = at_link(&ml);
  for (int j = 0; j < 4; j++) {
    int alg = algs[j];
    for (int k = 0; k < 3; k++) {
      pat_select_in in = {.P = NR, .arrival_ns = patterns[k], .bg_start_ns = PAT_NO_TIME, .block_bytes = block,
                          .mp = &ml, .flat_s = flat};
      double got;
      CHECK(pat_select_predict(NULL, &in, alg, 0, &got) == PAT_OK, "predict %d (link)", alg);
      if (!isfinite(flat[alg])) { /* no level: the plain replay, own parameters */
        CHECK(near(got, replay(&ml, alg, patterns[k], block)), "no level, alg %d: %g", alg, got);
        continue;
      }
      double r = replay(&lr, alg, patterns[k], block), r0 = replay(&lr, alg, zero, block);
      double share = pat_select_synchronised_share(NR, patterns[k], flat[alg], block, &ml);
      CHECK(near(got, r + (flat[alg] - r0) * share), "link, alg %d pattern %d: %g", alg, k, got);
      if (k == 0) CHECK(near(got, flat[alg]), "balanced: the level, alg %d: %g", alg, got);
      if (k == 2) /* all but the latency's share of the excess gone (alpha / (alpha + beta m) ~ 0.015) */
        CHECK(got > r && got < r + 0.02 * (flat[alg] - r0), "spread past the level: the link's replay, alg %d: %g against %g",
              alg, got, r);
      if (k == 1) CHECK(share > 0 && share < 1 && got > r && got < r + (flat[alg] - r0),
                        "between, alg %d: share %g, %g in (%g, %g)", alg, share, got, r, r + flat[alg] - r0);
    }
  }
  /* the link rule's response to imbalance is the link's: smaller than the fitted one's for DIRECT */
  {
    pat_select_in in = {.P = NR, .arrival_ns = wide, .bg_start_ns = PAT_NO_TIME, .block_bytes = block,
                        .flat_s = flat};
    double with_link, without;
    in.mp = &ml;
    CHECK(pat_select_predict(NULL, &in, PAT_ALG_DIRECT, 0, &with_link) == PAT_OK, "direct, link");
    in.mp = &mp;
    CHECK(pat_select_predict(NULL, &in, PAT_ALG_DIRECT, 0, &without) == PAT_OK, "direct, no link");
    CHECK(with_link < without, "direct under wide arrivals: %g with the link, %g without", with_link, without);
  }

  /* the share: 1 balanced; linear in the spread, down to the latency's part of a block's transfer
   * (b = beta m / (alpha + beta m)) past the level; 0 without a level */
  pat_model_params bytes_only = ml;
  bytes_only.link = (pat_hockney){0, 1.56e-8}; /* b = 1 */
  CHECK(pat_select_synchronised_share(NR, zero, 0.05, block, &ml) == 1, "share balanced");
  int64_t two[NR] = {0};
  two[3] = 10000000; /* 10 ms */
  CHECK(near(pat_select_synchronised_share(NR, two, 0.04, block, &bytes_only), 0.75), "share 10 ms of 40");
  CHECK(pat_select_synchronised_share(NR, two, 0.005, block, &bytes_only) == 0, "share past the level");
  const double b = 1.56e-8 * block / (130e-6 + 1.56e-8 * block);
  CHECK(near(pat_select_synchronised_share(NR, two, 0.005, block, &ml), 1 - b), "share past the level: latency part");
  CHECK(near(pat_select_synchronised_share(NR, two, 0.04, block, &ml), 1 - 0.25 * b), "share 10 ms of 40, latency");
  CHECK(pat_select_synchronised_share(NR, two, 0, block, &ml) == 0, "share, no level");
  /* at 8 B a block is latency: a spread leaves the excess (per-message overheads) almost whole */
  CHECK(pat_select_synchronised_share(NR, two, 0.005, 8, &ml) > 0.99, "share at 8 B");

  /* pat_select predicts the same, quantised; with a cache as without */
  for (int k = 0; k < 3; k++) {
    pat_select_cache cache;
    pat_select_cache_init(&cache);
    pat_select_in in = {.P = NR, .arrival_ns = patterns[k], .bg_start_ns = PAT_NO_TIME, .block_bytes = block,
                        .mp = &ml, .flat_s = flat,
                        .allowed = (1u << PAT_ALG_DIRECT) | (1u << PAT_ALG_RING) | (1u << PAT_ALG_RELAY)};
    pat_select_out out, again;
    CHECK(pat_select(&cache, &in, &out) == PAT_OK, "select %d", k);
    CHECK(pat_select(&cache, &in, &again) == PAT_OK && memcmp(out.ebar_ns, again.ebar_ns, sizeof out.ebar_ns) == 0 &&
              out.alg == again.alg,
          "select %d again from the cache", k);
    for (int j = 0; j < 3; j++) {
      int alg = algs[j];
      double got;
      CHECK(pat_select_predict(NULL, &in, alg, 0, &got) == PAT_OK, "predict");
      CHECK(out.status[alg] == PAT_OK && out.ebar_ns[alg] == pat_quantise_ns(got),
            "select's prediction of %d, pattern %d: %lld against %lld", alg, k, (long long)out.ebar_ns[alg],
            (long long)pat_quantise_ns(got));
    }
    pat_select_cache_free(&cache);
  }
  return TEST_RESULT();
}
