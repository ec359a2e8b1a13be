/*
 * SLT all-reduce: the sorted linear tree of Proficz (2018, "Improving
 * all-reduce collective operations for imbalanced process arrival
 * patterns"), pipelined, meant to run as a data flow (send_window > 0).
 *
 * The ranks in their predicted order of arrival, s_0 first and s_{P-1}
 * last (a->arrival; rank order without a prediction), make a chain: s_i
 * adds its contribution to the partial sum of s_0..s_{i-1} it receives and
 * passes it on to s_{i+1}, piece by piece; s_{P-1} completes each piece and
 * sends the result back down the chain, s_{i+1} to s_i.  In data flow a
 * rank passes a piece on as soon as it has arrived and the piece has come
 * in, so while the last rank computes the others have summed everything
 * but its contribution, and the pieces wait at s_{P-2}.  Once s_{P-1}
 * arrives the pre-reduced vector streams into it and the results stream
 * back out at once: about beta m after the last arrival, plus a piece's
 * time per hop.  A rank that arrives later than predicted holds the
 * stream up to that point; what is behind it streams on at the link's
 * rate once it arrives.
 *
 * Pieces of at most PAT_ARED_RELAY_PIECE: segments of at least that cut into
 * c = block / PAT_ARED_RELAY_PIECE parts, rounded up (at most
 * PAT_ARED_RELAY_MAX_PIECES), smaller ones grouped, g consecutive segments
 * a piece, as many as fit; the whole vector
 * one piece when its size is unknown.  Every rank gets each byte's result from
 * s_{P-1}'s combination, so all hold the same bits; the partial sums are
 * combined in chain order, which is rank order only without a prediction:
 * the op must be commutative.
 *
 * Cost (Hockney, vector of m bytes, balanced): a middle rank sends m of
 * partial sums and m of results, each way pipelined:
 *   about 2 beta m + 2 (P - 1) (alpha + beta m / n) + m gamma;
 * after a correctly predicted last arrival: beta m + (P - 1)(alpha + beta m / n).
 */
#include <stdint.h>
#include <stdlib.h>

#include "algorithms/allreduce.h"

/* The pipeline's pieces: c parts a segment (g = 1), or g segments a piece (c = 1); returns their number. */
static int pieces(const pat_build_args *a, int *c, int *g) {
  const int64_t b = a->block_bytes, piece = PAT_ARED_RELAY_PIECE;
  *c = 1;
  *g = a->P;
  if (b >= piece) {
    *c = pat_allreduce_pieces(b);
    *g = 1;
  } else if (b > 0) {
    *g = (int)(piece / b) < a->P ? (int)(piece / b) : a->P;
  }
  return *c * ((a->P + *g - 1) / *g);
}

static pat_span piece_span(int P, int c, int g, int p) {
  const uint64_t one = PAT_FRAC_ONE, j = (uint64_t)(p % c);
  if (c > 1) return pat_piece(p / c, (uint32_t)(one * j / (uint64_t)c), (uint32_t)(one * (j + 1) / (uint64_t)c));
  return pat_blocks(P, p * g, (p + 1) * g < P ? g : P - p * g);
}

int pat_allreduce_slt(pat_sched *s, const pat_build_args *a) {
  int c, g;
  const int P = a->P, n = pieces(a, &c, &g);
  s->send_window = 4; /* pieces in flight each way */
  if (P < 2) return PAT_OK;
  int *order = malloc((size_t)P * sizeof *order);
  if (!order) return PAT_ENOMEM;
  int rc = pat_arrival_order(P, a->arrival, 0, order);
  for (int i = 0; i + 1 < P && rc == PAT_OK; i++) {
    const int from = order[i], to = order[i + 1];
    if (!pat_sched_keeps(s, from) && !pat_sched_keeps(s, to)) continue;
    for (int p = 0; p < n && rc == PAT_OK; p++) {
      const pat_span piece = piece_span(P, c, g, p);
      /* the partial sum up the chain (higher ranks' contributions where the chain is in rank order
       * are the receiver's own), the result back down it */
      rc = pat_sched_reduce(s, i * n + p, from, to, 1, &piece, 0);
      if (rc == PAT_OK) rc = pat_sched_transfer(s, (P - 1) * n + (P - 2 - i) * n + p, to, from, 1, &piece, 0);
    }
  }
  free(order);
  return rc;
}
