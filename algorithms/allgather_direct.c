/*
 * DIRECT: every rank sends its own block straight to every other rank, with
 * a bounded window of messages in flight.
 *
 * Nothing is forwarded: each block moves once, from its owner, so no rank
 * ever waits for another's relay.  The P-1 distances d = 1 .. P-1 are spread
 * over S = ceil((P-1)/W) steps, W = pat_direct_window(P) = min(P-1, 8):
 * step k holds the distances d = -k (mod S), i.e. S-k, 2S-k, 3S-k, ... up
 * to P-1 (at most W of them).  In step k rank r sends block r to the ranks
 * r+d and receives block r-d from the ranks r-d (mod P).  For one distance
 * the sends form a permutation, so every send meets its receive in the same
 * step, no pair of ranks exchanges two messages in a step, and a rank has at
 * most W sends and W receives posted at a time: the window.
 *
 * Why a window of 8, the same for every P: it bounds what a rank has in
 * flight (requests, unexpected messages, rendezvous handshakes) whatever P,
 * which is what the window is for; 8 messages already cover a latency of
 * several transfer times.  It depends on P only, so every rank agrees.
 *
 * Why distances S apart rather than W consecutive ones (d = kW+1 ..
 * (k+1)W): then ranks r and r+1 share W-1 receivers in a step, and the cost
 * model's port queues cascade from rank to rank (below): 2.4 to 4.8 times
 * RING for P = 11 .. 64.  With distances S apart two ranks share a receiver
 * only if they are a multiple of S apart; starting from the multiples of S
 * (step 0, the one all ranks enter together on balanced arrivals) and
 * going down was, of the 2S rotations of these classes, the best in the
 * replay for most P <= 66 and within 7% of the best for all.  On
 * a machine whose nodes hold consecutive ranks, each step also mixes near
 * and far peers instead of doing all the near ones first.
 *
 * Cost (Hockney, block of m bytes):
 *  - one port each way (the cost model): each rank's P-1 sends leave through
 *    its one send port and its P-1 receives come through its one receive
 *    port, so every rank needs at least (P-1)(alpha + beta*m) -- RING's cost.
 *    The replay serves transfers in order of readiness, ties to the lower
 *    sender then the lower receiver, each at the earliest time both its
 *    ports are free, never filling an earlier gap.  With W > 1 transfers per
 *    port in a step no such order packs a step into W transfer times (a
 *    sender's queue and a receiver's cannot both follow rank order), so on
 *    balanced arrivals, with c = alpha + beta*m:
 *      P <= 9 (one step): rank i leaves at (P - 1 + min(i, P-2)) c;
 *      3 <= P <= 64: mean e_i between 1.05 and 1.49 (P-1) c, the last
 *      rank leaving by 1.9 (P-1) c
 *    (tests/unit/test_direct.c checks both).
 *  - a network that overlaps the messages of a window: a step costs about
 *    alpha + W*beta*m, so S*alpha + (P-1)*beta*m in all: only ceil((P-1)/W)
 *    latencies on the critical path.  The per-algorithm parameters fitted
 *    from measured times (pat-fit) absorb that at the calibrated P.
 */
#include "algorithms/algorithms.h"

#define DIRECT_MAX_WINDOW 8

int pat_direct_window(int P) { return P - 1 < DIRECT_MAX_WINDOW ? P - 1 : DIRECT_MAX_WINDOW; }

/* Rank r's part of step k of S: one receive and one send per distance. */
static int direct_step(pat_sched *s, int P, int S, int k, int r) {
  pat_span own = pat_blocks(P, r, 1);
  for (int d = S - k; d < P; d += S) {
    pat_span in = pat_blocks(P, r - d, 1);
    if (pat_sched_add(s, r, k, PAT_OP_RECV, (r - d + P) % P, 1, &in, 0) ||
        pat_sched_add(s, r, k, PAT_OP_SEND, (r + d) % P, 1, &own, 0))
      return PAT_ENOMEM;
  }
  return PAT_OK;
}

int pat_allgather_direct(pat_sched *s, const pat_build_args *a) {
  const int P = a->P, W = pat_direct_window(P);
  if (P < 2) return PAT_OK;
  const int S = (P - 1 + W - 1) / W;
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  if (W > 1) s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV;
  for (int k = 0; k < S; k++)
    for (int r = lo; r < hi; r++)
      if (direct_step(s, P, S, k, r)) return PAT_ENOMEM;
  return PAT_OK;
}
