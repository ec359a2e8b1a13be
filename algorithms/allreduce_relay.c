/*
 * RELAY all-reduce (libpat): the all-gather RELAY's counterpart where one
 * rank arrives last, meant to run as a data flow (send_window > 0,
 * exec/flow.c).
 *
 * The predicted last rank L (the latest in a->arrival; rank P - 1 without a
 * prediction) owns no part of the result.  The P - 1 other ranks, the
 * owners, own a share each: their own segment and a (P - 1)th of L's.
 * Every share is cut into k pieces; piece j of every share is reduced in
 * step j (every rank sends its contribution of it to its owner, who
 * combines it) and spread in step k + j (its owner sends the result to
 * every other rank).  In data flow a rank sends its contributions the
 * moment it arrives, an owner takes them in as they come, and a piece's
 * result leaves as soon as its last contribution, L's, is combined.  The
 * contributions' steps come first because the data flow posts ready sends
 * in step order: an owner's port carries all its contributions before its
 * results, so that the reduction among the owners, which L's lateness is
 * meant to hide, is not held behind results that wait for L; spread after
 * reduce, piece by piece, an owner's last contributions went out after L's
 * whole vector had come in.  So
 * after L arrives, L sends m (its contribution, a piece to each owner) and
 * receives m (the results) at once: about beta m, the all-reduce's bound
 * after the last arrival (docs/design.md), where ring needs
 * 2 (P - 1) / P beta m and a late owner's port would carry 2 (P - 1) / P m.
 *
 * An owner combines the contributions of a piece in the order of its
 * receives, which is rank order (its own first), not arrival order: every
 * rank gets the owner's bits, the same in every run with the same L (who
 * owns L's segment follows L: PAT_REPRODUCIBLE fixes L at P - 1); but the op
 * must be commutative (its own contribution is held before lower ranks'
 * come in).
 *
 * Pieces: k = share / PAT_ARED_RELAY_PIECE rounded up, 1 to PAT_ARED_RELAY_MAX_PIECES
 * (1 when the vector's size is unknown): an owner forwards piece j while
 * piece j + 1 still comes in.
 *
 * Cost (Hockney, vector of m bytes, full-duplex ports, balanced): an owner
 * sends (P - 2) / (P - 1) m of contributions and m of results,
 * 2k steps of alpha; about (2P - 3) / (P - 1) beta m (1.86 beta m at P = 8)
 * against ring's 2 (P - 1) / P beta m (1.75), plus m / (P - 1) gamma.  After
 * a late L: beta m (1 + 1 / k).
 */
#include <stdint.h>

#include "algorithms/allreduce.h"

int pat_allreduce_late_rank(const pat_build_args *a) {
  int late = a->P - 1;
  if (a->arrival)
    for (int r = 0; r < a->P; r++)
      if (a->arrival[r] >= a->arrival[late]) late = r;
  return late;
}

static int pieces(const pat_build_args *a) {
  if (a->block_bytes <= 0 || a->P < 2) return 1;
  return pat_allreduce_pieces(a->block_bytes * a->P / (a->P - 1)); /* of a share */
}

/* Piece j of owner o's share (o != late, owner number v): of its own segment
 * and of the late rank's. */
static void share_piece(int late, int v, int P, int k, int j, int o, pat_span sp[2]) {
  uint64_t one = PAT_FRAC_ONE, of = (uint64_t)(P - 1) * (uint64_t)k, at = (uint64_t)v * (uint64_t)k + (uint64_t)j;
  sp[0] = pat_piece(o, (uint32_t)(one * (uint64_t)j / (uint64_t)k), (uint32_t)(one * (uint64_t)(j + 1) / (uint64_t)k));
  sp[1] = pat_piece(late, (uint32_t)(one * at / of), (uint32_t)(one * (at + 1) / of));
}

int pat_allreduce_relay(pat_sched *s, const pat_build_args *a) {
  const int P = a->P, late = pat_allreduce_late_rank(a), k = pieces(a);
  s->send_window = P > 1 ? P - 1 : 1; /* a message to every owner in flight */
  if (P < 2) return PAT_OK;
  for (int j = 0; j < k; j++)
    for (int o = 0, v = 0; o < P; o++) {
      if (o == late) continue;
      pat_span sp[2];
      share_piece(late, v++, P, k, j, o, sp);
      for (int r = 0; r < P; r++) { /* contributions in rank order: the owner combines them so */
        if (r == o || (!pat_sched_keeps(s, r) && !pat_sched_keeps(s, o))) continue;
        if (pat_sched_reduce(s, j, r, o, 2, sp, 0)) return PAT_ENOMEM;
      }
      for (int d = 1; d < P; d++) { /* the result to everyone, from the rank after the owner on */
        int r = (o + d) % P;
        if (!pat_sched_keeps(s, r) && !pat_sched_keeps(s, o)) continue;
        if (pat_sched_transfer(s, k + j, o, r, 2, sp, 0)) return PAT_ENOMEM;
      }
    }
  return PAT_OK;
}
