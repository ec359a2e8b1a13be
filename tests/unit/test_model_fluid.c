/* The fluid replay on hand-computed cases: concurrent transfers share a
 * port; LOCKSTEP and DATA FLOW (schedule.h) give different exits on the
 * same schedule; in data flow a held send overtakes an earlier one that
 * waits for its data, receives are posted from the rank's start (before
 * its arrival when its background thread runs the schedule), and the
 * window bounds the sends in flight.
 *
 * Parameters alpha = 1, beta = 0.5, blocks of 2 bytes: a block alone costs
 * 1 (latency) + 1 (one second of port time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "testutil.h"

typedef struct tr {
  int n;
  pat_model_xfer x[32];
} tr;
static void collect(void *ctx, const pat_model_xfer *x) {
  tr *t = ctx;
  if (t->n < 32) t->x[t->n++] = *x;
}
static const pat_model_xfer *find(const tr *t, int step, int from, int to) {
  for (int i = 0; i < t->n; i++)
    if (t->x[i].step == step && t->x[i].from == from && t->x[i].to == to) return &t->x[i];
  return NULL;
}

static void xfer(pat_sched *s, int step, int from, int to, int block, int count) {
  pat_span sp = pat_blocks(s->P, block, count);
  pat_sched_transfer(s, step, from, to, 1, &sp, 0);
}

static double pace_beta; /* 0: no pacing (every case but the last) */
static const int *node_map; /* NULL: every rank on its own node (every case but the last) */

/* Replay; compare every exit with want[] exactly (want NULL: none). */
static int run(const pat_sched *s, const double *a, double bg, const double *want, tr *t) {
  pat_model_params mp;
  pat_model_params_init(&mp, 1.0, 0.5);
  mp.bg_start = bg;
  mp.pace_beta = pace_beta;
  mp.node = node_map;
  mp.trace = collect;
  mp.trace_ctx = t;
  t->n = 0;
  double f[8];
  pat_model_result res = {0};
  res.f = f;
  if (pat_model_replay(s, a, &mp, 2.0, &res) != PAT_OK) return 0;
  int ok = 1;
  for (int i = 0; i < s->P && want; i++)
    if (f[i] != want[i]) {
      fprintf(stderr, "  rank %d: f = %.17g, expected %g\n", i, f[i], want[i]);
      ok = 0;
    }
  return ok;
}

int main(void) {
  pat_sched s;
  tr t;
  const pat_model_xfer *x;

  /* ---- 1. one block alone: alpha + 1 ---- */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  xfer(&s, 0, 1, 0, 1, 1);
  pat_sched_finalize(&s);
  double z2[2] = {0, 0}, f1[2] = {2, 2};
  CHECK(run(&s, z2, -INFINITY, f1, &t), "one transfer alone");
  pat_sched_free(&s);

  /* ---- 2. two transfers into one receive port take twice the port time:
   * both active at 1, half the rate each, one second of work: end at 3 ---- */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  s.flags |= PAT_SCHED_MULTI_RECV;
  xfer(&s, 0, 1, 0, 1, 1);
  xfer(&s, 0, 2, 0, 2, 1);
  pat_sched_finalize(&s);
  double z3[3] = {0, 0, 0}, f2[3] = {3, 3, 3};
  CHECK(run(&s, z3, -INFINITY, f2, &t), "two into one port");
  CHECK((x = find(&t, 0, 1, 0)) && x->end == 3, "1->0 ends at 3");

  /* staggered: 1->0 moves two blocks (2 s of port time) from 1; 2->0 (one
   * block) is ready when rank 2 arrives at 1, moves from 2.  1->0 alone
   * for 1 s (1 s left), then both at half rate: each needs 1 more second
   * of port time, so both end at 2 + 2 = 4.  (One port at a time: 1->0
   * would end at 3 and 2->0 at 5.) */
  pat_sched_free(&s);
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  s.flags |= PAT_SCHED_MULTI_RECV;
  xfer(&s, 0, 1, 0, 1, 2);
  xfer(&s, 0, 2, 0, 2, 1);
  pat_sched_finalize(&s);
  double a3[3] = {0, 0, 1}, f3[3] = {4, 4, 4};
  CHECK(run(&s, a3, -INFINITY, f3, &t), "staggered sharing");
  CHECK((x = find(&t, 0, 2, 0)) && x->ready == 1 && x->end == 4, "2->0 ready 1, ends 4");
  pat_sched_free(&s);

  /* ---- 3. a fan-out from one send port: three transfers, a third each:
   * 1 + 3 = 4 ---- */
  pat_sched_init(&s, 4, PAT_ALL_RANKS);
  s.flags |= PAT_SCHED_MULTI_SEND;
  for (int j = 1; j < 4; j++) xfer(&s, 0, 0, j, 0, 1);
  pat_sched_finalize(&s);
  double z4[4] = {0, 0, 0, 0}, f4[4] = {4, 4, 4, 4};
  CHECK(run(&s, z4, -INFINITY, f4, &t), "fan-out");
  pat_sched_free(&s);

  /* ---- 4. LOCKSTEP against DATA FLOW: a ring of P = 3, rank 2 late
   * (a = 0, 0, 10), background threads running from 0.
   * step 0: 0->1 b0, 1->2 b1, 2->0 b2; step 1: 0->1 b2, 1->2 b0, 2->0 b1.
   * Lockstep: step 0 waits for rank 2 (its transfers 10..12, 0->1 0..2),
   * step 1 from 12: every rank leaves at 14.
   * Data flow (window 1): 0->1 b0 and 1->2 b1 at 0..2 (rank 2's receives
   * are posted by its background thread at 0); 1->2 b0 at 2..4; rank 2's
   * step-1 send of b1 (held at 2) overtakes its step-0 send of b2 (held
   * only at a_2 = 10): 2..4; b2 at 10..12; 0->1 b2 at 12..14.  Rank 2
   * leaves at 12. ---- */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  xfer(&s, 0, 0, 1, 0, 1);
  xfer(&s, 0, 1, 2, 1, 1);
  xfer(&s, 0, 2, 0, 2, 1);
  xfer(&s, 1, 0, 1, 2, 1);
  xfer(&s, 1, 1, 2, 0, 1);
  xfer(&s, 1, 2, 0, 1, 1);
  pat_sched_finalize(&s);
  char err[200];
  CHECK(pat_sched_check(&s, PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND, err, sizeof err) == 0, "ring: %s", err);
  double a5[3] = {0, 0, 10}, lock[3] = {14, 14, 14}, flow[3] = {14, 14, 12};
  CHECK(run(&s, a5, 0, lock, &t), "lockstep");
  CHECK((x = find(&t, 0, 1, 2)) && x->ready == 10 && x->end == 12, "lockstep: 1->2 b1 waits for rank 2");
  s.send_window = 1;
  CHECK(run(&s, a5, 0, flow, &t), "data flow");
  CHECK((x = find(&t, 0, 1, 2)) && x->ready == 0 && x->end == 2, "data flow: 1->2 b1 into rank 2's posted receive");
  CHECK((x = find(&t, 1, 2, 0)) && x->ready == 2 && x->end == 4, "overtaking: rank 2's step-1 send at 2..4");
  CHECK((x = find(&t, 0, 2, 0)) && x->ready == 10 && x->end == 12, "rank 2's own block when it arrives");
  CHECK((x = find(&t, 1, 0, 1)) && x->ready == 12 && x->end == 14, "0->1 b2 once rank 0 holds it");
  /* without a background thread rank 2 starts at its arrival, its receives
   * too: 1->2 b1 waits for 10 (10..12) and holds rank 1's window, so b0
   * follows at 12..14; rank 2 sends b2 at 10..12, b1 at 12..14; every rank
   * leaves at 14, as in lockstep */
  CHECK(run(&s, a5, INFINITY, lock, &t), "data flow without background");
  CHECK((x = find(&t, 0, 1, 2)) && x->ready == 10, "data flow without background: 1->2 waits for a_2");
  pat_sched_free(&s);

  /* ---- 5. the window: rank 0 sends its block to 1 (step 0) and to 2
   * (step 1).  Window 1: one after the other, 0..2 and 2..4.  Window 2:
   * both at once on one send port, half the rate each: 0..3. ---- */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  xfer(&s, 0, 0, 1, 0, 1);
  xfer(&s, 1, 0, 2, 0, 1);
  pat_sched_finalize(&s);
  double w1[3] = {4, 2, 4}, w2[3] = {3, 3, 3};
  s.send_window = 1;
  CHECK(run(&s, z3, 0, w1, &t), "window 1");
  s.send_window = 2;
  CHECK(run(&s, z3, 0, w2, &t), "window 2");
  s.send_window = 0; /* lockstep: the same as window 1 here */
  CHECK(run(&s, z3, 0, w1, &t), "lockstep, two steps");
  pat_sched_free(&s);

  /* ---- 6. pacing and pairs: rank 0, late (a_0 = 2.5, background from
   * 0), takes b1 in from rank 1 (0..2) and forwards it to ranks 2 and 3
   * (step 1), then sends its own block to both (step 2); window 4.  Each
   * own send goes to a rank that a forward goes to: one connection per
   * pair, so it moves only once that forward is through.
   * Unpaced: both forwards at 2, active at 3, half the port each, end at
   * 5; the own sends, posted at 2.5 and active at 3.5, wait behind them and
   * share the port from 5: the own block ends at 7.
   * Paced at 0.5 s/B (a block: 1 s of link): the first forward is posted
   * at 2 (the link busy until 3); the own sends are never held and go at
   * 2.5 (the link busy until 5), so the second forward waits until 4.998.
   * The first forward moves alone from 3 and shares the port with the own
   * block's send to rank 3 (its pair free) from 3.5: it ends at 4.5, and
   * the own send to rank 2 moves behind it; the one to rank 3 ends at 5.5,
   * the one to rank 2 at 6.002 (alone from 5.5 but for the second forward,
   * which moves from 5.998 behind the own send to rank 3 and ends at 7).
   * The late owner's block reaches ranks 3 and 2 at 5.5 and 6.002 instead
   * of 7. ---- */
  pat_sched_init(&s, 4, PAT_ALL_RANKS);
  s.flags |= PAT_SCHED_MULTI_SEND;
  xfer(&s, 0, 1, 0, 1, 1);
  xfer(&s, 1, 0, 2, 1, 1);
  xfer(&s, 1, 0, 3, 1, 1);
  xfer(&s, 2, 0, 2, 0, 1);
  xfer(&s, 2, 0, 3, 0, 1);
  pat_sched_finalize(&s);
  s.send_window = 4;
  double a6[4] = {2.5, 0, 0, 0}, unpaced[4] = {7, 2, 7, 7};
  CHECK(run(&s, a6, 0, unpaced, &t), "unpaced forwards");
  CHECK((x = find(&t, 1, 0, 3)) && x->end == 5, "unpaced: the forwards end at 5");
  CHECK((x = find(&t, 2, 0, 2)) && x->ready == 2.5 && x->end == 7, "unpaced: the own block waits for its pairs, ends at 7");
  pace_beta = 0.5;
  CHECK(run(&s, a6, 0, NULL, &t), "paced forwards"); /* times not exact in binary: to 1e-9 */
  CHECK((x = find(&t, 1, 0, 2)) && x->ready == 2 && fabs(x->end - 4.5) < 1e-9, "paced: the first forward at 2, ends 4.5");
  CHECK((x = find(&t, 1, 0, 3)) && fabs(x->ready - 4.998) < 1e-9 && fabs(x->end - 7) < 1e-9,
        "paced: the second forward held until 4.998, ends 7");
  CHECK((x = find(&t, 2, 0, 3)) && x->ready == 2.5 && fabs(x->end - 5.5) < 1e-9,
        "paced: the own block never held, to rank 3 (its pair free) ends 5.5");
  CHECK((x = find(&t, 2, 0, 2)) && fabs(x->end - 6.002) < 1e-9,
        "paced: the own block to rank 2, behind its pair's forward, ends 6.002");
  /* ---- 7. the same, paced, where rank 0 shares its node with rank 2
   * (and all four share one): what goes inside a node is neither counted
   * against the link nor held, as the executor paces (exec/flow.c), so
   * the forward to rank 2 leaves the link's queue empty for the one to
   * rank 3, and nothing is held: every exit is the unpaced one. ---- */
  const int pairs[4] = {0, 1, 0, 1}, one[4] = {0, 0, 0, 0};
  node_map = pairs;
  CHECK(run(&s, a6, 0, unpaced, &t), "paced, rank 0 and rank 2 on one node: nothing held");
  CHECK((x = find(&t, 1, 0, 3)) && x->ready == 2, "paced, two nodes: the forward off the node at 2");
  node_map = one;
  CHECK(run(&s, a6, 0, unpaced, &t), "paced, one node: nothing held");
  node_map = NULL;
  pace_beta = 0;
  pat_sched_free(&s);

  printf("fluid sharing, lockstep, data flow and pacing: hand-computed cases hold\n");
  return TEST_RESULT();
}
