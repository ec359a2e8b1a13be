/* Internals of the replay (model_fluid.c) and the compiled programs (model_prog.c). */
#ifndef PAT_MODEL_IMPL_H
#define PAT_MODEL_IMPL_H

#include "model/model.h"

typedef struct pat_replay {
  const pat_sched *s;
  int P;
  const double *a;        /* arrivals relative to the earliest one */
  double bg;              /* bg_start relative to the earliest arrival */
  double amin;            /* the earliest arrival (origin of the relative times) */
  const pat_model_params *mp;
  const pat_link_model *lm;
  double block_bytes;
  const double *block_size; /* unequal blocks (all-gatherv): bytes of each of the P blocks; NULL: block_bytes each */
  double *fin;            /* relative exit time of each rank (P) */
  int *fg;                /* first foreground step of each rank (P) */
  size_t transfers;
} pat_replay;

/* Hockney pair of a transfer between ranks `from` and `to`. */
static inline pat_hockney pat_replay_pair(const pat_replay *R, int from, int to) {
  const pat_link_model *lm = R->lm;
  if (R->mp->node && lm->has_intra && R->mp->node[from] == R->mp->node[to]) return lm->intra;
  return lm->inter;
}

/* Bytes an op of `blocks` blocks (pat_model_op_blocks) moves: its blocks'
 * (or pieces') share of their sizes. */
static inline double pat_replay_op_bytes(const pat_replay *R, const pat_op *op, double blocks) {
  if (!R->block_size) return R->block_bytes * blocks;
  double bytes = 0;
  for (int i = 0; i < op->nspans; i++) {
    const pat_span *sp = &op->span[i];
    if (sp->lo != 0 || sp->hi != PAT_FRAC_ONE)
      bytes += R->block_size[sp->first] * ((double)(sp->hi - sp->lo) / PAT_FRAC_ONE);
    else
      for (int j = 0; j < sp->count; j++) bytes += R->block_size[(sp->first + j) % R->P];
  }
  return bytes;
}

static inline int pat_replay_eager(const pat_replay *R, double bytes) {
  return R->mp->eager_bytes > 0 && bytes < R->mp->eager_bytes;
}

/* Earliest time rank r may enter a step (fg: foreground step or not). */
static inline double pat_replay_floor(const pat_replay *R, int r, int fg) {
  if (fg) return R->a[r];
  return R->bg < R->a[r] ? R->bg : R->a[r];
}

static inline void pat_replay_trace(const pat_replay *R, int step, int from, int to, int eager, double blocks,
                                    double ready, double start, double end) {
  if (!R->mp->trace) return;
  pat_model_xfer x = {step, from, to, eager, blocks, ready + R->amin, start + R->amin, end + R->amin};
  R->mp->trace(R->mp->trace_ctx, &x);
}

#endif
