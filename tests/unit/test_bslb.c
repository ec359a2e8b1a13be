/* BSLB: valid for 10,000 random PAPs (P = 2..48) with several roots,
 * identical on every rank; the root receives one data message per step and
 * gathers in predicted-arrival order; its gather is background work. */
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
  for (int n = 0; n < NPAP; n++) {
    int P = 2 + n % 47;
    int64_t tau;
    const char *shape = pap_random(P, arrival, &tau);
    /* roots: 0, the last rank, the predicted latest and earliest, a random one */
    int latest = 0, earliest = 0;
    for (int r = 1; r < P; r++) {
      if (arrival[r] > arrival[latest]) latest = r;
      if (arrival[r] < arrival[earliest]) earliest = r;
    }
    const int roots[5] = {0, P - 1, latest, earliest, (int)pap_below(P)};
    int root = roots[n % 5];
    pat_build_args args = {P, PAT_ALL_RANKS, arrival, tau, root, 0, 0, NULL, NULL, NULL};
    pat_sched all;
    /* per-rank builds: two ranks of every PAP (the last arriver and a random
     * one), every rank of every 16th */
    int latest_rank = 0;
    for (int r = 1; r < P; r++)
      if (arrival[r] >= arrival[latest_rank]) latest_rank = r;
    int bad = sched_build_checked2(PAT_ALG_BSLB, args, rules, n % 16 == 0, latest_rank, (int)pap_below(P), &all, err,
                                   sizeof err);
    CHECK(!bad, "PAP %d (%s, P=%d, root %d): %s", n, shape, P, root, err);
    if (bad) continue;
    CHECK(all.flags & PAT_SCHED_PIECES, "BSLB must run on packed bytes");
    /* the order in which the root receives heads follows predicted arrival */
    size_t nr;
    const pat_op *ro = pat_sched_rank_ops(&all, root, &nr);
    int prev = -1, heads = 0;
    for (size_t i = 0; i < nr; i++) {
      const pat_op *op = &ro[i];
      if (op->kind == PAT_OP_SEND) { /* the root's first send is in the broadcast */
        CHECK(op->span[0].count == P - 1, "root sends a partial vector in step %d", op->step);
        break;
      }
      if (op->kind != PAT_OP_RECV || op->span[0].lo != 0) continue;
      int q = op->peer;
      CHECK(prev < 0 || arrival[prev] < arrival[q] || (arrival[prev] == arrival[q] && prev < q),
            "PAP %d: root takes %d before %d", n, prev, q);
      prev = q;
      heads++;
    }
    CHECK(heads == P - 1, "PAP %d: root got %d heads", n, heads);
    pat_sched_free(&all);
  }
  /* balanced, every root, P = 1..20 */
  for (int P = 1; P <= 20; P++)
    for (int root = 0; root < P; root++) {
      pat_build_args args = {P, PAT_ALL_RANKS, NULL, 1000, root, 0, 0, NULL, NULL, NULL};
      pat_sched all;
      int bad = sched_build_checked(PAT_ALG_BSLB, args, rules, 1, &all, err, sizeof err);
      CHECK(!bad, "balanced P=%d root %d: %s", P, root, err);
      if (!bad) {
        int bcast = 0;
        for (int d = 1; d < P; d *= 2) bcast++;
        CHECK(P < 2 || all.nsteps == 2 * (P - 1) + 1 + bcast, "P=%d: %d steps", P, all.nsteps);
        pat_sched_free(&all);
      }
    }
  pat_build_args bad_root = {4, PAT_ALL_RANKS, NULL, 1000, 4, 0, 0, NULL, NULL, NULL};
  pat_sched s;
  CHECK(pat_build(PAT_ALG_BSLB, &s, &bad_root) == PAT_EINVAL, "root out of range accepted");
  printf("BSLB: %d PAPs valid\n", NPAP);
  return TEST_RESULT();
}
