/* The persistent call's lower bound (pat_lower_bound_persistent), on
 * hand-computed cases: T_i = max(a_i, max_{j != i} (a_j + alpha + tau_j),
 * the makespan of i's receive port taking the other blocks, block j from
 * a_j on, in release order):
 *  - balanced, alpha 1, tau 2, P = 4: the one-block part says 3, the port
 *    takes three blocks, 6: e = 6 (the port's; the first alone said 3);
 *  - the last rank at 10: the others end at 13 (e = 13, the one-block part:
 *    the port says 12), the last one at its arrival (the others' blocks came
 *    while it computed), ē = 39 / 4;
 *  - unequal blocks (a = 0, 5, 1; tau = 4, 1, 2; alpha 0): the blocks are in
 *    by 4, 6, 3, but rank 1's port takes blocks 0 and 2 until 6: e = 6, 1, 5;
 *  - two equal latest blocks (a = 2, 2, 0; tau 1): e = 1, 1, and 4 for rank
 *    2, whose port takes both;
 *  - one process: 0;
 * and, with alpha 0, equal to the receive port's bound (pat_lower_bound_v),
 * which is never under the one-block part, on random arrivals; with alpha
 * 1, at least it. */
#include <math.h>
#include <stdlib.h>

#include "model/model.h"
#include "testutil.h"

static int near(double x, double y) { return fabs(x - y) < 1e-12; }

int main(void) {
  double e[8];
  const double zero[4] = {0, 0, 0, 0};
  CHECK(near(pat_lower_bound_persistent(4, zero, 1, 2, NULL, e), 6) && near(e[0], 6) && near(e[3], 6),
        "balanced: 6, the port's (got %g)", e[0]);
  const double late[4] = {0, 0, 0, 10};
  CHECK(near(pat_lower_bound_persistent(4, late, 1, 2, NULL, e), 39.0 / 4) && near(e[0], 13) && near(e[3], 0),
        "last at 10: e = 13, 13, 13, 0 (got %g and %g)", e[0], e[3]);
  const double a3[3] = {0, 5, 1}, t3[3] = {4, 1, 2};
  CHECK(near(pat_lower_bound_persistent(3, a3, 0, 0, t3, e), 4) && near(e[0], 6) && near(e[1], 1) &&
            near(e[2], 5),
        "unequal blocks: 6, 1, 5 (got %g %g %g)", e[0], e[1], e[2]);
  const double tie[3] = {2, 2, 0};
  CHECK(near(pat_lower_bound_persistent(3, tie, 0, 1, NULL, e), 2) && near(e[0], 1) && near(e[1], 1) &&
            near(e[2], 4),
        "two latest equal: 1, 1, 4 (got %g %g %g)", e[0], e[1], e[2]);
  const double one[1] = {7};
  CHECK(pat_lower_bound_persistent(1, one, 1, 2, NULL, e) == 0 && e[0] == 0, "one process: 0");
  srand(5);
  for (int trial = 0; trial < 200; trial++) {
    double a[8], t[8];
    int P = 2 + trial % 7;
    for (int i = 0; i < P; i++) {
      a[i] = rand() % 1000 / 10.0;
      t[i] = 0.5 + rand() % 100 / 10.0;
    }
    double persistent = pat_lower_bound_persistent(P, a, 0, 0, t, NULL), port = pat_lower_bound_v(P, a, t, NULL);
    CHECK(fabs(persistent - port) < 1e-9, "P=%d trial %d: persistent %g, the port's %g", P, trial, persistent, port);
    double with_alpha = pat_lower_bound_persistent(P, a, 1, 0, t, NULL);
    CHECK(with_alpha >= port - 1e-9, "P=%d trial %d: with alpha %g under the port's %g", P, trial, with_alpha, port);
  }
  return TEST_RESULT();
}
