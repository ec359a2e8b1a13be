/* Unit test of pat-minibench's statistics: the lower bound of docs/design.md §1,
 * the t quantile, mean/sd/median, and the reproducible data stream. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mb.h"

static int failures;

static void near(double got, double want, double tol, const char *what) {
  int ok = fabs(got - want) <= tol;
  printf("%s %s: got %.6g, want %.6g\n", ok ? "ok  " : "FAIL", what, got, want);
  failures += !ok;
}

int main(void) {
  /* flat PAP: every rank receives P-1 blocks back to back */
  double flat[4] = {0, 0, 0, 0};
  near(mb_lower_bound(flat, 4, 1.0), 3.0, 1e-12, "flat PAP, P=4: (P-1) tau");
  /* one late rank at 10: it can have everything by then (e=0); the others
   * get two blocks at 1 and 2, the late block at 11 */
  double late[4] = {0, 10, 0, 0};
  near(mb_lower_bound(late, 4, 1.0), 33.0 / 4, 1e-12, "one late rank");
  /* equal arrivals, P=2 */
  double two[2] = {5, 5};
  near(mb_lower_bound(two, 2, 2.0), 2.0, 1e-12, "P=2, tau=2");
  /* staircase a_j = j, tau = 1: rank i gets the others as they come */
  double stair[3] = {0, 1, 2};
  /* rank0: blocks at 1,2 -> 2, 3 -> e=3; rank1: blocks 0,2 -> 1, 3 -> e=2; rank2: 0,1 -> 1,2 -> e=0 */
  near(mb_lower_bound(stair, 3, 1.0), 5.0 / 3, 1e-12, "staircase");
  near(mb_lower_bound(flat, 1, 1.0), 0.0, 0, "P=1");

  near(mb_t975(1), 12.706, 1e-9, "t(0.975, 1)");
  near(mb_t975(30), 2.042, 1e-9, "t(0.975, 30)");
  near(mb_t975(60), 2.000, 2e-3, "t(0.975, 60)");
  near(mb_t975(100000), 1.95996, 1e-4, "t(0.975, inf)");

  double x[5] = {3, 1, 4, 1, 5}, m, sd, lo, hi;
  mb_describe(x, 5, &m, &sd, &lo, &hi);
  near(m, 2.8, 1e-12, "mean");
  near(sd, sqrt(3.2), 1e-12, "sample sd");
  near(lo, 1, 0, "min");
  near(hi, 5, 0, "max");
  near(mb_median(x, 5), 3, 0, "median (odd)");
  near(mb_median(x, 4), 2, 0, "median (even)");

  /* data: a block regenerated from (seed, iter, owner) checks clean; a changed
   * element or another iteration's data does not */
  float blocks[3 * 7];
  for (int b = 0; b < 3; b++) mb_fill(blocks + 7 * b, 7, 42, 5, b);
  near((double)mb_check(blocks, 7, 3, 42, 5), 0, 0, "fresh data checks clean");
  blocks[9] += 1.0f;
  near((double)mb_check(blocks, 7, 3, 42, 5), 1, 0, "one changed element is counted");
  near((double)mb_check(blocks, 7, 3, 42, 6), 21, 1, "another iteration's values differ everywhere");
  double u0 = mb_uniform(1, 0, 0), u1 = mb_uniform(1, 1, 0);
  near(u0 == mb_uniform(1, 0, 0), 1, 0, "delays are reproducible");
  near(u0 != u1 && u0 >= 0 && u0 <= 1 && u1 >= 0 && u1 <= 1, 1, 0, "delays differ per rank, in [0,1]");

  printf("%s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
