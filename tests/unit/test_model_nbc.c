/* The non-blocking form under the cost model (pat_model_nbc), P = 2..8,
 * alpha 1, a block's time 2 (beta 2, blocks of 1 byte):
 *  - no compute, posts as arrivals: a classic schedule's e-bar is its
 *    blocking replay's (pat_predict), and MPI's own (as RING) is RING's;
 *  - compute T after the post: MPI's own is T + its blocking e-bar (it moves
 *    data only in the wait); with T above every finish, libpat's schedules
 *    take exactly T (the blocks were in before the compute ended);
 *  - one late rank (20 block times; blocks of 1 MiB at 100 MB/s, alpha
 *    10 us, so that RELAY cuts pieces): RELAY started ahead is at least 10%
 *    below DIRECT, the late rank's receives and relays running while it
 *    computes (not started ahead, RELAY's replay is DIRECT's, +0.5%);
 *  - on random posts and T: every schedule's e-bar and the largest e are at
 *    least T, e-bar at least the bound (mean of max(T, lb_i)) and at most
 *    the largest e; libpat's schedules never above MPI's own as the same
 *    schedule (RING);
 *  - bad arguments: PAT_EINVAL. */
#include <math.h>
#include <stdlib.h>

#include "algorithms/algorithms.h"
#include "model/model_nbc.h"
#include "testutil.h"

static int near(double x, double y) { return fabs(x - y) < 1e-9 * (1 + fabs(y)); }

static double blocking(pat_select_cache *c, int alg, int P, const int64_t *a, const pat_model_params *mp) {
  pat_model_result r = {0};
  return pat_predict(c, alg, 0, P, a, PAT_NO_TIME, 1.0, mp, &r) == PAT_OK ? r.ebar : NAN;
}

int main(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, 1.0, 2.0);
  pat_select_cache c;
  pat_select_cache_init(&c);
  const int algs[] = {PAT_ALG_RING, PAT_ALG_DIRECT, PAT_ALG_BRUCK, PAT_ALG_RELAY};
  int64_t a[8] = {0};
  pat_nbc_prediction p, own;
  for (int P = 2; P <= 8; P++) {
    CHECK(pat_model_nbc(&c, PAT_ALG_RING, PAT_ALG_RING, P, a, 0, 1.0, &mp, &p) == PAT_OK &&
              near(p.ebar, blocking(&c, PAT_ALG_RING, P, a, &mp)),
          "P=%d balanced: ring's e-bar %g is its blocking one", P, p.ebar);
    CHECK(pat_model_nbc(&c, PAT_ALG_NATIVE, PAT_ALG_RING, P, a, 0, 1.0, &mp, &own) == PAT_OK && near(own.ebar, p.ebar),
          "P=%d balanced: MPI's own as ring %g, ring %g", P, own.ebar, p.ebar);
    CHECK(pat_model_nbc(&c, PAT_ALG_NATIVE, PAT_ALG_RING, P, a, 5, 1.0, &mp, &own) == PAT_OK &&
              near(own.ebar, 5 + p.ebar),
          "P=%d compute 5: MPI's own %g = 5 + %g", P, own.ebar, p.ebar);
    for (size_t k = 0; k < sizeof algs / sizeof *algs; k++)
      CHECK(pat_model_nbc(&c, algs[k], PAT_ALG_RING, P, a, 1000, 1.0, &mp, &p) == PAT_OK && near(p.ebar, 1000) &&
                near(p.emax, 1000),
            "P=%d %s, compute 1000: e-bar %g, largest %g (want 1000)", P, pat_algorithms[algs[k]].name, p.ebar, p.emax);
  }
  pat_model_params fast;
  pat_model_params_init(&fast, 10e-6, 10e-9);
  for (int P = 4; P <= 8; P++) {
    int64_t late[8] = {0};
    late[P - 1] = 200000000LL; /* 0.2 s: 20 block times of 10 ms */
    pat_nbc_prediction relay, direct;
    CHECK(pat_model_nbc(&c, PAT_ALG_RELAY, PAT_ALG_RING, P, late, 0, 1048576.0, &fast, &relay) == PAT_OK &&
              pat_model_nbc(&c, PAT_ALG_DIRECT, PAT_ALG_RING, P, late, 0, 1048576.0, &fast, &direct) == PAT_OK &&
              relay.ebar < 0.9 * direct.ebar,
          "P=%d one late rank: relay ahead %g not 10%% below direct %g", P, relay.ebar, direct.ebar);
  }
  srand(11);
  for (int trial = 0; trial < 300; trial++) {
    int P = 2 + trial % 7;
    for (int i = 0; i < P; i++) a[i] = (int64_t)(rand() % 40) * 500000000LL; /* 0 - 19.5 s */
    double T = (trial % 3) * (rand() % 30);
    CHECK(pat_model_nbc(&c, PAT_ALG_NATIVE, PAT_ALG_RING, P, a, T, 1.0, &mp, &own) == PAT_OK, "trial %d: own", trial);
    for (size_t k = 0; k < sizeof algs / sizeof *algs; k++) {
      int rc = pat_model_nbc(&c, algs[k], PAT_ALG_RING, P, a, T, 1.0, &mp, &p);
      CHECK(rc == PAT_OK && p.ebar >= T - 1e-9 && p.emax >= p.ebar - 1e-9 && p.ebar >= p.lb - 1e-9,
            "trial %d P=%d %s T=%g: e-bar %g, largest %g, bound %g", trial, P, pat_algorithms[algs[k]].name, T, p.ebar,
            p.emax, p.lb);
      if (algs[k] == PAT_ALG_RING || algs[k] == PAT_ALG_RELAY)
        CHECK(p.ebar <= own.ebar + 1e-9, "trial %d P=%d %s T=%g: %g above MPI's own as ring %g", trial, P,
              pat_algorithms[algs[k]].name, T, p.ebar, own.ebar);
    }
  }
  CHECK(pat_model_nbc(&c, PAT_ALG_RING, PAT_ALG_RING, 0, a, 0, 1.0, &mp, &p) == PAT_EINVAL, "P = 0");
  CHECK(pat_model_nbc(&c, PAT_ALG_RING, PAT_ALG_RING, 4, a, -1, 1.0, &mp, &p) == PAT_EINVAL, "negative compute");
  CHECK(pat_model_nbc(&c, PAT_ALG_NATIVE, PAT_ALG_NATIVE, 4, a, 0, 1.0, &mp, &p) == PAT_EINVAL, "own as native");
  pat_select_cache_free(&c);
  return TEST_RESULT();
}
