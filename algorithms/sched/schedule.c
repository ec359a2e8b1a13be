/* Schedule storage: building, sorting, indexing.  See schedule.h. */
#include "algorithms/sched/schedule.h"

#include <stdlib.h>
#include <string.h>

int pat_sched_init(pat_sched *s, int P, int self) {
  memset(s, 0, sizeof *s);
  s->P = P;
  s->self = self;
  s->alg = -1;
  return PAT_OK;
}

void pat_sched_free(pat_sched *s) {
  free(s->ops);
  free(s->rank_start);
  memset(s, 0, sizeof *s);
}

void pat_sched_reset(pat_sched *s, int P, int self) {
  pat_op *ops = s->ops;
  size_t cap = s->cap;
  free(s->rank_start);
  memset(s, 0, sizeof *s);
  s->ops = ops;
  s->cap = cap;
  s->P = P;
  s->self = self;
  s->alg = -1;
}

void pat_sched_rank_range(const pat_sched *s, int *lo, int *hi) {
  if (s->self == PAT_ALL_RANKS) {
    *lo = 0;
    *hi = s->P;
  } else {
    *lo = s->self;
    *hi = s->self + 1;
  }
}

pat_span pat_blocks(int P, int first, int count) {
  pat_span sp;
  sp.first = (int32_t)(((first % P) + P) % P);
  sp.count = count;
  sp.lo = 0;
  sp.hi = PAT_FRAC_ONE;
  return sp;
}

pat_span pat_piece(int block, uint32_t lo, uint32_t hi) {
  pat_span sp;
  sp.first = block;
  sp.count = 1;
  sp.lo = lo;
  sp.hi = hi;
  return sp;
}

int pat_sched_add(pat_sched *s, int rank, int step, int kind, int peer,
                  int nspans, const pat_span *spans, unsigned flags) {
  if (!pat_sched_keeps(s, rank)) return PAT_OK;
  if (nspans < 0 || nspans > PAT_MAX_SPANS) return PAT_EINVAL;
  if (s->nops == s->cap) {
    size_t ncap = s->cap ? 2 * s->cap : 64;
    pat_op *n = realloc(s->ops, ncap * sizeof *n);
    if (!n) return PAT_ENOMEM;
    s->ops = n;
    s->cap = ncap;
  }
  pat_op *op = &s->ops[s->nops++];
  memset(op, 0, sizeof *op);
  op->rank = rank;
  op->step = step;
  op->peer = peer;
  op->kind = (uint8_t)kind;
  op->nspans = (uint8_t)nspans;
  op->flags = (uint16_t)flags;
  for (int i = 0; i < nspans; i++) {
    op->span[i] = spans[i];
    if (spans[i].lo != 0 || spans[i].hi != PAT_FRAC_ONE) s->flags |= PAT_SCHED_PIECES;
  }
  if (step + 1 > s->nsteps) s->nsteps = step + 1;
  s->finalized = 0;
  return PAT_OK;
}

int pat_sched_transfer(pat_sched *s, int step, int from, int to, int nspans,
                       const pat_span *spans, unsigned flags) {
  int rc = pat_sched_add(s, from, step, PAT_OP_SEND, to, nspans, spans, flags);
  if (rc) return rc;
  return pat_sched_add(s, to, step, PAT_OP_RECV, from, nspans, spans, flags);
}

int pat_sched_signal(pat_sched *s, int step, int from, int to, unsigned flags) {
  int rc = pat_sched_add(s, from, step, PAT_OP_SIGNAL_SEND, to, 0, NULL, flags);
  if (rc) return rc;
  return pat_sched_add(s, to, step, PAT_OP_SIGNAL_RECV, from, 0, NULL, flags);
}

int pat_sched_reduce(pat_sched *s, int step, int from, int to, int nspans, const pat_span *spans, int high) {
  int rc = pat_sched_add(s, from, step, PAT_OP_SEND, to, nspans, spans, 0);
  if (rc) return rc;
  unsigned flags = PAT_OPF_REDUCE | (high ? PAT_OPF_REDUCE_HIGH : 0u);
  return pat_sched_add(s, to, step, PAT_OP_RECV, from, nspans, spans, flags);
}

static int op_order(const void *a, const void *b) {
  const pat_op *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  /* receives are posted before sends within a step; otherwise keep order */
  int kx = (x->kind == PAT_OP_RECV || x->kind == PAT_OP_SIGNAL_RECV) ? 0 : 1;
  int ky = (y->kind == PAT_OP_RECV || y->kind == PAT_OP_SIGNAL_RECV) ? 0 : 1;
  if (kx != ky) return kx - ky;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  return (int)x->kind - (int)y->kind;
}

/* Sort ops[lo, hi) of one rank: insertion sort (builders emit nearly sorted
 * runs, so this is linear), handing over to qsort if the input turns out
 * not to be nearly sorted.  Both are stable here: glibc's qsort merges. */
static void sort_rank(pat_op *ops, size_t lo, size_t hi) {
  size_t moves = 0, budget = 8 * (hi - lo) + 64;
  for (size_t i = lo + 1; i < hi; i++) {
    if (op_order(&ops[i - 1], &ops[i]) <= 0) continue;
    pat_op x = ops[i];
    size_t j = i;
    while (j > lo && op_order(&ops[j - 1], &x) > 0) {
      ops[j] = ops[j - 1];
      j--;
      if (++moves > budget) {
        ops[j] = x;
        qsort(ops + lo, hi - lo, sizeof *ops, op_order);
        return;
      }
    }
    ops[j] = x;
  }
}

int pat_sched_finalize(pat_sched *s) {
  /* Builders usually emit in (step, rank) or (rank, step) order; a full sort
   * keeps the result independent of how a builder iterates.  Sorted by
   * (rank, step, receives first, peer, kind): a stable counting sort by rank,
   * then each rank's ops (O(ops) for nearly sorted input, as builders emit). */
  free(s->rank_start);
  s->rank_start = calloc((size_t)s->P + 1, sizeof *s->rank_start);
  if (!s->rank_start) return PAT_ENOMEM;
  int grouped = 1;
  for (size_t i = 0; i < s->nops; i++) {
    s->rank_start[s->ops[i].rank + 1]++;
    if (i > 0 && s->ops[i].rank < s->ops[i - 1].rank) grouped = 0;
  }
  for (int r = 0; r < s->P; r++) s->rank_start[r + 1] += s->rank_start[r];
  if (!grouped) {
    pat_op *sorted = malloc(s->nops * sizeof *sorted);
    size_t *fill = malloc((size_t)s->P * sizeof *fill);
    if (!sorted || !fill) {
      free(sorted);
      free(fill);
      return PAT_ENOMEM;
    }
    memcpy(fill, s->rank_start, (size_t)s->P * sizeof *fill);
    for (size_t i = 0; i < s->nops; i++) sorted[fill[s->ops[i].rank]++] = s->ops[i];
    free(fill);
    free(s->ops);
    s->ops = sorted;
    s->cap = s->nops;
  }
  for (int r = 0; r < s->P; r++) sort_rank(s->ops, s->rank_start[r], s->rank_start[r + 1]);
  int maxstep = -1;
  for (size_t i = 0; i < s->nops; i++)
    if (s->ops[i].step > maxstep) maxstep = s->ops[i].step;
  s->nsteps = maxstep + 1;
  s->finalized = 1;
  return PAT_OK;
}

int pat_spans_touch_block(int P, int nspans, const pat_span *spans, int b) {
  for (int i = 0; i < nspans; i++) {
    int off = pat_mod_p(b - spans[i].first, P);
    if (off < spans[i].count) return 1;
  }
  return 0;
}

int pat_spans_overlap(int P, const pat_span *a, const pat_span *b) {
  for (int i = 0; i < a->count; i++) {
    int blk = (a->first + i) % P;
    if (pat_mod_p(blk - b->first, P) < b->count && (a->lo > b->lo ? a->lo : b->lo) < (a->hi < b->hi ? a->hi : b->hi))
      return 1;
  }
  return 0;
}

/* Do two ops share a byte (any of their spans)? */
static int ops_overlap(int P, const pat_op *a, const pat_op *b) {
  for (int i = 0; i < a->nspans; i++)
    for (int j = 0; j < b->nspans; j++)
      if (pat_spans_overlap(P, &a->span[i], &b->span[j])) return 1;
  return 0;
}

int pat_reduce_waits(int P, const pat_op *ops, size_t y, size_t x) {
  const pat_op *ox = &ops[x], *oy = &ops[y];
  const int sx = pat_is_send(ox->kind), sy = pat_is_send(oy->kind);
  if (sx && sy) return 0;
  if (sy) { /* a send: the receives of earlier steps */
    if (!(ox->step < oy->step)) return 0;
  } else if (sx) { /* a receive: the sends of its step and before */
    if (!(ox->step <= oy->step)) return 0;
  } else if (!(x < y)) { /* and the receives before it */
    return 0;
  }
  return ops_overlap(P, ox, oy);
}
