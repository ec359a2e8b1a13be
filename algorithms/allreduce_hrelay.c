/*
 * HRELAY all-reduce (libpat): for ranks that share nodes, one of them late.
 * Reduce inside each node first, RELAY between the nodes, hand out inside
 * each node: HRING with its ring between the nodes replaced by RELAY's
 * owners, meant to run as a data flow (send_window > 0, exec/flow.c).
 *
 * H nodes of k ranks (HRING's chunks and extras, allreduce_nodes.c): after
 * the reduce-scatter inside the nodes, member i of every node holds its
 * node's sum of chunk i.  The node of the predicted last rank (the late
 * node) owns nothing; chunk i is cut into H - 1 shares, one for member i of
 * each other node (an owner), each share into q pieces.  Piece j of every
 * share is reduced in step j (member i of every other node sends its sum of
 * it to the owner) and spread in step q + j (the owner sends the result to
 * member i of every other node); then the all-gather inside the nodes.  In
 * data flow the other nodes reduce their shares among themselves while the
 * late rank computes; once it arrives its node combines its chunks in
 * shared memory and sends them, a node's link carrying m out and m of
 * results in: about beta m after the last arrival, where HRING's ring
 * between the nodes starts then and carries 2 (H - 1) / H m.
 *
 * Every rank gets each byte's result from the one rank that combined it, so
 * all hold the same bits; who combines what follows the late node, and the
 * rings wrap: the op must be commutative.
 *
 * Cost (Hockney, vector of m bytes, H nodes of k ranks, inter-node
 * (alpha, beta), intra-node (alpha_s, beta_s), balanced):
 *   2 (k - 1) (alpha_s + beta_s m / k) + 2 q alpha
 *   + an owner node's link: (H - 2) / (H - 1) m of sums and m of results,
 *     (2H - 3) / (H - 1) beta m (1.67 at H = 4, HRING's 1.5),
 *   + (k - 1) / k m gamma_s + m / (k (H - 1)) gamma;
 * after a late rank: about beta m + 2 beta_s m / k.  One node: HRING's
 * rings inside it.
 */
#include <stdint.h>

#include "algorithms/allreduce.h"

/* Pieces of a share (1 where the size is unknown). */
static int pieces(const pat_build_args *a, int chunk_segments, int H) {
  if (a->block_bytes <= 0 || H < 2) return 1;
  return pat_allreduce_pieces(a->block_bytes * chunk_segments / (H - 1));
}

/* The bytes [x0, x1) of segments first.. (PAT_FRAC_ONE units a segment) as
 * ops of at most PAT_MAX_SPANS spans each: reduced into `to`, or copied. */
static int send_range(pat_sched *s, int step, int from, int to, int reduce, int first, uint64_t x0, uint64_t x1) {
  const uint64_t one = PAT_FRAC_ONE;
  pat_span sp[PAT_MAX_SPANS];
  int n = 0;
  while (x0 < x1) {
    uint64_t seg = x0 / one, off = x0 % one;
    if (off || x1 - x0 < one) {
      uint64_t end = x1 < (seg + 1) * one ? x1 : (seg + 1) * one;
      sp[n++] = pat_piece(first + (int)seg, (uint32_t)off, (uint32_t)(end - seg * one));
      x0 = end;
    } else {
      uint64_t whole = (x1 - x0) / one;
      sp[n++] = pat_blocks(s->P, first + (int)seg, (int)whole);
      x0 += whole * one;
    }
    if (n == PAT_MAX_SPANS || x0 >= x1) {
      int rc = reduce ? pat_sched_reduce(s, step, from, to, n, sp, 0) : pat_sched_transfer(s, step, from, to, n, sp, 0);
      if (rc) return rc;
      n = 0;
    }
  }
  return PAT_OK;
}

/* Does any share's piece end inside a segment (of any chunk)?  The same
 * answer on every rank, whichever ops its build keeps. */
static int cut_inside(const pat_nodes *n, int k, int q) {
  const uint64_t parts = (uint64_t)(n->H - 1) * (uint64_t)q;
  for (int i = 0; i < k; i++) {
    const uint64_t bytes = (uint64_t)pat_allreduce_chunk_part(n->P, k, i, 1, 0).count * PAT_FRAC_ONE;
    for (uint64_t at = 1; at < parts; at++)
      if (bytes * at / parts % PAT_FRAC_ONE) return 1;
  }
  return 0;
}

/* Member i's RELAY between the nodes, of chunk i, from step `step`: q steps
 * of sums into the owners, q of results from them. */
static int chunk_relay(pat_sched *s, const pat_nodes *n, int k, int i, int late_node, int q, int step) {
  const int H = n->H;
  const pat_span chunk = pat_allreduce_chunk_part(n->P, k, i, 1, 0);
  const uint64_t bytes = (uint64_t)chunk.count * PAT_FRAC_ONE, parts = (uint64_t)(H - 1) * (uint64_t)q;
  for (int j = 0; j < q; j++)
    for (int h = 0, v = 0; h < H; h++) {
      if (h == late_node) continue;
      const uint64_t at = (uint64_t)v++ * (uint64_t)q + (uint64_t)j;
      const uint64_t x0 = bytes * at / parts, x1 = bytes * (at + 1) / parts;
      const int owner = pat_node_member(n, h, i);
      for (int g = 0; g < H; g++) {
        int from = pat_node_member(n, g, i), rc;
        if (g == h || (!pat_sched_keeps(s, from) && !pat_sched_keeps(s, owner))) continue;
        if ((rc = send_range(s, step + j, from, owner, 1, chunk.first, x0, x1))) return rc;
      }
      for (int d = 1; d < H; d++) { /* from the node after the owner's on */
        int to = pat_node_member(n, (h + d) % H, i), rc;
        if (!pat_sched_keeps(s, to) && !pat_sched_keeps(s, owner)) continue;
        if ((rc = send_range(s, step + q + j, owner, to, 0, chunk.first, x0, x1))) return rc;
      }
    }
  return PAT_OK;
}

int pat_allreduce_hrelay(pat_sched *s, const pat_build_args *a) {
  s->send_window = a->P > 1 ? a->P - 1 : 1; /* a message to every owner in flight */
  if (a->P < 2) return PAT_OK;
  pat_nodes own;
  const pat_nodes *n = pat_nodes_of(a, &own);
  if (!n) return PAT_ENOMEM;
  const int H = n->H, late_node = n->of[pat_allreduce_late_rank(a)];
  int k, rc = PAT_OK;
  const int E = pat_allreduce_node_shape(n, &k);
  const int q = pieces(a, pat_allreduce_chunk_part(n->P, k, 0, 1, 0).count, H);
  const int ring = E, between = ring + k - 1, gather = between + (H > 1 ? 2 * q : 0), back = gather + k - 1;
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_extras(s, n, h, k, 0, 1);
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_ring(s, n, h, k, ring, 1);
  for (int i = 0; i < k && rc == PAT_OK && H > 1; i++) rc = chunk_relay(s, n, k, i, late_node, q, between);
  if (H > 1 && cut_inside(n, k, q)) s->flags |= PAT_SCHED_PIECES; /* on every rank, even one without a piece op */
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_ring(s, n, h, k, gather, 0);
  for (int h = 0; h < H && rc == PAT_OK; h++) rc = pat_allreduce_node_extras(s, n, h, k, back, 0);
  pat_nodes_free(&own);
  return rc;
}
