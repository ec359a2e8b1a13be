/*
 * BSLB: background sorted linear synchronized gather + broadcast
 * (Proficz 2021, Listing 3; the gather is BSLS).
 *
 * Gather: the root takes the other ranks in predicted-arrival order o_0,
 * o_1, ... (earliest first, equal arrivals by ascending rank).  For each o_k
 * it signals o_k, o_k answers with a short first piece of its block (which
 * says "ready"), then sends the rest.  Steps, for k = 0 .. P-2:
 *
 *   step 2k     root -> o_k   signal            (with o_{k-1}'s rest, if k > 0)
 *   step 2k+1   o_k -> root   head: piece [0, PAT_BSLB_HEAD) of block o_k
 *   step 2k+2   o_k -> root   rest: piece [PAT_BSLB_HEAD, 1) of block o_k
 *                root -> o_{k+1} signal
 *
 * so the root receives one data message per step and has already signalled
 * the next rank while the previous rank's rest is flowing; the network sees
 * one sender at a time.  The root sends nothing of its own during the gather,
 * so its executor runs the whole gather in the background thread, while the
 * application still computes; a non-root rank's signal receive is background
 * work too, its answer foreground.
 *
 * Broadcast: a binomial tree from the root of everything each rank lacks
 * (pat_bcast_binomial_rest), starting at step 2(P-1)+1.
 *
 * Cost (Hockney, block of m bytes, flat PAP, h = head fraction):
 *   (P-1) * (3*alpha + beta*m)  +  ceil(log2 P) * (alpha + beta*(P-1)*m)
 * (the signals are zero-byte messages).  Pieces make it run on packed bytes.
 * Building: O(P log P).
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

/* The head piece: 1/1024 of the block (at least one byte of any block of a
 * kilobyte or more; for smaller blocks it may be empty, which still works). */
#define PAT_BSLB_HEAD (PAT_FRAC_ONE / 1024u)

int pat_allgather_bslb(pat_sched *s, const pat_build_args *a) {
  const int P = a->P, root = a->root;
  if (root < 0 || root >= P) return PAT_EINVAL;
  if (P < 2) return PAT_OK;
  s->flags |= PAT_SCHED_PIECES; /* on every rank, even one without a piece op */
  int *order = malloc((size_t)P * sizeof *order);
  if (!order) return PAT_ENOMEM;
  int rc = pat_arrival_order(P, a->arrival, 0, order);
  if (rc) goto out;
  int k = 0;
  for (int i = 0; i < P; i++) {
    int q = order[i];
    if (q == root) continue;
    if (pat_sched_keeps(s, q) || pat_sched_keeps(s, root)) {
      pat_span head = pat_piece(q, 0, PAT_BSLB_HEAD), rest = pat_piece(q, PAT_BSLB_HEAD, PAT_FRAC_ONE);
      if (pat_sched_signal(s, 2 * k, root, q, 0) || pat_sched_transfer(s, 2 * k + 1, q, root, 1, &head, 0) ||
          pat_sched_transfer(s, 2 * k + 2, q, root, 1, &rest, 0)) {
        rc = PAT_ENOMEM;
        goto out;
      }
    }
    k++;
  }
  int next;
  rc = pat_bcast_binomial_rest(s, P, root, 2 * k + 1, &next);
out:
  free(order);
  return rc;
}
