/* The replay (one engine since the fluid model) on random valid schedules
 * with ports serving several transfers in a step, random arrivals,
 * background start times, pieces and signals: it succeeds, is
 * deterministic (the engine setting changes nothing), and every rank leaves
 * after its arrival. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "model/model.h"
#include "testutil.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)((rng >> 20) % n);
}

/* A random dissemination: in each step a random set of transfers of a
 * block (or half a block) the sender holds and the receiver lacks.  Mode 0:
 * each rank sends at most one message and receives at most one; mode 1: a
 * rank may receive several; mode 2: a rank may send several.  Some steps
 * carry a signal ahead of a transfer. */
static void random_sched(pat_sched *s, int P, int mode) {
  pat_sched_init(s, P, PAT_ALL_RANKS);
  s->flags |= PAT_SCHED_MULTI_RECV | PAT_SCHED_MULTI_SEND;
  /* have[r][b]: 0 nothing, 1 first half, 2 whole */
  unsigned char *have = calloc((size_t)P * P, 1);
  for (int r = 0; r < P; r++) have[r * P + r] = 2;
  int missing = P * (P - 1), step = 0;
  int *nsend = malloc(P * sizeof(int)), *nrecv = malloc(P * sizeof(int));
  unsigned char *pair = malloc((size_t)P * P);
  while (missing > 0) {
    memset(nsend, 0, P * sizeof(int));
    memset(nrecv, 0, P * sizeof(int));
    memset(pair, 0, (size_t)P * P);
    unsigned char *got = calloc((size_t)P * P, 1); /* received this step: not forwardable yet */
    int tries = P * 3, any = 0;
    while (tries-- > 0) {
      int from = (int)rnd(P), to = (int)rnd(P);
      if (from == to || pair[from * P + to]) continue;
      if (mode != 2 && nsend[from] > 0) continue;
      if (mode != 1 && nrecv[to] > 0) continue;
      if (mode == 1 && nsend[from] > 0) continue;
      if (mode == 2 && nrecv[to] > 0) continue;
      int b = (int)rnd(P), k;
      for (k = 0; k < P; k++, b = (b + 1) % P)
        if (have[from * P + b] == 2 && !got[from * P + b] && have[to * P + b] < 2 && !got[to * P + b]) break;
      if (k == P) continue;
      pair[from * P + to] = 1;
      nsend[from]++;
      nrecv[to]++;
      if (mode == 0 && rnd(5) == 0 && !pair[to * P + from] && nsend[to] == 0 && nrecv[from] == 0) {
        pat_sched_signal(s, step, to, from, 0); /* a "ready" the other way */
        pair[to * P + from] = 1;
        nsend[to]++;
        nrecv[from]++;
      }
      pat_span sp;
      if (have[to * P + b] == 0 && rnd(3) == 0) {
        sp = pat_piece(b, 0, PAT_FRAC_ONE / 2);
        have[to * P + b] = 1;
      } else if (have[to * P + b] == 1) {
        sp = pat_piece(b, PAT_FRAC_ONE / 2, PAT_FRAC_ONE);
        have[to * P + b] = 2;
        missing--;
      } else {
        sp = pat_blocks(P, b, 1);
        have[to * P + b] = 2;
        missing--;
      }
      got[to * P + b] = 1;
      pat_sched_transfer(s, step, from, to, 1, &sp, 0);
      any = 1;
    }
    free(got);
    if (any) step++;
  }
  pat_sched_finalize(s);
  free(have);
  free(nsend);
  free(nrecv);
  free(pair);
}

int main(void) {
  int cases = 0;
  double f1[40], f2[40], a[40];
  for (int trial = 0; trial < 600; trial++) {
    int P = 2 + (int)rnd(30), mode = trial % 3;
    pat_sched s;
    random_sched(&s, P, mode);
    char err[256];
    CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "generator made an invalid schedule: %s", err);
    for (int i = 0; i < P; i++) a[i] = rnd(4) == 0 ? 0 : rnd(1000) * 1e-3;
    pat_model_params mp;
    pat_model_params_init(&mp, 1e-3, 1e-6);
    mp.bg_start = rnd(2) ? -1e300 : rnd(500) * 1e-3;
    pat_model_result r1 = {0}, r2 = {0};
    r1.f = f1;
    r2.f = f2;
    CHECK(pat_model_replay(&s, a, &mp, 1000, &r1) == PAT_OK, "fast replay");
    mp.engine = PAT_ENGINE_EVENT;
    CHECK(pat_model_replay(&s, a, &mp, 1000, &r2) == PAT_OK, "event replay");
    CHECK(memcmp(f1, f2, P * sizeof *f1) == 0 && r1.ebar == r2.ebar && r1.transfers == r2.transfers,
          "trial %d P=%d mode %d: engines differ (ebar %.17g vs %.17g)", trial, P, mode, r1.ebar, r2.ebar);
    for (int i = 0; i < P; i++) CHECK(f1[i] >= a[i], "trial %d: rank %d leaves before it arrives", trial, i);
    cases++;
    pat_sched_free(&s);
  }

  /* the arrival-aware builders' schedules (those implemented) */
  const int aware[] = {PAT_ALG_BDR, PAT_ALG_BSLB, PAT_ALG_ARD};
  int aware_cases = 0;
  for (int trial = 0; trial < 300; trial++) {
    int P = 2 + (int)rnd(38), alg = aware[trial % 3];
    int64_t ans[42], tau = 1000000;
    for (int i = 0; i < P; i++) {
      ans[i] = (int64_t)rnd(20) * tau / 2;
      a[i] = (double)ans[i] * 1e-9;
    }
    pat_build_args args = {P, PAT_ALL_RANKS, ans, tau, (int)rnd(P), 0, 8 << 20, NULL, NULL, NULL}; /* blocks large enough for ARD's pieces */
    pat_sched s;
    if (pat_build(alg, &s, &args) != PAT_OK) continue;
    pat_model_params mp;
    pat_model_params_init(&mp, 2e-4, 8e-9); /* 1 MB blocks: tau = 8.2 ms */
    mp.bg_start = rnd(2) ? -INFINITY : 0.002;
    pat_model_result r1 = {0}, r2 = {0};
    r1.f = f1;
    r2.f = f2;
    CHECK(pat_model_replay(&s, a, &mp, 1e6, &r1) == PAT_OK, "fast replay %s", pat_algorithms[alg].name);
    mp.engine = PAT_ENGINE_EVENT;
    CHECK(pat_model_replay(&s, a, &mp, 1e6, &r2) == PAT_OK, "event replay %s", pat_algorithms[alg].name);
    CHECK(memcmp(f1, f2, P * sizeof *f1) == 0 && r1.ebar == r2.ebar, "%s P=%d: engines differ (%.17g vs %.17g)",
          pat_algorithms[alg].name, P, r1.ebar, r2.ebar);
    pat_sched_free(&s);
    aware_cases++;
  }
  printf("%d arrival-aware schedules: engines agree\n", aware_cases);
  printf("%d random schedules: engines agree\n", cases);
  return TEST_RESULT();
}
