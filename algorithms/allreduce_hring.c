/*
 * HRING all-reduce: a two-level ring for ranks that share nodes (libpat),
 * the all-reduce beside the all-gather's HRING, in the spirit of Open MPI's
 * HAN: reduce inside the node, between nodes, and hand out inside the node.
 *
 * H nodes of k ranks each (members in rank order, wherever the ranks are
 * placed: by slot or round robin); the vector's P segments make k chunks
 * of P / k consecutive segments (H of them where every node has k ranks),
 * each cut in H parts, and member i of every node owns chunk i.  Three
 * phases, lockstep:
 *   1. inside each node a ring reduce-scatter of the chunks (k - 1 steps):
 *      chunk i is complete, for its node, at member i;
 *   2. between nodes, member i of every node runs a ring all-reduce of
 *      chunk i with the member i of the others (its H parts its ring's
 *      segments: 2 (H - 1) steps);
 *   3. inside each node a ring all-gather of the chunks (k - 1 steps).
 * Nodes of unequal sizes: k is the smallest node's, and a node's members
 * past the first k (its extras) first add their whole vector into member
 * (position mod k), one extra a member per step (E steps, E the most
 * extras a member of any node takes), and get the whole result back from
 * it at the end (E steps more).  Every rank receives each segment's result
 * from the one rank that combined it, or from its member, so all hold the
 * same bits.  The rings wrap past the last rank: the op must be
 * commutative.
 *
 * Cost (Hockney, vector of m bytes, H nodes of k ranks, inter-node
 * (alpha, beta), intra-node (alpha_s, beta_s)):
 *   2 (k - 1) (alpha_s + beta_s m / k) + 2 (H - 1) (alpha + beta m / (k H))
 *   + (k - 1) / k m gamma_s + (H - 1) / (k H) m gamma,
 * and a node's link carries the k rings' 2 (H - 1) / H m each way, where a
 * ring over all P ranks carries 2 (P - 1) / P m a rank, k times that a node
 * when the ranks of a node are not neighbours on the ring (placed round
 * robin).  With one rank a node it is a ring over P ranks in pieces.
 * Unequal nodes add 2 E (alpha_s + beta_s m) + E m gamma_s.
 */
#include "algorithms/allreduce.h"

/* Member i's ring between the H nodes, of chunk i's H parts, from step `step`. */
static int chunk_ring(pat_sched *s, const pat_nodes *n, int k, int i, int step) {
  const int P = n->P, H = n->H;
  for (int t = 0; t < H - 1; t++)
    for (int h = 0; h < H; h++) {
      int from = pat_node_member(n, h, i), to = pat_node_member(n, (h + 1) % H, i);
      pat_span rs = pat_allreduce_chunk_part(P, k, i, H, ((h - t - 1) % H + H) % H),
               ag = pat_allreduce_chunk_part(P, k, i, H, ((h - t) % H + H) % H);
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
  const int H = n->H;
  int k, rc = PAT_OK;
  const int E = pat_allreduce_node_shape(n, &k); /* steps of the extras, each way */
  const int ring = E, chunks = ring + k - 1, gather = chunks + 2 * (H - 1), back = gather + k - 1;
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_extras(s, n, h, k, 0, 1);
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_ring(s, n, h, k, ring, 1);
  for (int i = 0; i < k && rc == PAT_OK; i++) rc = chunk_ring(s, n, k, i, chunks);
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_ring(s, n, h, k, gather, 0);
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_extras(s, n, h, k, back, 0);
  pat_nodes_free(&own);
  return rc;
}
