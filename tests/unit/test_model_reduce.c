/* The replay of reductions: gamma is charged on the critical path, bytes
 * times gamma per step with reducing receives (the executor combines after
 * the step's messages); a reduction's every step waits for its rank's
 * arrival; a reduction as a data flow is refused.  And the default gamma. */
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
static int replay(int id, int P, double g, const double *arrival, double *e) {
  pat_build_args a = {.P = P, .self = PAT_ALL_RANKS};
  pat_sched s;
  if (pat_build_allreduce(id, &s, &a)) return -1;
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
      if (pat_allreduce_algorithms[id].flags & PAT_AREDF_ARRIVAL)
        continue; /* data flows: the replay takes reductions in lockstep only (refused: below) */
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
    /* and as a data flow: refused */
    s.send_window = 2;
    CHECK(pat_model_replay(&s, NULL, &p, SEG, &r) == PAT_EINVAL, "a reduction as a data flow replayed");
    pat_sched_free(&s);
  }
  return TEST_RESULT();
}
