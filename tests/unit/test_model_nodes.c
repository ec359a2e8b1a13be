/* Nodes in the cost model, on hand-computed cases (alpha = 1, beta = 0.5,
 * blocks of 2 bytes: a block alone costs 1 + 1):
 *  - shared links: two ranks of node 0 each send a block to a rank of node
 *    1 at once; with a port per rank both end at 2, with the node's link
 *    shared (shared_links) they move at half rate and end at 3; a transfer
 *    inside a node keeps its ranks' own ports;
 *  - the two-level bound: 2 x 2 ranks, balanced: each node takes in the
 *    other node's 2 blocks, e_lb = 2 tau (the flat bound says 3 tau); with
 *    one rank per node it is the flat bound; rank 3 (node 1) late at 5:
 *    node 0 takes in block 2 by 1 and block 3 by 5 + 1 = 6, node 1 takes in
 *    blocks 0 and 1 by 2, so e = 6, 6, 2, max(0, 2 - 5) = 0;
 *  - the all-reduce's bound: the last vector from another node, P tau
 *    after its owner's arrival;
 *  - the selection weighs HRING and HRELAY only where the map is
 *    hierarchical. */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "model/select.h"
#include "testutil.h"

static double replay_two_sends(int shared, int inside) {
  pat_sched s;
  pat_sched_init(&s, 4, PAT_ALL_RANKS);
  s.send_window = 4; /* a data flow: both sends at once */
  s.flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV;
  pat_span b0 = pat_blocks(4, 0, 1), b1 = pat_blocks(4, 1, 1);
  pat_sched_transfer(&s, 0, 0, inside ? 1 : 2, 1, &b0, 0);
  pat_sched_transfer(&s, 1, 1, inside ? 0 : 3, 1, &b1, 0);
  pat_sched_finalize(&s);
  pat_model_params mp;
  pat_model_params_init(&mp, 1.0, 0.5);
  const int node[4] = {10, 10, 20, 20};
  mp.node = node;
  mp.shared_links = shared;
  double a[4] = {0, 0, 0, 0}, f[4];
  pat_model_result res = {0};
  res.f = f;
  int rc = pat_model_replay(&s, a, &mp, 2.0, &res);
  pat_sched_free(&s);
  return rc == PAT_OK ? res.r : NAN;
}

int main(void) {
  CHECK(replay_two_sends(0, 0) == 2.0, "a port per rank: both end at 2, not %g", replay_two_sends(0, 0));
  CHECK(replay_two_sends(1, 0) == 3.0, "one link per node: both end at 3, not %g", replay_two_sends(1, 0));
  CHECK(replay_two_sends(1, 1) == 2.0, "inside a node: the ranks' own ports, end at 2, not %g",
        replay_two_sends(1, 1));

  const int two[4] = {0, 0, 1, 1}, alone[4] = {0, 1, 2, 3};
  double a[4] = {0, 0, 0, 0}, e[4];
  CHECK(pat_lower_bound_nodes(4, a, 1.0, two, NULL) == 2.0, "2 x 2 balanced: e_lb 2");
  CHECK(pat_lower_bound_nodes(4, a, 1.0, alone, NULL) == pat_lower_bound(4, a, 1.0, NULL), "one rank a node: flat");
  CHECK(pat_lower_bound_nodes(4, a, 1.0, NULL, NULL) == 3.0, "no map: flat, 3");
  a[3] = 5;
  double mean = pat_lower_bound_nodes(4, a, 1.0, two, e);
  CHECK(e[0] == 6 && e[1] == 6 && e[2] == 2 && e[3] == 0, "late rank: e = %g %g %g %g", e[0], e[1], e[2], e[3]);
  CHECK(mean == 14.0 / 4, "late rank: mean %g", mean);

  /* the all-reduce's bound: the last vector from another node, P tau after its arrival (a[3] = 5):
   * ranks 0, 1 wait for rank 3's (5 + 4 - 0 = 9), rank 2 for rank 1's (0 + 4), rank 3 for 0's
   * (max(0, 4 - 5)); flat (no map), rank 2 waits for rank 3's too */
  mean = pat_lower_bound_allreduce(4, a, 1.0, two, e);
  CHECK(e[0] == 9 && e[1] == 9 && e[2] == 4 && e[3] == 0, "all-reduce: e = %g %g %g %g", e[0], e[1], e[2], e[3]);
  CHECK(mean == 22.0 / 4, "all-reduce: mean %g", mean);
  pat_lower_bound_allreduce(4, a, 1.0, NULL, e);
  CHECK(e[2] == 9 && e[3] == 0, "all-reduce, flat: e2 = %g, e3 = %g", e[2], e[3]);

  /* the selection: HRING and HRELAY only where the map is hierarchical */
  pat_model_params mp;
  pat_model_params_init(&mp, 1e-4, 1.6e-8);
  const int node8[8] = {0, 0, 1, 1, 2, 2, 3, 3};
  int64_t arr[8] = {0};
  for (int hier = 0; hier < 2; hier++) {
    mp.node = node8;
    mp.shared_links = hier;
    pat_select_in in = {.P = 8, .arrival_ns = arr, .block_bytes = 1 << 20, .mp = &mp, .hierarchical = hier};
    pat_select_out out;
    pat_select_cache c;
    pat_select_cache_init(&c);
    CHECK(pat_select(&c, &in, &out) == PAT_OK, "select");
    CHECK((out.ebar_ns[PAT_ALG_HRELAY] != INT64_MAX) == hier, "hrelay predicted: %d, hierarchical %d",
          out.ebar_ns[PAT_ALG_HRELAY] != INT64_MAX, hier);
    CHECK((out.ebar_ns[PAT_ALG_HRING] != INT64_MAX) == hier, "hring predicted only where hierarchical");
    if (hier) CHECK(pat_algorithms[out.alg].flags & PAT_ALGF_NODES, "2 ranks a node, shared links: a node algorithm "
                                                                   "wins, not %s", pat_algorithms[out.alg].name);
    pat_select_cache_free(&c);
  }
  return TEST_RESULT();
}
