/*
 * RELAY: arrival-ordered scatter and relay (libpat), an arrival-aware
 * all-gather meant to run as a data flow (schedule.h, send_window > 0).
 *
 * Each block leaves its owner's send port once: the owner cuts it into k
 * pieces and sends piece p to one relay R(o, p); every relay sends its piece
 * to every rank but the owner and itself.  With k = P - 1 every other rank
 * is a relay of one piece of every block; so each rank sends (P - 1) block's
 * worth in all (its own block once, P - 2 pieces of each other block) and
 * receives (P - 1): the one-port optimum, like RING and DIRECT, but a block
 * needs only two hops whoever arrives when.
 *
 * Arrival-awareness is in the order only: blocks are taken in predicted
 * arrival order (earliest first), and a rank's ready sends are posted in
 * that order.  Who sends what does not depend on the prediction, so a
 * plan made from the call site's history (the previous call's pattern) is
 * as good as one made from PAT_Edge: relay is planned ahead
 * (PAT_ALGF_PLAN_AHEAD), as soon as the previous call ends, and a late
 * rank's background thread takes pieces in and relays them (relays need no
 * own data) while it computes, before the last rank's edge.  The last
 * arriver's block then leaves its port in one block time and the relays
 * spread it in another (P-2)/(P-1) block time.
 *
 * Pieces (below): at least PAT_RELAY_MIN_PIECE bytes, and at most
 * PAT_RELAY_MAX_PIECE, so that each one goes out as one eager message into a
 * receive posted ahead (at most PAT_RELAY_FINE_PIECE for blocks of
 * PAT_RELAY_FINE_BLOCK or more: the relays' tail after the last scatter is
 * (P - 2) / k of a block time, algorithms.h has the measurements):
 * k = block_bytes / PAT_RELAY_MIN_PIECE up to P - 1, then the smallest
 * multiple of P - 1 whose pieces fit pat_relay_piece_max(block_bytes)
 * (P - 1 when the block size is unknown); every relay then takes k / (P - 1)
 * pieces of each block.  But a rank sends k (P - 1) messages per call, and
 * at most pat_relay_max_sends(P): beyond, k is cut (to a multiple of P - 1 if
 * it is above), and the pieces grow past the eager limit.
 * k < 2 (a block under two pieces) degenerates to every owner sending its
 * whole block to every rank: DIRECT's traffic in arrival order, with
 * DIRECT's window.  So do predicted arrivals within 2 tau of each other
 * (nothing to spread early) when there are fewer pieces than relays (k <
 * P - 1: a small block, or the send budget binds).  With k >= P - 1,
 * balanced arrivals keep the pieces: whole blocks above the eager size are
 * rendezvous messages into receives posted ahead, slower than the pieces
 * and than DIRECT; where the budget binds, every rank sending all its pieces
 * at once overloads the cores more than whole blocks do (BENCHMARKS.md,
 * Imbalanced arrivals on the emulated cluster).
 * Blocks of different sizes (an all-gatherv's, block_sizes): each is cut at
 * least as finely as alone, and what the send budget leaves goes to the big
 * blocks (pat_relay_pieces_v), which get more pieces, not bigger ones.
 * Pieces by the mean block left the big block's pieces rendezvous-sized,
 * relayed last, at the end of the call; pieces of one size for all blocks,
 * where the budget binds, made the small blocks' pieces rendezvous too.  Cut
 * so, unequal blocks run as equal ones of the same total do
 * (BENCHMARKS.md, All-gatherv of unequal blocks).
 * Relays of a block are spread evenly over the ranks after the owner:
 * R(o, p) = o + 1 + floor(p (P - 1) / k) (mod P), so every rank relays k
 * pieces in all.
 *
 * Steps (what lockstep and the checker see; the data flow only uses them for
 * tags and order): with m_t = k_t / (P - 1) pieces per relay of the block at
 * arrival position t (1 when k_t <= P - 1) and b_t = 2 (m_0 + .. + m_{t-1}),
 * round j of that block (each relay's j-th piece) is scattered in step
 * b_t + j and relayed in step b_t + m_t + j (b_t = 2mt for equal blocks);
 * a relay sends to the ranks after it, cyclically, so the relays of one
 * piece do not all start on one receiver.  No pair exchanges two messages
 * in one step (two with one tag could match each other's receives when a
 * later piece comes in first).
 *
 * Cost (Hockney, block of m bytes, a network that overlaps a window's
 * messages): through each port (P - 1) beta m; k (P - 1) messages per rank,
 * W in flight; after the last arrival L, if the other blocks are everywhere
 * by then: 2 alpha + beta m (1 + (P - 2)/k) (L's scatter, then the relays),
 * against (P - 1)(alpha + beta m) for DIRECT's last block.  Balanced: the
 * same traffic per port as DIRECT's, plus one alpha.
 * In lockstep (send_window 0) its 2P steps serialise the relays: the window
 * is what it is built for.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

/* Sends in flight per rank with pieces: enough for every send a rank has
 * ready (its scatter and a relay of each other block, k (P - 1) at most at
 * P = 8), so that the network, not the window, shares the ports. */
#define RELAY_WINDOW 64

int pat_relay_max_sends(int P) {
  const int most = PAT_RELAY_CALL_SENDS / (P > 1 ? P : 1);
  if (most < PAT_RELAY_MAX_SENDS) return PAT_RELAY_MAX_SENDS;
  return most > PAT_RELAY_MAX_SENDS_SMALL_P ? PAT_RELAY_MAX_SENDS_SMALL_P : most;
}

int64_t pat_relay_piece_max(int64_t block_bytes) {
  return block_bytes >= PAT_RELAY_FINE_BLOCK ? PAT_RELAY_FINE_PIECE : PAT_RELAY_MAX_PIECE;
}

/* Pieces of a block of `bytes` whose pieces, above P - 1 of them, are at
 * most piece_max bytes: before any send budget. */
static int64_t pieces_at(int P, int64_t bytes, int64_t piece_max) {
  const int64_t k = bytes / PAT_RELAY_MIN_PIECE;
  if (k < 2) return 1;
  if (k <= P - 1) return k;
  const int64_t per_relay = (int64_t)(P - 1) * piece_max;
  return (int64_t)(P - 1) * (bytes / per_relay + (bytes % per_relay != 0));
}

/* Pieces of a block alone with pieces of at most piece_max, within the budget. */
static int pieces_alone(int P, int64_t block_bytes, int64_t piece_max) {
  if (P < 3) return 1;
  const int most = pat_relay_max_sends(P) / (P - 1); /* k (P - 1) sends per rank */
  if (most < 2) return 1;
  const int64_t k = block_bytes <= 0 ? P - 1 : pieces_at(P, block_bytes, piece_max);
  if (k <= most) return (int)k;
  return most >= P - 1 ? (P - 1) * (most / (P - 1)) : most;
}

int pat_relay_pieces(int P, int64_t block_bytes) {
  return pieces_alone(P, block_bytes, pat_relay_piece_max(block_bytes));
}

/* The most messages one rank sends with k[b] pieces of each block b: its
 * own block (k pieces, or P - 1 whole ones) and P - 2 for every piece it
 * relays, at most ceil(k / (P - 1)) of each other block. */
static int64_t most_sends(int P, const int64_t *k) {
  int64_t relayed = 0, most = 0;
  for (int b = 0; b < P; b++) relayed += k[b] > 1 ? (k[b] + P - 2) / (P - 1) : 0;
  for (int r = 0; r < P; r++) {
    const int64_t mine = k[r] > 1 ? (k[r] + P - 2) / (P - 1) : 0;
    const int64_t sends = (k[r] > 1 ? k[r] : P - 1) + (int64_t)(P - 2) * (relayed - mine);
    most = sends > most ? sends : most;
  }
  return most;
}

/* Each block at least as finely cut as alone (alone[b]), and into pieces
 * of at most its own piece size (pat_relay_piece_max) or, where that is
 * smaller, piece_max, above P - 1 of them. */
static void fill_pieces(int P, const int64_t *size, const int *alone, int64_t piece_max, int64_t *k) {
  for (int b = 0; b < P; b++) {
    const int64_t own = pat_relay_piece_max(size[b]);
    const int64_t fine = size[b] <= 0 ? 1 : pieces_at(P, size[b], own > piece_max ? own : piece_max);
    k[b] = fine > alone[b] ? fine : alone[b];
  }
}

int pat_relay_pieces_v(int P, const int64_t *size, int *pieces) {
  if (P < 3) {
    for (int b = 0; b < P; b++) pieces[b] = 1;
    return PAT_OK;
  }
  int64_t *k = malloc((size_t)P * sizeof *k), largest = 0;
  if (!k) return PAT_ENOMEM;
  for (int b = 0; b < P; b++) {
    largest = size[b] > largest ? size[b] : largest;
    /* alone in eager pieces: the floor of every search step (not the fine cut, which would leave
     * the budget's rest to a big block in pieces above the eager size) */
    pieces[b] = size[b] <= 0 ? 1 : pieces_alone(P, size[b], PAT_RELAY_MAX_PIECE);
  }
  /* the smallest piece size, from the finest up, whose pieces fit the budget: the big blocks
   * cut into more pieces, and the fine cut where the budget allows.  At hi every block has its
   * pieces alone: if even those are over the budget (they are within it for equal blocks), they
   * stay. */
  int64_t lo = PAT_RELAY_FINE_PIECE, hi = largest > lo ? largest : lo;
  const int budget = pat_relay_max_sends(P);
  fill_pieces(P, size, pieces, lo, k);
  if (most_sends(P, k) <= budget)
    hi = lo;
  while (hi - lo > 1) { /* most_sends(lo) over the budget, most_sends(hi) within (or the pieces alone) */
    const int64_t mid = lo + (hi - lo) / 2;
    fill_pieces(P, size, pieces, mid, k);
    if (most_sends(P, k) <= budget)
      hi = mid;
    else
      lo = mid;
  }
  fill_pieces(P, size, pieces, hi, k);
  for (int b = 0; b < P; b++) pieces[b] = (int)k[b];
  free(k);
  return PAT_OK;
}

int pat_relay_of(int P, int owner, int p, int k) { return (owner + 1 + (int)((int64_t)p * (P - 1) / k)) % P; }

pat_span pat_relay_piece(int P, int owner, int p, int k) {
  if (k == 1) return pat_blocks(P, owner, 1);
  return pat_piece(owner, (uint32_t)((uint64_t)p * PAT_FRAC_ONE / (uint64_t)k),
                   (uint32_t)((uint64_t)(p + 1) * PAT_FRAC_ONE / (uint64_t)k));
}

/* Pieces each relay takes of a block. */
static int per_relay(int P, int k) { return k > P - 1 ? k / (P - 1) : 1; }

/* The scatter and the relays of owner o's block in k pieces, from step
 * `base` (see Steps above).  Round-major: every relay gets its first piece
 * before any gets its second, so the relays start forwarding early. */
static int spread_block(pat_sched *s, int P, int o, int base, int k) {
  const int m = per_relay(P, k), relays = k / m;
  if (k == 1) { /* no relays: the owner sends the whole block to everyone, nearest first */
    for (int d = 1; d < P; d++) {
      pat_span sp = pat_relay_piece(P, o, 0, 1);
      if (pat_sched_transfer(s, base, o, (o + d) % P, 1, &sp, 0)) return PAT_ENOMEM;
    }
    return PAT_OK;
  }
  for (int j = 0; j < m; j++)
    for (int i = 0; i < relays; i++) {
      int p = i * m + j;
      pat_span sp = pat_relay_piece(P, o, p, k);
      if (pat_sched_transfer(s, base + j, o, pat_relay_of(P, o, p, k), 1, &sp, 0)) return PAT_ENOMEM;
    }
  for (int j = 0; j < m; j++)
    for (int i = 0; i < relays; i++) {
      int p = i * m + j, R = pat_relay_of(P, o, p, k);
      pat_span sp = pat_relay_piece(P, o, p, k);
      for (int d = 1; d < P; d++) {
        int x = (R + d) % P;
        if (x != o && pat_sched_transfer(s, base + m + j, R, x, 1, &sp, 0)) return PAT_ENOMEM;
      }
    }
  return PAT_OK;
}

int pat_allgather_relay(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  if (P < 2) return PAT_OK;
  int *order = malloc((size_t)P * sizeof *order), *k = malloc((size_t)P * sizeof *k);
  int rc = order && k ? pat_arrival_order(P, a->arrival, 0, order) : PAT_ENOMEM;
  if (rc == PAT_OK && a->block_sizes)
    rc = pat_relay_pieces_v(P, a->block_sizes, k);
  else if (rc == PAT_OK) {
    const int every = pat_relay_pieces(P, a->block_bytes);
    for (int b = 0; b < P; b++) k[b] = every;
  }
  const int near = pat_arrivals_near(a);
  int base = 0, pieces = 0;
  for (int t = 0; t < P && rc == PAT_OK; t++) {
    const int o = order[t], ko = k[o] < P - 1 && near ? 1 : k[o];
    rc = spread_block(s, P, o, base, ko);
    base += 2 * per_relay(P, ko);
    pieces |= ko > 1;
  }
  s->send_window = pieces ? RELAY_WINDOW : pat_direct_window(P);
  s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV | (pieces ? PAT_SCHED_PIECES : 0u);
  free(order);
  free(k);
  return rc;
}
