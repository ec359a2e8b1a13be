/*
 * HRELAY: RELAY between nodes, for ranks that share nodes (libpat), run as
 * a data flow (schedule.h, send_window > 0).
 *
 * A block is handed to the other ranks of its node as soon as its owner
 * arrives (shared memory), and leaves the node once: the owner cuts it into
 * k pieces and sends piece p to its relay node R(n, p) (the nodes after the
 * owner's node n, spread evenly, as RELAY spreads relays over ranks), into
 * that node's port for the piece (pat_nodes_port: ports rotate with block
 * and piece, so every rank of a node carries a share of its node's
 * traffic).  The relay port sends the piece to the port of every other node
 * but the owner's, and each port hands what it took in to the other ranks
 * of its node.  So a node's blocks leave as soon as each is there, not when
 * its last rank arrives, and a late node's block is scattered over the
 * other nodes and relayed, as RELAY does at rank level: through each node's
 * link go about (P - k_n) blocks in and, with equal nodes, as many out.
 *
 * Arrival-awareness is in the order only (blocks taken in predicted arrival
 * order), as RELAY's: planned ahead from the call site's history.
 *
 * Pieces: RELAY's cut of the block for H - 1 relays (pat_relay_pieces(H,
 * m)), within RELAY's send budget per rank (pat_relay_max_sends(P)): a rank
 * sends about k (H - 1) kp + (k - 1) messages for kp pieces a block and k
 * ranks a node, its hand-outs included.  Fewer than two pieces, or
 * arrivals within two block times with fewer pieces than relay nodes: the
 * owner sends the whole block to every other node's port (DIRECT at node
 * level).
 *
 * Cost (Hockney, block of m bytes, k ranks per node, inter-node (alpha,
 * beta), intra-node (alpha_s, beta_s)): after the last arrival L, if the
 * other blocks are everywhere by then, 2 alpha + beta m (1 + (H - 2)/kp)
 * (L's scatter, then the relays) plus a piece's hand-out, (k - 1)(alpha_s +
 * beta_s m / kp); balanced, each node's link carries (H - 1) k blocks' worth.
 *
 * Steps (tags and order only): the block at arrival position t starts at
 * S_t (S_0 = 0); S_t holds its node-local sends; with q the round-major
 * position of piece p (every relay node gets its first piece before any
 * its second), the scatter of p is step S_t + 1 + q, its relays S_t + 1 +
 * kp + q and its hand-outs S_t + 1 + 2 kp + q; S_{t+1} = S_t + 1 + 3 kp.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

#define HRELAY_WINDOW 64

/* `from` hands span sp to every rank of node h but itself. */
static int hand_out(pat_sched *s, const pat_nodes *n, int h, int from, pat_span sp, int step) {
  for (int i = n->start[h]; i < n->start[h + 1]; i++) {
    const int to = n->member[i];
    if (to != from && pat_sched_transfer(s, step, from, to, 1, &sp, 0)) return PAT_ENOMEM;
  }
  return PAT_OK;
}

/* Pieces of a block of `bytes` over H nodes, within the per-rank send budget (see above). */
int pat_hrelay_pieces(const pat_nodes *n, int64_t bytes, int near) {
  int kp = pat_hrelay_pieces_budget(n, bytes);
  return kp < n->H - 1 && near ? 1 : kp;
}

int pat_hrelay_pieces_budget(const pat_nodes *n, int64_t bytes) {
  const int H = n->H;
  if (H < 3) return 1;
  int kp = pat_relay_pieces(H, bytes), k = 1;
  for (int h = 0; h < H; h++) k = pat_nodes_size(n, h) > k ? pat_nodes_size(n, h) : k;
  const int64_t room = (int64_t)pat_relay_max_sends(n->P) - (k - 1), per_piece = (int64_t)k * (H - 1);
  const int64_t most = room > per_piece ? room / per_piece : 1;
  if (kp > most) kp = most >= H - 1 ? (H - 1) * (int)(most / (H - 1)) : (int)most;
  return kp < 2 ? 1 : kp;
}

/* Block b of node g in kp pieces from step S (see Steps above). */
static int spread_block(pat_sched *s, const pat_nodes *n, int b, int S, int kp) {
  const int P = n->P, H = n->H, g = n->of[b];
  int rc = hand_out(s, n, g, b, pat_blocks(P, b, 1), S);
  if (rc || H < 2) return rc;
  if (kp == 1) { /* the whole block to every other node, nearest first */
    for (int d = 1; d < H && rc == PAT_OK; d++) {
      const int h = (g + d) % H, port = pat_nodes_port(n, h, b, 0, 1);
      pat_span sp = pat_blocks(P, b, 1);
      rc = pat_sched_transfer(s, S + 1, b, port, 1, &sp, 0);
      if (rc == PAT_OK) rc = hand_out(s, n, h, port, sp, S + 2);
    }
    return rc;
  }
  const int m = kp > H - 1 ? kp / (H - 1) : 1, relays = kp / m;
  for (int j = 0, q = 0; j < m; j++)
    for (int i = 0; i < relays && rc == PAT_OK; i++, q++) {
      const int p = i * m + j, R = pat_relay_of(H, g, p, kp); /* RELAY's relays, over nodes */
      const int port = pat_nodes_port(n, R, b, p, kp);
      const pat_span sp = pat_relay_piece(P, b, p, kp);
      rc = pat_sched_transfer(s, S + 1 + q, b, port, 1, &sp, 0);
      for (int d = 1; d < H && rc == PAT_OK; d++) {
        const int h = (R + d) % H;
        if (h == g) continue;
        const int to = pat_nodes_port(n, h, b, p, kp);
        rc = pat_sched_transfer(s, S + 1 + kp + q, port, to, 1, &sp, 0);
        if (rc == PAT_OK) rc = hand_out(s, n, h, to, sp, S + 1 + 2 * kp + q);
      }
      if (rc == PAT_OK) rc = hand_out(s, n, R, port, sp, S + 1 + 2 * kp + q);
    }
  return rc;
}

int pat_allgather_hrelay(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  s->send_window = HRELAY_WINDOW;
  if (P < 2) return PAT_OK;
  pat_nodes own;
  int *order = malloc((size_t)P * sizeof *order);
  const pat_nodes *np = order ? pat_nodes_of(a, &own) : NULL;
  if (!np) {
    free(order);
    return PAT_ENOMEM;
  }
  const pat_nodes n = *np;
  int rc = pat_arrival_order(P, a->arrival, 0, order);
  const int near = pat_arrivals_near(a);
  int S = 0, pieces = 0;
  for (int t = 0; t < P && rc == PAT_OK; t++) {
    const int b = order[t];
    const int64_t bytes = a->block_sizes ? a->block_sizes[b] : a->block_bytes;
    const int kp = pat_hrelay_pieces(&n, bytes, near);
    rc = spread_block(s, &n, b, S, kp);
    S += 1 + 3 * kp;
    pieces |= kp > 1;
  }
  s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV | (pieces ? PAT_SCHED_PIECES : 0u);
  pat_nodes_free(&own);
  free(order);
  return rc;
}
