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
 * Arrival-awareness is in the order: blocks are taken in predicted arrival
 * order (earliest first), and a rank's sends are in that order too, so under
 * a small send window the early blocks spread first while the late ranks
 * still compute: a late rank's background thread takes pieces in and relays
 * them (relays need no own data), and the late rank's receive port is busy
 * while it computes.  The last arriver's block then leaves its port in one
 * block time and the relays spread it in another (P-2)/(P-1) block time.
 *
 * Pieces are at least PAT_ARD_MIN_PIECE bytes (smaller, eager pieces stalled
 * on TCP): k = min(P - 1, block_bytes / PAT_ARD_MIN_PIECE) (P - 1 when the
 * block size is unknown); k < 2 degenerates to every owner sending its
 * whole block to every rank (DIRECT in arrival order).  Relays of a block
 * are spread evenly over the ranks after the owner: R(o, p) = o + 1 +
 * floor(p (P - 1) / k) (mod P), so every rank relays k pieces in all.
 *
 * Steps (what lockstep and the checker see; the data flow only uses them for
 * tags and order): the block of the owner at arrival position t is scattered
 * in step 2t and relayed in step 2t + 1; a relay sends to the ranks after
 * it, cyclically, so the relays of one piece do not all start on one
 * receiver.  No pair exchanges two messages in one step.
 *
 * Cost (Hockney, block of m bytes, a network that overlaps a window's
 * messages): per port (P - 1) m beta and k + k (P-2) ... = (P - 1)^2
 * messages per rank at k = P - 1, overlapped W at a time; after the last
 * arrival L: alpha + beta m (L's scatter) + alpha + (P-2)/k beta m (the
 * relays), provided the other blocks are everywhere by then.  Balanced: the
 * data of DIRECT, (P-1) beta m per port, with ~(P-1)^2 / W latencies.
 * In lockstep (send_window 0) it is 2P steps of that, much slower: the
 * window is what the algorithm is for (RELAY_WINDOW).
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

/* Sends in flight per rank: chosen by measurement on the emulated cluster
 * (BENCHMARKS.md, "Where an arrival-aware call loses its time"). */
#define RELAY_WINDOW 4

int pat_relay_pieces(int P, int64_t block_bytes) {
  if (P < 3) return 1;
  int64_t k = block_bytes > 0 ? block_bytes / PAT_ARD_MIN_PIECE : P - 1;
  return k < 2 ? 1 : k > P - 1 ? P - 1 : (int)k;
}

static int relay_of(int P, int owner, int p, int k) { return (owner + 1 + (int)((int64_t)p * (P - 1) / k)) % P; }

static pat_span piece(int P, int owner, int p, int k) {
  if (k == 1) return pat_blocks(P, owner, 1);
  return pat_piece(owner, (uint32_t)((uint64_t)p * PAT_FRAC_ONE / (uint64_t)k),
                   (uint32_t)((uint64_t)(p + 1) * PAT_FRAC_ONE / (uint64_t)k));
}

/* The scatter (step 2t) and the relays (step 2t + 1) of owner o's block. */
static int spread_block(pat_sched *s, int P, int o, int t, int k) {
  if (k == 1) { /* no relays: the owner sends the whole block to everyone, nearest first */
    for (int d = 1; d < P; d++) {
      pat_span sp = piece(P, o, 0, 1);
      if (pat_sched_transfer(s, 2 * t, o, (o + d) % P, 1, &sp, 0)) return PAT_ENOMEM;
    }
    return PAT_OK;
  }
  for (int p = 0; p < k; p++) {
    pat_span sp = piece(P, o, p, k);
    if (pat_sched_transfer(s, 2 * t, o, relay_of(P, o, p, k), 1, &sp, 0)) return PAT_ENOMEM;
  }
  for (int p = 0; p < k; p++) {
    int R = relay_of(P, o, p, k);
    pat_span sp = piece(P, o, p, k);
    for (int d = 1; d < P; d++) {
      int x = (R + d) % P;
      if (x != o && pat_sched_transfer(s, 2 * t + 1, R, x, 1, &sp, 0)) return PAT_ENOMEM;
    }
  }
  return PAT_OK;
}

int pat_allgather_relay(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  if (P < 2) return PAT_OK;
  const int k = pat_relay_pieces(P, a->block_bytes);
  int *order = malloc((size_t)P * sizeof *order);
  if (!order) return PAT_ENOMEM;
  int rc = pat_arrival_order(P, a->arrival, 0, order);
  s->send_window = RELAY_WINDOW;
  s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV | (k > 1 ? PAT_SCHED_PIECES : 0u);
  for (int t = 0; t < P && rc == PAT_OK; t++) rc = spread_block(s, P, order[t], t, k);
  free(order);
  return rc;
}
