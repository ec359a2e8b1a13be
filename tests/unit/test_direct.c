/* DIRECT: for P = 1..64 the schedule is valid, its per-rank builds are the
 * slices of the whole, every step keeps within the window, every rank
 * receives each other block exactly once and from its owner; the fluid
 * replay on balanced arrivals gives the hand-computed times (every port
 * shared by the step's W transfers: each step costs alpha + W beta m); the
 * compiled program defers to the replay (its mesh steps need max-min
 * sharing) or, for P < 3, gives what the replay gives. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "model/model.h"
#include "model/model_prog.h"
#include "schedtest.h"
#include "testutil.h"

static const double ALPHA = 2.5e-5, BETA = 8e-9, M = 4096; /* m: block bytes */
static const double C = ALPHA + BETA * M;                  /* one transfer */

static int close_to(double x, double y) { return fabs(x - y) <= 1e-12 * fabs(y) + 1e-18; }

/* Rank r's ops, step by step: at most W sends and W receives per step, each
 * send carries r's own block, each receive brings block p from rank p; over
 * all steps r sends to and receives from every other rank exactly once.
 * Returns 0 if so, else 1 with a description in err. */
static int check_rank(const pat_sched *s, int r, int W, char *err, size_t errlen) {
  const int P = s->P;
  size_t n;
  const pat_op *o = pat_sched_rank_ops(s, r, &n);
  int *sent = calloc((size_t)P, sizeof *sent), *got = calloc((size_t)P, sizeof *got);
  err[0] = '\0';
  for (size_t i = 0; i < n && !err[0];) {
    size_t j = i;
    int sends = 0, recvs = 0;
    for (; j < n && o[j].step == o[i].step && !err[0]; j++) {
      const pat_op *x = &o[j];
      const int whole = x->nspans == 1 && x->span[0].count == 1 && x->span[0].lo == 0 && x->span[0].hi == PAT_FRAC_ONE;
      if (!whole || (x->kind != PAT_OP_SEND && x->kind != PAT_OP_RECV)) {
        snprintf(err, errlen, "rank %d step %d: not a message of one whole block", r, x->step);
      } else if (x->kind == PAT_OP_SEND) {
        sends++;
        sent[x->peer]++;
        if (x->span[0].first != r) snprintf(err, errlen, "rank %d sends block %d", r, x->span[0].first);
      } else {
        recvs++;
        got[x->peer]++;
        if (x->span[0].first != x->peer)
          snprintf(err, errlen, "rank %d gets block %d from %d", r, x->span[0].first, x->peer);
      }
    }
    if (!err[0] && (sends > W || recvs > W))
      snprintf(err, errlen, "rank %d step %d: %d sends, %d receives, window %d", r, o[i].step, sends, recvs, W);
    i = j;
  }
  for (int p = 0; p < P && !err[0]; p++)
    if (p != r && (sent[p] != 1 || got[p] != 1))
      snprintf(err, errlen, "rank %d: %d sends to and %d receives from rank %d", r, sent[p], got[p], p);
  free(sent);
  free(got);
  return err[0] != '\0';
}

/* Balanced replay. */
static int replay_balanced(const pat_sched *s, double *f, pat_model_result *res) {
  pat_model_params mp;
  pat_model_params_init(&mp, ALPHA, BETA);
  memset(res, 0, sizeof *res);
  res->f = f;
  return pat_model_replay(s, NULL, &mp, M, res) == PAT_OK;
}

int main(void) {
  double f[64];
  double worst_f = 0, worst_ebar = 0;
  int worst_f_P = 0, worst_ebar_P = 0;
  for (int P = 1; P <= 64; P++) {
    const int W = pat_direct_window(P);
    CHECK(W == (P - 1 < 8 ? P - 1 : 8), "P=%d: window %d", P, W);
    const int S = W ? (P - 1 + W - 1) / W : 0;
    pat_build_args args = {P, PAT_ALL_RANKS, NULL, 1000, 0, 0, 0, NULL, NULL, NULL};
    pat_sched s;
    char err[256];
    CHECK(sched_build_checked(PAT_ALG_DIRECT, args, PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND, 1, &s, err,
                              sizeof err) == 0,
          "P=%d: %s", P, err);
    CHECK(s.nsteps == S, "P=%d: %d steps, expected %d", P, s.nsteps, S);
    unsigned multi = PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV;
    CHECK((s.flags & multi) == (W > 1 ? multi : 0u), "P=%d: flags %#x", P, s.flags);
    CHECK(s.nops == 2 * (size_t)P * (size_t)(P - 1), "P=%d: %zu ops", P, s.nops);
    for (int r = 0; r < P; r++) CHECK(check_rank(&s, r, W, err, sizeof err) == 0, "P=%d: %s", P, err);

    /* the replay, balanced arrivals (cost formula of allgather_direct.c) */
    pat_model_result res;
    CHECK(replay_balanced(&s, f, &res), "P=%d: replay failed or engines differ", P);
    /* each step: every port carries the step's W_t transfers at 1/W_t of its
     * rate, so the step lasts alpha + W_t beta m; the receive port moves
     * P-1 blocks in all, and pays alpha once per step */
    const double expect = S * ALPHA + (P - 1) * BETA * M;
    for (int i = 0; i < P; i++)
      CHECK(close_to(f[i], expect), "P=%d rank %d leaves at %.9g, expected %.9g", P, i, f[i], expect);
    if (P > 1) {
      double fmax = 0;
      for (int i = 0; i < P; i++) fmax = f[i] > fmax ? f[i] : fmax;
      double rf = fmax / ((P - 1) * C), re = res.ebar / ((P - 1) * C);
      if (rf > worst_f) worst_f = rf, worst_f_P = P;
      if (re > worst_ebar) worst_ebar = re, worst_ebar_P = P;
      CHECK(P > 2 || close_to(res.ebar, C), "P=2: one exchange");
    }
    pat_sched_free(&s);
  }
  printf("balanced replay: last exit at most %.3f (P-1)c (P=%d), mean e at most %.3f (P-1)c (P=%d)\n", worst_f,
         worst_f_P, worst_ebar, worst_ebar_P);

  /* the compiled program (a mesh step per window) defers to the replay on
   * random arrivals, background starts and node maps */
  int node[64];
  uint64_t rng = 0x2545f4914f6cdd1dull;
  for (int trial = 0; trial < 60; trial++) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int P = 2 + (int)(rng % 63);
    double a[64];
    for (int i = 0; i < P; i++) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      a[i] = trial % 3 == 0 ? 0 : (double)(rng % 1000) * C / 50;
    }
    pat_model_params mp;
    pat_model_params_init(&mp, ALPHA, BETA);
    if (trial % 4 == 1) mp.bg_start = a[0];
    int general = trial % 2;
    if (general) {
      for (int i = 0; i < P; i++) node[i] = i / 4;
      mp.node = node;
      mp.dflt.has_intra = 1;
      mp.dflt.intra = (pat_hockney){ALPHA / 10, BETA / 4};
    }
    pat_prog *g;
    CHECK(pat_prog_compile(&g, PAT_ALG_DIRECT, P, 0, general) == PAT_OK, "compile P=%d", P);
    CHECK(P < 3 || !pat_prog_is_uniform(g), "P=%d: a window is not uniform", P);
    pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, 0, 0, 0, NULL, NULL, NULL};
    pat_sched s;
    CHECK(pat_build(PAT_ALG_DIRECT, &s, &args) == PAT_OK, "build");
    double f1[64], f2[64];
    pat_model_result r1 = {0}, r2 = {0};
    r1.f = f1;
    r2.f = f2;
    double amin = a[0];
    for (int i = 0; i < P; i++) amin = a[i] < amin ? a[i] : amin;
    for (int i = 0; i < P; i++) a[i] -= amin;
    mp.bg_start -= amin;
    int rc = pat_prog_eval(g, a, &mp, M, &r1);
    CHECK(pat_model_replay(&s, a, &mp, M, &r2) == PAT_OK, "replay");
    if (P < 3) {
      CHECK(rc == PAT_OK, "P=%d: program not evaluated", P);
      CHECK(memcmp(f1, f2, (size_t)P * sizeof *f1) == 0 && r1.ebar == r2.ebar && r1.transfers == r2.transfers,
            "trial %d P=%d: program %.17g, replay %.17g", trial, P, r1.ebar, r2.ebar);
    } else {
      CHECK(rc == PAT_MODEL_FALLBACK, "P=%d: a mesh step must defer to the replay (rc %d)", P, rc);
    }
    pat_sched_free(&s);
    pat_prog_free(g);
  }
  return TEST_RESULT();
}
