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
 * receive posted ahead: k = block_bytes / PAT_RELAY_MIN_PIECE up to P - 1,
 * then the smallest multiple of P - 1 whose pieces fit PAT_RELAY_MAX_PIECE
 * (P - 1 when the block size is unknown); every relay then takes k / (P - 1)
 * pieces of each block.  But a rank sends k (P - 1) messages per call, and
 * at most PAT_RELAY_MAX_SENDS: beyond, k is cut (to a multiple of P - 1 if
 * it is above), and the pieces grow past the eager limit.
 * k < 2 (a block under two pieces) degenerates to every owner sending its
 * whole block to every rank: DIRECT's traffic in arrival order, with
 * DIRECT's window.  So do predicted arrivals within 2 tau of each other
 * (nothing to spread early) when there are fewer pieces than relays (k <
 * P - 1: a small block, or the send budget binds).  With k >= P - 1,
 * balanced arrivals keep the pieces: whole blocks above the eager size are
 * rendezvous messages into receives posted ahead, and on the emulated
 * cluster (P = 8, 500 Mbit/s, maxDelay 0, k = 14) calls that sent them took
 * 88-92 ms at N = 1M against 67-70 ms with pieces and 69-74 ms for DIRECT;
 * with pieces RELAY measured 0.97-1.02x DIRECT at N = 256K-2M.  Where the
 * budget binds (P = 16, 200 Mbit/s, k = 10), every rank sending its 150
 * pieces at once took 239-258 ms at N = 1M against 188-192 ms with whole
 * blocks (BENCHMARKS.md, Imbalanced arrivals on the emulated cluster, P = 8 and P = 16).
 * Relays of a block are spread evenly over the ranks after the owner:
 * R(o, p) = o + 1 + floor(p (P - 1) / k) (mod P), so every rank relays k
 * pieces in all.
 *
 * Steps (what lockstep and the checker see; the data flow only uses them for
 * tags and order): with m = k / (P - 1) pieces per relay (1 when k <= P - 1),
 * round j of the block of the owner at arrival position t (each relay's
 * j-th piece) is scattered in step 2mt + j and relayed in step 2mt + m + j;
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
 * P = 8), so that the network, not the window, shares the ports.  On the
 * quiet emulated cluster (P = 8, N = 1M, maxDelay 100 ms, plan ahead) 64
 * measured 80.5 ms against 84.8 for 4 (BENCHMARKS.md, issue 19). */
#define RELAY_WINDOW 64

int pat_relay_pieces(int P, int64_t block_bytes) {
  if (P < 3) return 1;
  const int most = PAT_RELAY_MAX_SENDS / (P - 1); /* k (P - 1) sends per rank */
  if (most < 2) return 1;
  int64_t k;
  if (block_bytes <= 0)
    k = P - 1;
  else if ((k = block_bytes / PAT_RELAY_MIN_PIECE) < 2)
    return 1;
  else if (k > P - 1) {
    int64_t per_relay_bytes = (int64_t)(P - 1) * PAT_RELAY_MAX_PIECE;
    k = (int64_t)(P - 1) * ((block_bytes + per_relay_bytes - 1) / per_relay_bytes);
  }
  if (k <= most) return (int)k;
  return most >= P - 1 ? (P - 1) * (most / (P - 1)) : most;
}

static int relay_of(int P, int owner, int p, int k) { return (owner + 1 + (int)((int64_t)p * (P - 1) / k)) % P; }

static pat_span piece(int P, int owner, int p, int k) {
  if (k == 1) return pat_blocks(P, owner, 1);
  return pat_piece(owner, (uint32_t)((uint64_t)p * PAT_FRAC_ONE / (uint64_t)k),
                   (uint32_t)((uint64_t)(p + 1) * PAT_FRAC_ONE / (uint64_t)k));
}

/* Pieces each relay takes of a block. */
static int per_relay(int P, int k) { return k > P - 1 ? k / (P - 1) : 1; }

/* The scatter and the relays of owner o's block, at arrival position t (see
 * Steps above).  Round-major: every relay gets its first piece before any
 * gets its second, so the relays start forwarding early. */
static int spread_block(pat_sched *s, int P, int o, int t, int k) {
  const int m = per_relay(P, k), base = 2 * m * t, relays = k / m;
  if (k == 1) { /* no relays: the owner sends the whole block to everyone, nearest first */
    for (int d = 1; d < P; d++) {
      pat_span sp = piece(P, o, 0, 1);
      if (pat_sched_transfer(s, base, o, (o + d) % P, 1, &sp, 0)) return PAT_ENOMEM;
    }
    return PAT_OK;
  }
  for (int j = 0; j < m; j++)
    for (int i = 0; i < relays; i++) {
      int p = i * m + j;
      pat_span sp = piece(P, o, p, k);
      if (pat_sched_transfer(s, base + j, o, relay_of(P, o, p, k), 1, &sp, 0)) return PAT_ENOMEM;
    }
  for (int j = 0; j < m; j++)
    for (int i = 0; i < relays; i++) {
      int p = i * m + j, R = relay_of(P, o, p, k);
      pat_span sp = piece(P, o, p, k);
      for (int d = 1; d < P; d++) {
        int x = (R + d) % P;
        if (x != o && pat_sched_transfer(s, base + m + j, R, x, 1, &sp, 0)) return PAT_ENOMEM;
      }
    }
  return PAT_OK;
}

/* Predicted arrivals within two block times of each other (or none):
 * nothing to spread early. */
static int near_balanced(const pat_build_args *a) {
  if (!a->arrival || a->tau <= 0) return 1;
  int64_t lo = a->arrival[0], hi = a->arrival[0];
  for (int r = 1; r < a->P; r++) {
    if (a->arrival[r] < lo) lo = a->arrival[r];
    if (a->arrival[r] > hi) hi = a->arrival[r];
  }
  return hi - lo < 2 * a->tau;
}

int pat_allgather_relay(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  if (P < 2) return PAT_OK;
  int k = pat_relay_pieces(P, a->block_bytes);
  if (k < P - 1 && near_balanced(a)) k = 1;
  int *order = malloc((size_t)P * sizeof *order);
  if (!order) return PAT_ENOMEM;
  int rc = pat_arrival_order(P, a->arrival, 0, order);
  s->send_window = k == 1 ? pat_direct_window(P) : RELAY_WINDOW;
  s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV | (k > 1 ? PAT_SCHED_PIECES : 0u);
  for (int t = 0; t < P && rc == PAT_OK; t++) rc = spread_block(s, P, order[t], t, k);
  free(order);
  return rc;
}
