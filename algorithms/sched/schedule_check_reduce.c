/*
 * The checker of a reduction's contributions (pat_sched_check_contributions
 * in schedule.h): which ranks' contributions every byte of every rank holds,
 * step by step, as runs of ranks.
 *
 * Why runs of ranks and not a count: a count would take a contribution
 * counted twice and another missing for a whole one, and says nothing of
 * order; runs say which ranks are in, so a double count fails where it
 * happens, a gap at the end, and a non-commutative op's order at every
 * combination (adjacent runs, the incoming one on the side its op names).
 *
 * A rank's holding of a segment is a list of byte ranges, each with its set
 * of ranks (sorted, disjoint, non-adjacent runs [a, b]): a piece of a
 * segment may hold other ranks than the rest of it.  The sends of a step
 * carry what their senders held before it (lockstep), so a step's messages
 * are copied out before any of them is applied, in op order.  A data flow
 * (send_window > 0) is checked so too: its executor keeps that order for
 * every byte; it may also take several contributions to the same bytes in
 * one step.
 */
#include "algorithms/sched/schedule.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A set of ranks: n runs [r[2i], r[2i+1]], sorted, neither overlapping nor adjacent. */
typedef struct ranks {
  int n;
  int32_t *r;
} ranks;

typedef struct seg {
  uint32_t lo, hi;
  ranks who;
} seg;

/* What one rank holds of one segment: segs sorted by lo, covering [0, PAT_FRAC_ONE). */
typedef struct holding {
  int n, cap;
  seg *s;
} holding;

/* One received piece, as its sender held it before the step. */
typedef struct piece {
  int rank, block, reduce, high, step;
  holding in; /* the sender's segs within [lo, hi) */
} piece;

/* ---- sets of ranks ---- */

static int ranks_copy(ranks *dst, const ranks *src) {
  dst->n = src->n;
  dst->r = malloc((size_t)(src->n ? src->n : 1) * 2 * sizeof *dst->r);
  if (!dst->r) return -1;
  memcpy(dst->r, src->r, (size_t)src->n * 2 * sizeof *dst->r);
  return 0;
}

static int ranks_one(ranks *x, int rank) {
  x->n = 1;
  x->r = malloc(2 * sizeof *x->r);
  if (!x->r) return -1;
  x->r[0] = x->r[1] = rank;
  return 0;
}

static int ranks_meet(const ranks *x, const ranks *y) {
  for (int i = 0; i < x->n; i++)
    for (int j = 0; j < y->n; j++)
      if (x->r[2 * i] <= y->r[2 * j + 1] && y->r[2 * j] <= x->r[2 * i + 1]) return 1;
  return 0;
}

static int ranks_equal(const ranks *x, const ranks *y) {
  return x->n == y->n && memcmp(x->r, y->r, (size_t)x->n * 2 * sizeof *x->r) == 0;
}

/* x = x union y (disjoint sets), merging runs that touch. */
static int ranks_join(ranks *x, const ranks *y) {
  int32_t *all = malloc((size_t)(x->n + y->n) * 2 * sizeof *all);
  if (!all) return -1;
  int i = 0, j = 0, n = 0;
  while (i < x->n || j < y->n) {
    const int32_t *next = (j >= y->n || (i < x->n && x->r[2 * i] < y->r[2 * j])) ? &x->r[2 * i++] : &y->r[2 * j++];
    if (n > 0 && all[2 * n - 1] + 1 >= next[0]) {
      if (next[1] > all[2 * n - 1]) all[2 * n - 1] = next[1];
    } else {
      all[2 * n] = next[0];
      all[2 * n + 1] = next[1];
      n++;
    }
  }
  free(x->r);
  x->r = all;
  x->n = n;
  return 0;
}

/* "0-3,5" into buf */
static const char *ranks_text(const ranks *x, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < x->n && used < len; i++) {
    int k = x->r[2 * i] == x->r[2 * i + 1]
                ? snprintf(buf + used, len - used, "%s%d", i ? "," : "", x->r[2 * i])
                : snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", x->r[2 * i], x->r[2 * i + 1]);
    if (k < 0) break;
    used += (size_t)k;
  }
  return buf;
}

/* ---- holdings ---- */

static void holding_free(holding *h) {
  for (int i = 0; i < h->n; i++) free(h->s[i].who.r);
  free(h->s);
  memset(h, 0, sizeof *h);
}

static int holding_insert(holding *h, int at, seg x) {
  if (h->n == h->cap) {
    int cap = h->cap ? 2 * h->cap : 4;
    seg *n = realloc(h->s, (size_t)cap * sizeof *n);
    if (!n) return -1;
    h->s = n;
    h->cap = cap;
  }
  memmove(&h->s[at + 1], &h->s[at], (size_t)(h->n - at) * sizeof *h->s);
  h->s[at] = x;
  h->n++;
  return 0;
}

/* A seg boundary at x; returns the index of the seg that starts at x (h->n at the end). */
static int holding_cut(holding *h, uint32_t x) {
  for (int i = 0; i < h->n; i++) {
    if (h->s[i].lo == x) return i;
    if (h->s[i].lo < x && x < h->s[i].hi) {
      seg right = {x, h->s[i].hi, {0, NULL}};
      if (ranks_copy(&right.who, &h->s[i].who)) return -1;
      h->s[i].hi = x;
      if (holding_insert(h, i + 1, right)) {
        free(right.who.r);
        return -1;
      }
      return i + 1;
    }
  }
  return h->n;
}

/* Neighbours holding the same ranks become one seg (keeps the lists short). */
static void holding_merge(holding *h) {
  int n = 0;
  for (int i = 0; i < h->n; i++) {
    if (n > 0 && h->s[n - 1].hi == h->s[i].lo && ranks_equal(&h->s[n - 1].who, &h->s[i].who)) {
      h->s[n - 1].hi = h->s[i].hi;
      free(h->s[i].who.r);
      continue;
    }
    h->s[n++] = h->s[i];
  }
  h->n = n;
}

/* The segs of h within [lo, hi), cut to it, copied into out. */
static int holding_extract(const holding *h, uint32_t lo, uint32_t hi, holding *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < h->n; i++) {
    uint32_t a = h->s[i].lo > lo ? h->s[i].lo : lo, b = h->s[i].hi < hi ? h->s[i].hi : hi;
    if (a >= b) continue;
    seg x = {a, b, {0, NULL}};
    if (ranks_copy(&x.who, &h->s[i].who) || holding_insert(out, out->n, x)) {
      free(x.who.r);
      holding_free(out);
      return -1;
    }
  }
  return 0;
}

/* ---- one step ---- */

typedef struct checker {
  const pat_sched *s;
  unsigned rules;
  holding *h; /* P x P: h[r * P + b], what rank r holds of segment b */
  char *err;
  size_t errlen;
} checker;

/* The (block, lo, hi) of span sp's k-th block. */
static void span_block(int P, const pat_span *sp, int k, int *b, uint32_t *lo, uint32_t *hi) {
  *b = (sp->first + k) % P;
  *lo = sp->lo;
  *hi = sp->hi;
}

static int spans_share(int P, const pat_op *x, const pat_op *y, int *block, uint32_t *lo, uint32_t *hi) {
  for (int i = 0; i < x->nspans; i++)
    for (int k = 0; k < x->span[i].count; k++) {
      int b;
      uint32_t a0, a1;
      span_block(P, &x->span[i], k, &b, &a0, &a1);
      for (int j = 0; j < y->nspans; j++) {
        const pat_span *q = &y->span[j];
        if (pat_mod_p(b - q->first, P) >= q->count) continue;
        if (a0 < q->hi && q->lo < a1) {
          *block = b;
          *lo = a0 > q->lo ? a0 : q->lo;
          *hi = a1 < q->hi ? a1 : q->hi;
          return 1;
        }
      }
    }
  return 0;
}

/* A rank's ops of one step, ops[a, z): no byte received twice (the
 * executor's receives of a step share its memory), none replaced that the
 * step sends (its send reads the bytes the receive writes). */
static int check_step_ops(checker *c, const pat_op *ops, size_t a, size_t z) {
  const int P = c->s->P;
  for (size_t i = a; i < z; i++) {
    if (ops[i].kind != PAT_OP_RECV) continue;
    for (size_t j = a; j < z; j++) {
      if (j == i || (ops[j].kind != PAT_OP_RECV && ops[j].kind != PAT_OP_SEND)) continue;
      if (ops[j].kind == PAT_OP_RECV && j < i) continue; /* that pair was seen from j */
      if (ops[j].kind == PAT_OP_SEND && (ops[i].flags & PAT_OPF_REDUCE)) continue; /* combined after the step */
      /* two contributions to the same bytes in one step: a data flow lands each in a buffer of its own and
       * combines them in op order (exec/flow.c); lockstep has one receive buffer */
      if (c->s->send_window > 0 && ops[j].kind == PAT_OP_RECV && (ops[i].flags & PAT_OPF_REDUCE) &&
          (ops[j].flags & PAT_OPF_REDUCE))
        continue;
      int b;
      uint32_t lo, hi;
      if (!spans_share(P, &ops[i], &ops[j], &b, &lo, &hi)) continue;
      if (ops[j].kind == PAT_OP_RECV)
        return pat_sched_check_fail(c->err, c->errlen, "step %d: rank %d receives block %d [%u,%u) twice in one step", ops[i].step,
                    ops[i].rank, b, lo, hi);
      return pat_sched_check_fail(c->err, c->errlen, "step %d: rank %d replaces block %d [%u,%u) that it sends in the same step",
                  ops[i].step, ops[i].rank, b, lo, hi);
    }
  }
  return 0;
}

/* The step's receives, as what their senders held before it. */
static int take_pieces(checker *c, const pat_op *ops, size_t a, size_t z, piece **list, size_t *n, size_t *cap) {
  const int P = c->s->P;
  for (size_t i = a; i < z; i++) {
    const pat_op *op = &ops[i];
    if (op->kind != PAT_OP_RECV) continue;
    for (int q = 0; q < op->nspans; q++)
      for (int k = 0; k < op->span[q].count; k++) {
        int b;
        uint32_t lo, hi;
        span_block(P, &op->span[q], k, &b, &lo, &hi);
        if (*n == *cap) {
          size_t nc = *cap ? 2 * *cap : 16;
          piece *np = realloc(*list, nc * sizeof *np);
          if (!np) return pat_sched_check_fail(c->err, c->errlen, "out of memory");
          *list = np;
          *cap = nc;
        }
        piece *p = &(*list)[*n];
        *p = (piece){op->rank, b, (op->flags & PAT_OPF_REDUCE) != 0, (op->flags & PAT_OPF_REDUCE_HIGH) != 0,
                     op->step, {0, 0, NULL}};
        if (holding_extract(&c->h[(size_t)op->peer * P + b], lo, hi, &p->in))
          return pat_sched_check_fail(c->err, c->errlen, "out of memory");
        (*n)++;
      }
  }
  return 0;
}

/* held (op) in, or in (op) held: adjacent runs of ranks in that order? */
static int in_order(const ranks *held, const ranks *in, int high) {
  if (held->n != 1 || in->n != 1) return 0;
  return high ? held->r[1] + 1 == in->r[0] : in->r[1] + 1 == held->r[0];
}

/* Combine incoming seg x into holding h (the piece's rank's). */
static int combine(checker *c, const piece *p, holding *h, const seg *x) {
  int at = holding_cut(h, x->lo), end = holding_cut(h, x->hi);
  if (at < 0 || end < 0) return pat_sched_check_fail(c->err, c->errlen, "out of memory");
  char a[96], b[96];
  for (int i = at; i < end; i++) {
    seg *y = &h->s[i];
    if (ranks_meet(&y->who, &x->who))
      return pat_sched_check_fail(c->err, c->errlen, "step %d: rank %d combines ranks %s into block %d [%u,%u) holding ranks %s: counted twice",
                  p->step, p->rank, ranks_text(&x->who, a, sizeof a), p->block, y->lo, y->hi,
                  ranks_text(&y->who, b, sizeof b));
    if ((c->rules & PAT_CHECK_RANK_ORDER) && !in_order(&y->who, &x->who, p->high))
      return pat_sched_check_fail(c->err, c->errlen,
                  "step %d: rank %d combines ranks %s %s block %d [%u,%u) holding ranks %s: not in rank order",
                  p->step, p->rank, ranks_text(&x->who, a, sizeof a), p->high ? "after" : "before", p->block, y->lo,
                  y->hi, ranks_text(&y->who, b, sizeof b));
    if (ranks_join(&y->who, &x->who)) return pat_sched_check_fail(c->err, c->errlen, "out of memory");
  }
  return 0;
}

/* Replace [lo, hi) of h by the incoming segs. */
static int replace(checker *c, holding *h, const holding *in) {
  uint32_t lo = in->s[0].lo, hi = in->s[in->n - 1].hi;
  int at = holding_cut(h, lo), end = holding_cut(h, hi);
  if (at < 0 || end < 0) return pat_sched_check_fail(c->err, c->errlen, "out of memory");
  for (int i = at; i < end; i++) free(h->s[i].who.r);
  memmove(&h->s[at], &h->s[end], (size_t)(h->n - end) * sizeof *h->s);
  h->n -= end - at;
  for (int i = 0; i < in->n; i++) {
    seg x = {in->s[i].lo, in->s[i].hi, {0, NULL}};
    if (ranks_copy(&x.who, &in->s[i].who) || holding_insert(h, at + i, x)) {
      free(x.who.r);
      return pat_sched_check_fail(c->err, c->errlen, "out of memory");
    }
  }
  return 0;
}

static int apply(checker *c, const piece *p) {
  holding *h = &c->h[(size_t)p->rank * c->s->P + p->block];
  int bad = 0;
  if (!p->reduce)
    bad = replace(c, h, &p->in);
  else
    for (int i = 0; i < p->in.n && !bad; i++) bad = combine(c, p, h, &p->in.s[i]);
  holding_merge(h);
  return bad;
}

/* Step t of every rank; cursor[r]: rank r's first op of step t or later. */
static int run_step(checker *c, int t, size_t *cursor) {
  const pat_sched *s = c->s;
  piece *list = NULL;
  size_t n = 0, cap = 0;
  int bad = 0;
  size_t *end = malloc((size_t)s->P * sizeof *end);
  if (!end) return pat_sched_check_fail(c->err, c->errlen, "out of memory");
  for (int r = 0; r < s->P && !bad; r++) {
    size_t a = cursor[r], z = a;
    while (z < s->rank_start[r + 1] && s->ops[z].step == t) z++;
    end[r] = z;
    bad = check_step_ops(c, s->ops, a, z);
    if (!bad) bad = take_pieces(c, s->ops, a, z, &list, &n, &cap);
  }
  for (size_t i = 0; i < n && !bad; i++) bad = apply(c, &list[i]);
  for (int r = 0; r < s->P && !bad; r++) cursor[r] = end[r];
  for (size_t i = 0; i < n; i++) holding_free(&list[i].in);
  free(list);
  free(end);
  return bad;
}

/* Every byte of every segment holds every rank, 0..P-1. */
static int check_ends(checker *c) {
  const int P = c->s->P;
  char a[96];
  for (int r = 0; r < P; r++)
    for (int b = 0; b < P; b++) {
      const holding *h = &c->h[(size_t)r * P + b];
      for (int i = 0; i < h->n; i++)
        if (h->s[i].who.n != 1 || h->s[i].who.r[0] != 0 || h->s[i].who.r[1] != P - 1)
          return pat_sched_check_fail(c->err, c->errlen, "rank %d ends with block %d [%u,%u) combining ranks %s, not 0-%d", r, b,
                      h->s[i].lo, h->s[i].hi, ranks_text(&h->s[i].who, a, sizeof a), P - 1);
    }
  return 0;
}

int pat_sched_check_contributions(const pat_sched *s, unsigned rules, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (s->self != PAT_ALL_RANKS || !s->finalized) return pat_sched_check_fail(err, errlen, "checker needs a finalized schedule of every rank");
  /* a data flow keeps lockstep's order for every byte (exec/flow.c): checked as lockstep */
  const int P = s->P;
  checker c = {s, rules, calloc((size_t)P * P, sizeof(holding)), err, errlen};
  size_t *cursor = malloc((size_t)P * sizeof *cursor);
  int bad = 0;
  if (!c.h || !cursor) bad = pat_sched_check_fail(err, errlen, "out of memory");
  for (int r = 0; r < P && !bad; r++) {
    cursor[r] = s->rank_start[r];
    for (int b = 0; b < P && !bad; b++) {
      seg own = {0, PAT_FRAC_ONE, {0, NULL}};
      if (ranks_one(&own.who, r) || holding_insert(&c.h[(size_t)r * P + b], 0, own)) {
        free(own.who.r);
        bad = pat_sched_check_fail(err, errlen, "out of memory");
      }
    }
  }
  for (int t = 0; t < s->nsteps && !bad; t++) bad = run_step(&c, t, cursor);
  if (!bad) bad = check_ends(&c);
  if (c.h)
    for (size_t i = 0; i < (size_t)P * P; i++) holding_free(&c.h[i]);
  free(c.h);
  free(cursor);
  return bad;
}
