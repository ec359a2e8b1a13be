/*
 * HRING all-reduce: a two-level ring for ranks that share nodes (libpat),
 * the all-reduce beside the all-gather's HRING, in the spirit of Open MPI's
 * HAN: reduce inside the node, between nodes, and hand out inside the node.
 *
 * H nodes of k ranks each (members in rank order, wherever the ranks are
 * placed: by slot or round robin); the vector's P = k H segments make k
 * chunks of H consecutive segments, and member i of every node owns chunk i.
 * Three phases, lockstep:
 *   1. inside each node a ring reduce-scatter of the chunks (k - 1 steps):
 *      chunk i is complete, for its node, at member i;
 *   2. between nodes, member i of every node runs a ring all-reduce of
 *      chunk i with the member i of the others (its H segments its ring's
 *      segments: 2 (H - 1) steps);
 *   3. inside each node a ring all-gather of the chunks (k - 1 steps).
 * Nodes of unequal sizes: the ring over all P ranks (allreduce_ring.c).
 * Every rank receives each segment's result from the one rank that
 * combined it, so all hold the same bits.  The rings wrap past the last
 * rank: the op must be commutative.
 *
 * Cost (Hockney, vector of m bytes, H nodes of k ranks, inter-node
 * (alpha, beta), intra-node (alpha_s, beta_s)):
 *   2 (k - 1) (alpha_s + beta_s m / k) + 2 (H - 1) (alpha + beta m / (k H))
 *   + (k - 1) / k m gamma_s + (H - 1) / (k H) m gamma,
 * and a node's link carries the k rings' 2 (H - 1) / H m each way, where a
 * ring over all P ranks carries 2 (P - 1) / P m a rank, k times that a node
 * when the ranks of a node are not neighbours on the ring (placed round
 * robin).  With one rank a node it is a ring over P ranks in pieces.
 */
#include "algorithms/allreduce.h"

static int member(const pat_nodes *n, int h, int i) { return n->member[n->start[h] + i]; }

/* Node h's ring over its k members, of chunks of H segments, from step `step`:
 * the reduce-scatter (chunk i complete at member i) or the all-gather. */
static int node_ring(pat_sched *s, const pat_nodes *n, int h, int k, int step, int reduce) {
  const int P = n->P, H = n->H;
  for (int t = 0; t < k - 1; t++)
    for (int j = 0; j < k; j++) {
      int from = member(n, h, j), to = member(n, h, (j + 1) % k);
      int c = ((j - t - (reduce ? 1 : 0)) % k + k) % k;
      pat_span sp = pat_blocks(P, c * H, H);
      int rc = reduce ? pat_sched_reduce(s, step + t, from, to, 1, &sp, 0)
                      : pat_sched_transfer(s, step + t, from, to, 1, &sp, 0);
      if (rc) return rc;
    }
  return PAT_OK;
}

/* Member i's ring between the H nodes, of chunk i, from step `step`. */
static int chunk_ring(pat_sched *s, const pat_nodes *n, int i, int step) {
  const int P = n->P, H = n->H;
  for (int t = 0; t < H - 1; t++)
    for (int h = 0; h < H; h++) {
      int from = member(n, h, i), to = member(n, (h + 1) % H, i);
      pat_span rs = pat_blocks(P, i * H + ((h - t - 1) % H + H) % H, 1), ag = pat_blocks(P, i * H + ((h - t) % H + H) % H, 1);
      if (pat_sched_reduce(s, step + t, from, to, 1, &rs, 0) ||
          pat_sched_transfer(s, step + H - 1 + t, from, to, 1, &ag, 0))
        return PAT_ENOMEM;
    }
  return PAT_OK;
}

int pat_allreduce_hring(pat_sched *s, const pat_build_args *a) {
  if (a->P < 2) return PAT_OK;
  pat_nodes own;
  const pat_nodes *n = pat_nodes_of(a, &own);
  if (!n) return PAT_ENOMEM;
  const int H = n->H, k = a->P / H;
  int equal = 1, rc = PAT_OK;
  for (int h = 0; h < H; h++) equal &= pat_nodes_size(n, h) == k;
  if (!equal) {
    rc = pat_allreduce_ring(s, a);
  } else {
    for (int h = 0; h < H && rc == PAT_OK; h++) rc = node_ring(s, n, h, k, 0, 1);
    for (int i = 0; i < k && rc == PAT_OK; i++) rc = chunk_ring(s, n, i, k - 1);
    for (int h = 0; h < H && rc == PAT_OK; h++) rc = node_ring(s, n, h, k, k - 1 + 2 * (H - 1), 0);
  }
  pat_nodes_free(&own);
  return rc;
}
