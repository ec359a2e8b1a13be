/* ARD: valid for 10,000 random PAPs (P = 2..64) with one send and one
 * receive per rank per step, identical on every rank, and no rank sends its
 * own block before its predicted arrival step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "paputil.h"
#include "schedtest.h"
#include "testutil.h"

/* Does any rank send (part of) its own block in a step before its arrival slot? */
static int own_before_arrival(const pat_sched *s, const int32_t *slot, char *err, size_t errlen) {
  for (size_t i = 0; i < s->nops; i++) {
    const pat_op *op = &s->ops[i];
    if (op->kind == PAT_OP_SEND && pat_spans_touch_block(s->P, op->nspans, op->span, op->rank) &&
        op->step < slot[op->rank]) {
      snprintf(err, errlen, "rank %d sends its block in step %d, before its arrival step %d", op->rank, op->step,
               slot[op->rank]);
      return 1;
    }
  }
  return 0;
}

/* The clock, recomputed from the arrivals alone: steps are slots of tau up to
 * E = max(0, slot(last) - ceil(log2 P)), then slots of tau/q; a rank's
 * release step is the one containing its arrival. */
static int clock_matches_arrivals(const pat_build_args *a, const pat_ard_timing *clk, const int32_t *release,
                                  char *err, size_t errlen) {
  const int P = a->P;
  int32_t slot[64];
  pat_arrival_slots(P, a->arrival, a->tau, slot);
  int last = 0, D = 0;
  int64_t amin = a->arrival[0];
  for (int r = 1; r < P; r++) {
    if (a->arrival[r] >= a->arrival[last]) last = r;
    if (a->arrival[r] < amin) amin = a->arrival[r];
  }
  while ((1 << D) < P) D++;
  int32_t E = slot[last] > D ? slot[last] - D : 0;
  if (clk->switch_step != E || clk->q < 1 || clk->q > 8) {
    snprintf(err, errlen, "clock: switch %d (expected %d), q %d", clk->switch_step, E, clk->q);
    return 1;
  }
  for (int r = 0; r < P; r++) {
    int64_t d = a->arrival[r] - amin;
    int64_t fine = d / a->tau * clk->q + (d % a->tau) * clk->q / a->tau;
    int64_t expect = slot[r] < E ? slot[r] : E + fine - (int64_t)E * clk->q;
    if (release[r] != expect) {
      snprintf(err, errlen, "rank %d: release step %d, expected %lld", r, release[r], (long long)expect);
      return 1;
    }
  }
  return 0;
}

int main(void) {
  enum { NPAP = 10000 };
  int64_t arrival[64];
  int32_t slot[64];
  char err[256];
  const unsigned rules = PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND;
  int qs[16] = {0};
  for (int n = 0; n < NPAP; n++) {
    int P = 2 + n % 63;
    int64_t tau;
    const char *shape = pap_random(P, arrival, &tau);
    /* latency: none, or a random share of tau (it sets ARD's piece count) */
    int64_t alpha = n % 2 == 0 ? 0 : pap_below(n % 3 ? tau / 8 + 1 : tau + 1);
    /* block bytes: unknown, one or a few pieces' worth, or plenty (it bounds the piece count) */
    const int64_t block_bytes = n % 5 == 0 ? 0 : (int64_t)(n % 5 == 1 ? 1 + pap_below(3) : 8) * PAT_ARD_MIN_PIECE + 17;
    pat_build_args args = {P, PAT_ALL_RANKS, arrival, tau, 0, alpha, block_bytes, NULL, NULL, NULL};
    pat_sched all;
    /* per-rank builds: two ranks of every PAP (the last arriver and a random
     * one), every rank of every 16th */
    int latest_rank = 0;
    for (int r = 1; r < P; r++)
      if (arrival[r] >= arrival[latest_rank]) latest_rank = r;
    int bad = sched_build_checked2(PAT_ALG_ARD, args, rules, n % 16 == 0, latest_rank, (int)pap_below(P), &all, err,
                                   sizeof err);
    CHECK(!bad, "PAP %d (%s, P=%d): %s", n, shape, P, err);
    if (bad) continue;
    pat_ard_timing clk;
    CHECK(pat_ard_clock(&args, &clk, slot) == PAT_OK, "clock");
    CHECK(!clock_matches_arrivals(&args, &clk, slot, err, sizeof err), "PAP %d (%s, P=%d): %s", n, shape, P, err);
    CHECK(!own_before_arrival(&all, slot, err, sizeof err), "PAP %d (%s, P=%d): %s", n, shape, P, err);
    CHECK(clk.q == 1 || (int64_t)clk.q * PAT_ARD_MIN_PIECE <= block_bytes,
          "PAP %d (%s, P=%d): %d pieces of a block of %lld bytes are smaller than %d bytes", n, shape, P, clk.q,
          (long long)block_bytes, PAT_ARD_MIN_PIECE);
    qs[clk.q]++;
    pat_sched_free(&all);
  }
  /* balanced and tiny cases */
  for (int P = 1; P <= 40; P++) {
    pat_build_args args = {P, PAT_ALL_RANKS, NULL, 1000, 0, 0, 0, NULL, NULL, NULL};
    pat_sched all;
    int bad = sched_build_checked(PAT_ALG_ARD, args, rules, 1, &all, err, sizeof err);
    CHECK(!bad, "balanced P=%d: %s", P, err);
    if (!bad) pat_sched_free(&all);
  }
  printf("ARD: %d PAPs valid; pieces per block in the end game:", NPAP);
  for (int q = 1; q < 16; q++)
    if (qs[q]) printf(" q=%d: %d", q, qs[q]);
  printf("\n");
  /* the floor must leave room for pieces where blocks are large */
  CHECK(qs[8] > 0 && qs[2] + qs[3] > 0, "ARD never split blocks into pieces (q=8: %d, q=2..3: %d)", qs[8], qs[2] + qs[3]);
  return TEST_RESULT();
}
