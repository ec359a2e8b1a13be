/* BDR: valid for 10,000 random PAPs (P = 2..48), identical on every rank,
 * never longer than ring + max pre-steps, plain RING when balanced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "paputil.h"
#include "schedtest.h"
#include "testutil.h"

int main(void) {
  enum { NPAP = 10000 };
  int64_t arrival[64];
  char err[256];
  const unsigned rules = PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND;
  int maxsteps_seen = 0;
  for (int n = 0; n < NPAP; n++) {
    int P = 2 + n % 47;
    int64_t tau;
    const char *shape = pap_random(P, arrival, &tau);
    pat_build_args args = {P, PAT_ALL_RANKS, arrival, tau, 0, 0, 0, NULL, NULL, NULL};
    pat_sched all;
    /* per-rank slices on every 4th PAP keep the test quick; the rest get the full check */
    /* per-rank builds: two ranks of every PAP (the last arriver and a random
     * one), every rank of every 16th */
    int latest_rank = 0;
    for (int r = 1; r < P; r++)
      if (arrival[r] >= arrival[latest_rank]) latest_rank = r;
    int bad = sched_build_checked2(PAT_ALG_BDR, args, rules, n % 16 == 0, latest_rank, (int)pap_below(P), &all, err,
                                   sizeof err);
    CHECK(!bad, "PAP %d (%s, P=%d): %s", n, shape, P, err);
    if (bad) continue;
    int64_t amax = arrival[0], amin = arrival[0];
    for (int r = 1; r < P; r++) {
      if (arrival[r] > amax) amax = arrival[r];
      if (arrival[r] < amin) amin = arrival[r];
    }
    int64_t S = (amax - amin) / tau;
    CHECK(all.nsteps <= (P - 1) + S, "PAP %d (%s, P=%d): %d steps > ring %d + pre-steps %lld", n, shape, P,
          all.nsteps, P - 1, (long long)S);
    /* no empty steps; pre-steps first */
    int *used = calloc((size_t)all.nsteps + 1, sizeof *used), lastpre = -1, firstring = all.nsteps;
    for (size_t i = 0; i < all.nops; i++) {
      used[all.ops[i].step] = 1;
      if (all.ops[i].flags & PAT_OPF_PRESTEP) {
        if (all.ops[i].step > lastpre) lastpre = all.ops[i].step;
      } else if (all.ops[i].step < firstring) {
        firstring = all.ops[i].step;
      }
    }
    for (int t = 0; t < all.nsteps; t++) CHECK(used[t], "PAP %d (%s, P=%d): step %d empty", n, shape, P, t);
    CHECK(lastpre < firstring, "PAP %d: pre-steps and ring interleave", n);
    free(used);
    if (all.nsteps > maxsteps_seen) maxsteps_seen = all.nsteps;
    pat_sched_free(&all);
  }

  /* balanced (NULL arrival, or all equal) is exactly RING */
  for (int P = 1; P <= 33; P += 4) {
    for (int v = 0; v < 2; v++) {
      for (int r = 0; r < P; r++) arrival[r] = 12345;
      pat_build_args args = {P, PAT_ALL_RANKS, v ? arrival : NULL, 1000, 0, 0, 0, NULL, NULL, NULL};
      pat_sched b, ring;
      CHECK(pat_build(PAT_ALG_BDR, &b, &args) == PAT_OK && pat_build(PAT_ALG_RING, &ring, &args) == PAT_OK, "build");
      CHECK(b.nops == ring.nops && (b.nops == 0 || memcmp(b.ops, ring.ops, b.nops * sizeof *b.ops) == 0),
            "P=%d: balanced BDR is not RING", P);
      pat_sched_free(&b);
      pat_sched_free(&ring);
    }
  }
  printf("BDR: %d PAPs valid (largest schedule %d steps)\n", NPAP, maxsteps_seen);
  return TEST_RESULT();
}
