/*
 * HRING: a two-level all-gather for ranks that share nodes (libpat), run as
 * a data flow (schedule.h, send_window > 0); the balanced candidate beside
 * HRELAY, in the spirit of Open MPI's HAN but without a node leader.
 *
 * Every rank sends its block to each rank of its node (shared memory).
 * Between nodes the blocks travel a ring of the H nodes, one whole block
 * per message: block b of node g enters node g + d (d = 1 .. H - 1) through
 * that node's port for b (pat_nodes_port: ports rotate with the block, so
 * every rank of a node carries a share of its node's inter-node traffic),
 * which hands it to the other ranks of its node and, unless d = H - 1,
 * forwards it to the next node's port.  A block moves on as soon as it is
 * held: the ring is pipelined block by block, not node by node.
 *
 * Node n's link carries (P - k_n) blocks in and, on a ring of equal nodes,
 * as many out: the one-port optimum at node level; a rank's own block
 * leaves its node once.  Every byte crosses shared memory k - 1 times in
 * each node, once per rank.
 *
 * Cost (Hockney, block of m bytes, k ranks per node, inter-node (alpha,
 * beta), intra-node (alpha_s, beta_s), a window that overlaps the node's
 * messages): about (H - 1)(alpha + k beta m) through the ring (k blocks
 * per hop share the node's link) plus the last block's (k - 1)(alpha_s +
 * beta_s m) hand-out; every rank of a node sends about (H - 1) + k - 1
 * blocks' worth.
 *
 * Steps (tags and order only): step 0 holds the node-local sends; hop d of
 * block b is step 1 + 2 P (d - 1) + b and its hand-out in node g + d step
 * 1 + 2 P (d - 1) + P + b, so no pair meets twice in a step.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

/* Sends in flight per rank: a node's first ring hop (its k blocks) and the
 * hand-outs of what came in, as RELAY's window. */
#define HRING_WINDOW 64

/* Rank `from` hands block b (whole) to every rank of node h but itself. */
static int hand_out(pat_sched *s, const pat_nodes *n, int h, int from, int b, int step) {
  pat_span sp = pat_blocks(n->P, b, 1);
  for (int i = n->start[h]; i < n->start[h + 1]; i++) {
    const int to = n->member[i];
    if (to != from && pat_sched_transfer(s, step, from, to, 1, &sp, 0)) return PAT_ENOMEM;
  }
  return PAT_OK;
}

int pat_allgather_hring(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  s->send_window = HRING_WINDOW;
  if (P < 2) return PAT_OK;
  pat_nodes n;
  int rc = pat_nodes_make(P, a->node, &n);
  for (int b = 0; b < P && rc == PAT_OK; b++) rc = hand_out(s, &n, n.of[b], b, b, 0);
  for (int b = 0; b < P && rc == PAT_OK; b++) {
    const int g = n.of[b];
    int holder = b; /* the rank of the previous node that holds b */
    for (int d = 1; d < n.H && rc == PAT_OK; d++) {
      const int h = (g + d) % n.H, port = pat_nodes_port(&n, h, b, 0);
      const int step = 1 + 2 * P * (d - 1) + b;
      pat_span sp = pat_blocks(P, b, 1);
      rc = pat_sched_transfer(s, step, holder, port, 1, &sp, 0);
      if (rc == PAT_OK) rc = hand_out(s, &n, h, port, b, step + P);
      holder = port;
    }
  }
  s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV;
  pat_nodes_free(&n);
  return rc;
}
