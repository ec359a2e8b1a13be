/* Unit test of pat-minibench's statistics: the lower bound of docs/design.md §1
 * (equal blocks and, against libpat's pat_lower_bound_v, unequal ones), the t
 * quantile, mean/sd/median, the reproducible data stream, the --counts
 * distributions and the check of unequal blocks; the all-reduce's bound and
 * its whole-number contributions, and what --coll allreduce refuses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb.h"
#include "model/model.h"

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

  /* ---- unequal blocks: the lower bound with a time per block ---- */
  double tau1[4] = {1, 1, 1, 1};
  near(mb_lower_bound_v(late, 4, tau1), mb_lower_bound(late, 4, 1.0), 0, "v bound, equal times = the bound");
  near(mb_lower_bound_v(stair, 3, tau1), mb_lower_bound(stair, 3, 1.0), 0, "v bound, equal times, staircase");
  /* staircase a = 0,1,2, tau = 3,1,1: rank0 gets 1@1 -> 2, 2@2 -> 3: e=3; rank1 gets 0@0 -> 3, then 2 -> 4:
   * e=3; rank2 gets 0 -> 3, 1 -> 4: e=2 */
  double tau_s[3] = {3, 1, 1};
  near(mb_lower_bound_v(stair, 3, tau_s), 8.0 / 3, 1e-12, "v bound, staircase with a big first block");
  near(mb_lower_bound_v(flat, 1, tau1), 0.0, 0, "v bound, P=1");
  /* ---- nodes: the two-level bound (2 x 2; rank 3 late at 5: node 0 takes block 2 by 1 and block 3
   * by 6, node 1 blocks 0 and 1 by 2, so e = 6 6 2 0), and one rank a node is the flat bound ---- */
  const int two_nodes[4] = {0, 0, 1, 1}, alone[4] = {0, 1, 2, 3};
  double zero[4] = {0, 0, 0, 0}, late3[4] = {0, 0, 0, 5};
  near(mb_lower_bound_nodes(zero, 4, 1.0, two_nodes), 2.0, 1e-12, "nodes: 2 x 2 balanced, 2 tau");
  near(mb_lower_bound_nodes(late3, 4, 1.0, two_nodes), 14.0 / 4, 1e-12, "nodes: a late rank");
  near(mb_lower_bound_nodes(late, 4, 1.0, alone), mb_lower_bound(late, 4, 1.0), 1e-12, "nodes: one rank a node");
  /* against libpat's own (src/model): random arrivals with ties, random times, empty blocks */
  unsigned long long lcg = 12345;
  int agree = 1;
  for (int trial = 0; trial < 2000; trial++) {
    int P = 2 + trial % 9;
    double a[10], t[10];
    for (int j = 0; j < P; j++) {
      lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
      a[j] = (double)((lcg >> 33) % 6);      /* few values: many ties */
      t[j] = (double)((lcg >> 45) % 5) * 0.5; /* 0 (an empty block) .. 2 */
    }
    double mine = mb_lower_bound_v(a, P, t), lib = pat_lower_bound_v(P, a, t, NULL);
    if (fabs(mine - lib) > 1e-9 * (1 + fabs(lib))) {
      if (agree) printf("FAIL v bound differs from pat_lower_bound_v at trial %d: %.9g vs %.9g\n", trial, mine, lib);
      agree = 0;
    }
  }
  near(agree, 1, 0, "v bound = pat_lower_bound_v on 2000 random cases (ties, empty blocks)");

  /* ---- the persistent bound (--persistent) against libpat's, alpha inside tau ---- */
  const double late4[4] = {0, 0, 0, 10};
  near(mb_lower_bound_persistent(late4, 4, 3.0, NULL), 39.0 / 4, 1e-12, "persistent, last at 10: 13, 13, 13, 0");
  int same_persistent = 1;
  for (int trial = 0; trial < 500; trial++) {
    double a[8], t[8];
    int P = 1 + trial % 8;
    for (int j = 0; j < P; j++) {
      lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
      a[j] = (double)((lcg >> 33) % 6);
      t[j] = (double)((lcg >> 45) % 5) * 0.5;
    }
    double mine = mb_lower_bound_persistent(a, P, 0, t), lib = pat_lower_bound_persistent(P, a, 0, 0, t, NULL);
    if (fabs(mine - lib) > 1e-9 * (1 + fabs(lib))) {
      if (same_persistent) printf("FAIL persistent bound differs at trial %d: %.9g vs %.9g\n", trial, mine, lib);
      same_persistent = 0;
    }
  }
  near(same_persistent, 1, 0, "persistent bound = pat_lower_bound_persistent on 500 random cases");

  /* ---- --counts: the same total, the shapes asked for ---- */
  long long c[8];
  mb_block_counts(MB_COUNTS_EQUAL, 1, 5, 7, c);
  near(c[0] == 7 && c[4] == 7, 1, 0, "equal: every block the mean");
  mb_block_counts(MB_COUNTS_RAMP, 1, 3, 33, c);
  near(c[0] == 17 && c[1] == 33 && c[2] == 49, 1, 0, "ramp P=3 mean 33: 17 33 49 (16.5 and 49.5: the tie to rank 0)");
  mb_block_counts(MB_COUNTS_ONEBIG, 1, 4, 70, c);
  near(c[0] == 40 && c[1] == 40 && c[2] == 40 && c[3] == 160, 1, 0, "onebig P=4 mean 70: 40 40 40 160");
  mb_block_counts(MB_COUNTS_RAMP, 1, 4, 1, c);
  near(c[0] + c[1] + c[2] + c[3] == 4 && c[0] == 0 && c[3] == 2, 1, 0, "ramp P=4 mean 1: an empty first block");
  int sums = 1, range = 1, same = 1;
  for (int P = 1; P <= 8; P++)
    for (long long mean = 1; mean < 200; mean += 13)
      for (int d = 0; d < MB_COUNTS_KINDS; d++) {
        long long c2[8], total = 0, lo = -1, hi = 0;
        mb_block_counts(d, 99, P, mean, c);
        mb_block_counts(d, 99, P, mean, c2);
        for (int r = 0; r < P; r++) {
          total += c[r];
          same &= c[r] == c2[r];
          range &= c[r] >= 0;
          if (lo < 0 || c[r] < lo) lo = c[r];
          if (c[r] > hi) hi = c[r];
        }
        sums &= total == P * mean;
        /* random weights in [0.25, 1.75]: no block more than 7x another (give or take the rounding) */
        if (d == MB_COUNTS_RANDOM && mean >= 100) range &= hi <= 7 * lo + 8;
      }
  near(sums, 1, 0, "every distribution sums to P * mean");
  near(range, 1, 0, "counts >= 0; random ones at most 7x apart");
  near(same, 1, 0, "counts reproducible");
  long long r1[8], r2[8];
  mb_block_counts(MB_COUNTS_RANDOM, 1, 8, 1000, r1);
  mb_block_counts(MB_COUNTS_RANDOM, 2, 8, 1000, r2);
  near(memcmp(r1, r2, sizeof r1) != 0, 1, 0, "random: another seed, other counts");
  char name[48];
  mb_counts_name(MB_COUNTS_RANDOM, 7, name, sizeof name);
  near(strcmp(name, "random:7") == 0, 1, 0, "name random:7");

  /* ---- the check of unequal blocks at their displacements ---- */
  int vc[3] = {2, 0, 5}, vd[3] = {0, 2, 2};
  float v[7];
  mb_fill(v, 2, 42, 3, 0);
  mb_fill(v + 2, 5, 42, 3, 2);
  near((double)mb_check_v(v, vc, vd, 3, 42, 3), 0, 0, "unequal blocks check clean (an empty one among them)");
  v[6] += 1.0f;
  near((double)mb_check_v(v, vc, vd, 3, 42, 3), 1, 0, "unequal blocks: one changed element is counted");
  vc[0] = 3; /* block 0 claims the first element of block 2: the stream differs there */
  vd[2] = 3;
  near((double)mb_check_v(v, vc, vd, 3, 42, 3) >= 1, 1, 0, "unequal blocks: shifted blocks are wrong");

  /* ---- --coll allreduce: the all-reduce's bound, e_i >= max(0, max_{j!=i} a_j + P tau - a_i) ---- */
  near(mb_lower_bound_allreduce(flat, 4, 1.0, NULL), 4.0, 1e-12, "all-reduce, flat PAP, P=4: P tau");
  /* the late rank's vector leaves it from 10: the others wait 14; it waits for no one */
  near(mb_lower_bound_allreduce(late, 4, 1.0, NULL), 42.0 / 4, 1e-12, "all-reduce, one late rank");
  /* rank 0: 2+3-0, rank 1: 2+3-1, rank 2: 1+3-2 */
  near(mb_lower_bound_allreduce(stair, 3, 1.0, NULL), 11.0 / 3, 1e-12, "all-reduce, staircase");
  near(mb_lower_bound_allreduce(flat, 1, 1.0, NULL), 0.0, 0, "all-reduce, P=1");
  /* two nodes: node 0's ranks wait for node 2's vectors (5 + 4); node 2's had node 0's long before */
  double late_node[4] = {0, 0, 5, 5};
  int node_of[4] = {0, 0, 2, 2};
  near(mb_lower_bound_allreduce(late_node, 4, 1.0, node_of), 18.0 / 4, 1e-12, "all-reduce, two nodes");
  /* never below mean_i (L + (P-1) tau - a_i), the last rank's own account of its shares */
  int below = 0;
  for (int t = 0; t < 200; t++) {
    double ar[6], L = -INFINITY, acc = 0;
    for (int i = 0; i < 6; i++) {
      ar[i] = 10 * mb_uniform(7, i, t);
      if (ar[i] > L) L = ar[i];
    }
    for (int i = 0; i < 6; i++) acc += L + 5 * 0.5 - ar[i];
    below += mb_lower_bound_allreduce(ar, 6, 0.5, NULL) < acc / 6 - 1e-12;
  }
  near(below, 0, 0, "all-reduce bound >= mean (L + (P-1) tau - a_i) on 200 random PAPs");

  /* whole-number contributions: exact sums in any order; a missing one changes every element */
  float c3[3][5], sum[5], rev[5];
  for (int r = 0; r < 3; r++) mb_fill_sum(c3[r], 5, 3, 9, 4, r);
  int whole = 1;
  for (int j = 0; j < 5; j++) {
    sum[j] = (c3[0][j] + c3[1][j]) + c3[2][j];
    rev[j] = c3[2][j] + (c3[1][j] + c3[0][j]);
    for (int r = 0; r < 3; r++) whole &= c3[r][j] >= 1 && c3[r][j] <= 1024 && c3[r][j] == floorf(c3[r][j]);
  }
  near(whole, 1, 0, "contributions are whole numbers in [1, 1024]");
  near((double)mb_check_sum(sum, 5, 3, 9, 4), 0, 0, "the sum checks clean");
  near((double)mb_check_sum(rev, 5, 3, 9, 4), 0, 0, "the sum in another order checks clean");
  near((double)mb_check_sum(sum, 5, 3, 9, 5), 5, 1, "another iteration's sums differ");
  for (int j = 0; j < 5; j++) sum[j] -= c3[1][j];
  near((double)mb_check_sum(sum, 5, 3, 9, 4), 5, 0, "a missing contribution is wrong everywhere");
  near((double)mb_sum_span(3), 1024, 0, "span 1024 at small P");
  near((double)mb_sum_span(1 << 20), 16, 0, "span shrinks so P values stay below 2^24");

  /* ---- --coll allreduce: what it refuses, by parsing alone (a refused launch costs mpirun seconds) ---- */
  static const struct {
    const char *args, *says; /* says: a word of the message; NULL: accepted */
  } cases[] = {
      {"--coll allreduce", NULL},
      {"--coll allreduce --alg RING", NULL},
      {"--coll allreduce --alg ring,native", "one algorithm per launch"},
      {"--coll allreduce --alg all", "one algorithm per launch"},
      {"--coll allreduce --alg nex", "an all-gather algorithm"},
      {"--coll allreduce --alg mock-allreduce", "an all-gather algorithm"},
      {"--coll allreduce --alg nosuch", "no algorithm"},
      {"--coll allreduce --counts ramp", "--counts"},
      {"--coll allreduce --overlap 1", "--overlap"},
      {"--coll allreduce --persistent", "--persistent"},
      {"--coll allreduce --also-chosen", "--also-chosen"},
      {"--coll allgather --alg ring,native", NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char buf[128], *argv[16] = {"pat-minibench"}, err[512] = "";
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", cases[k].args);
    for (char *t = strtok(buf, " "); t && argc < 15; t = strtok(NULL, " ")) argv[argc++] = t;
    static mb_opts o;
    int rc = mb_parse_options(argc, argv, &o, err, sizeof err);
    int ok = cases[k].says ? rc < 0 && strstr(err, cases[k].says) != NULL : rc == 0;
    printf("%s %s: %s\n", ok ? "ok  " : "FAIL", cases[k].args, rc < 0 ? err : "accepted");
    failures += !ok;
  }
  static mb_opts o;
  char err[512];
  char *ring[] = {"pat-minibench", "--coll", "allreduce", "--alg", "RING"};
  mb_parse_options(5, ring, &o, err, sizeof err);
  near(o.allreduce == 1 && o.alg_given && o.nalgs == 1 && strcmp(o.algs[0], "ring") == 0, 1, 0,
       "--coll allreduce --alg RING: the one algorithm, its canonical name");

  printf("%s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
