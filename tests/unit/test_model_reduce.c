/* The replay of reductions: gamma is charged on the critical path, bytes
 * times gamma per step with reducing receives (the executor combines after
 * the step's messages); a reduction's every step waits for its rank's
 * arrival.  A reduction as a data flow (RELAY, HRELAY, SLT) is replayed in
 * the executor's order: the ring run so gives lockstep's times; SLT's
 * chain pays gamma once a hop up; a receive is applied only once its rank
 * is in.  And the default gamma. */
#include <math.h>
#include <string.h>

#include "algorithms/allreduce.h"
#include "model/model.h"
#include "testutil.h"

#define ALPHA 5e-6
#define BETA 1e-9
#define GAMMA 3e-10
#define SEG 4096.0 /* bytes of a segment: the vector is P of them */

/* e_i of every rank for all-reduce id at P, with gamma g (arrivals NULL: balanced). */
static int replay_flow(int id, int P, double g, const double *arrival, int window, double *e) {
  pat_build_args a = {.P = P, .self = PAT_ALL_RANKS};
  pat_sched s;
  if (pat_build_allreduce(id, &s, &a)) return -1;
  if (window) s.send_window = window;
  pat_model_params mp;
  pat_model_params_init(&mp, ALPHA, BETA);
  mp.gamma = g;
  pat_model_result r;
  memset(&r, 0, sizeof r);
  r.e = e;
  int rc = pat_model_replay(&s, arrival, &mp, SEG, &r);
  pat_sched_free(&s);
  return rc;
}
static int replay(int id, int P, double g, const double *arrival, double *e) {
  return replay_flow(id, P, g, arrival, 0, e);
}

static int close_to(double x, double y) { return fabs(x - y) <= 1e-12 + 1e-9 * fabs(y); }

int main(void) {
  pat_model_params mp;
  pat_model_params_init(&mp, ALPHA, BETA);
  CHECK(mp.gamma == PAT_MODEL_GAMMA_DEFAULT && !mp.gamma_set, "default gamma %g", mp.gamma);

  /* every rank's time grows by gamma times the bytes combined on the critical path: the cost formulas' gamma
   * terms (the fold's combination of the whole vector, then log2 p2 of it for RDB; (P-1)/P of it for RING and
   * for RABENSEIFNER at a power of two) */
  for (int P = 2; P <= 9; P++) {
    int p2 = 1, L = 0;
    while (2 * p2 <= P) p2 *= 2, L++;
    int fold = P > p2;
    for (int id = 0; id < PAT_ARED_COUNT; id++) {
      if (pat_allreduce_algorithms[id].flags & PAT_AREDF_ARRIVAL) continue; /* the data flows: below */
      double e0[16], e1[16], n = P * SEG, want;
      if (id == PAT_ARED_RDB)
        want = (L + fold) * n * GAMMA;
      else if (id == PAT_ARED_RING)
        want = (P - 1) * SEG * GAMMA;
      else /* uneven halves of whole segments where P is not a power of two: only that gamma costs (exact below) */
        want = fold ? -1 : (P - 1) * SEG * GAMMA;
      int rc0 = replay(id, P, 0, NULL, e0), rc1 = replay(id, P, GAMMA, NULL, e1);
      CHECK(rc0 == PAT_OK && rc1 == PAT_OK, "%s P=%d: replay failed", pat_allreduce_algorithms[id].name, P);
      for (int i = 0; i < P; i++) {
        double grew = e1[i] - e0[i];
        CHECK(grew > 0, "%s P=%d rank %d: gamma costs nothing", pat_allreduce_algorithms[id].name, P, i);
        if (want >= 0)
          CHECK(close_to(grew, want), "%s P=%d rank %d: grew %.9g s, want %.9g", pat_allreduce_algorithms[id].name,
                P, i, grew, want);
      }
    }
  }
  /* ... and at P = 16 */
  {
    double e0[16], e1[16];
    replay(PAT_ARED_RABENSEIFNER, 16, 0, NULL, e0);
    replay(PAT_ARED_RABENSEIFNER, 16, GAMMA, NULL, e1);
    for (int i = 0; i < 16; i++)
      CHECK(close_to(e1[i] - e0[i], 15 * SEG * GAMMA), "rabenseifner P=16 rank %d: grew %.9g s", i, e1[i] - e0[i]);
  }

  /* a rank's every step waits for its arrival: RDB at P = 3, rank 1 (the fold's receiver) a second late has
   * its three steps to go after it arrives, the fold's receive included (beta and gamma 0 here: 3 alpha) */
  {
    pat_build_args a = {.P = 3, .self = PAT_ALL_RANKS};
    pat_sched s;
    pat_build_allreduce(PAT_ARED_RDB, &s, &a);
    pat_model_params p;
    pat_model_params_init(&p, ALPHA, 0);
    p.gamma = 0;
    double arrival[3] = {0, 1, 0}, e[3];
    pat_model_result r;
    memset(&r, 0, sizeof r);
    r.e = e;
    CHECK(pat_model_replay(&s, arrival, &p, SEG, &r) == PAT_OK, "late rank: replay failed");
    CHECK(close_to(e[1], 3 * ALPHA), "late rank 1: e = %.9g s, want 3 alpha", e[1]);
    pat_sched_free(&s);
  }

  /* the ring as a data flow, one send in flight: each send waits for the receive of the step before it, applied,
   * and for the send before it, as lockstep's steps do, so the same times (the receives' posts at the start
   * change nothing: every transfer waits for its sender) */
  for (int P = 2; P <= 9; P++) {
    double e0[16], e1[16];
    int rc0 = replay(PAT_ARED_RING, P, GAMMA, NULL, e0), rc1 = replay_flow(PAT_ARED_RING, P, GAMMA, NULL, 1, e1);
    CHECK(rc0 == PAT_OK && rc1 == PAT_OK, "ring P=%d as a data flow: replay failed", P);
    for (int i = 0; i < P; i++)
      CHECK(close_to(e1[i], e0[i]), "ring P=%d rank %d: %.9g s as a data flow, %.9g in lockstep", P, i, e1[i], e0[i]);
  }

  /* the data flows replay at every P, and gamma costs every rank; SLT built for one piece (no block bytes):
   * balanced, its chain adds P - 1 times on the way up, at each hop's receiver, so the first rank of the
   * chain, which gets the result last, waits (P - 1) gamma P SEG longer */
  for (int P = 2; P <= 9; P++)
    for (int id = 0; id < PAT_ARED_COUNT; id++) {
      if (!(pat_allreduce_algorithms[id].flags & PAT_AREDF_ARRIVAL)) continue;
      double e0[16], e1[16];
      int rc0 = replay(id, P, 0, NULL, e0), rc1 = replay(id, P, GAMMA, NULL, e1);
      CHECK(rc0 == PAT_OK && rc1 == PAT_OK, "%s P=%d: the data flow's replay failed", pat_allreduce_algorithms[id].name,
            P);
      for (int i = 0; i < P && rc0 == PAT_OK && rc1 == PAT_OK; i++)
        CHECK(e1[i] > e0[i], "%s P=%d rank %d: gamma costs nothing", pat_allreduce_algorithms[id].name, P, i);
      if (id == PAT_ARED_SLT)
        CHECK(close_to(e1[0] - e0[0], (P - 1) * P * SEG * GAMMA), "slt P=%d rank 0: grew %.9g s, want %.9g", P,
              e1[0] - e0[0], (P - 1) * P * SEG * GAMMA);
    }

  /* a receive is applied once its rank is in: RDB at P = 2 as a data flow, rank 1 a second late (beta 0).  Its
   * run starts at its call: rank 0's vector moves then (alpha) and is added (gamma 2 SEG); rank 1's own moves
   * at once, to be added at rank 0 */
  {
    const double g = 1e-9, m = 2 * SEG, arrival[2] = {0, 1};
    pat_build_args a = {.P = 2, .self = PAT_ALL_RANKS};
    pat_sched s;
    pat_build_allreduce(PAT_ARED_RDB, &s, &a);
    s.send_window = 1;
    pat_model_params p;
    pat_model_params_init(&p, ALPHA, 0);
    p.gamma = g;
    double e[2];
    pat_model_result r;
    memset(&r, 0, sizeof r);
    r.e = e;
    CHECK(pat_model_replay(&s, arrival, &p, SEG, &r) == PAT_OK, "rdb P=2 as a data flow: replay failed");
    CHECK(close_to(e[1], ALPHA + g * m), "late rank 1: e = %.9g s, want alpha + gamma m = %.9g", e[1],
          ALPHA + g * m);
    CHECK(close_to(e[0], 1 + ALPHA + g * m), "rank 0: e = %.9g s, want 1 s + alpha + gamma m", e[0]);
    pat_sched_free(&s);
  }
  return TEST_RESULT();
}
