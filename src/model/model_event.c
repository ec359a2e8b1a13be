/*
 * The general replay engine: event-driven, for any schedule and any mix of
 * eager and rendezvous transfers (see model.h for the rules).
 *
 * Ready transfers wait in a heap ordered by (ready, sender, receiver, step);
 * popping one gives it both ports at max(ready, send port free, receive port
 * free).  Every new ready time is at least the popped one (a transfer
 * becomes ready when a rank enters a step, which happens when its previous
 * step's last transfer ends), so transfers are served in order of readiness.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/model_impl.h"

#define ST_SEND 1u   /* send op posted */
#define ST_RECV 2u   /* receive op posted */
#define ST_DONE 4u   /* eager transfer over (end in xend) */

typedef struct ev {
  double ready;
  int from, to, step, eager;
  size_t sop; /* index of the send op */
} ev;

typedef struct erank {
  size_t pos, end, rend;
  int step; /* -1 before the first, INT32_MAX when finished */
  int remaining, fg;
  double entry, stepmax;
} erank;

typedef struct eng {
  pat_replay *R;
  erank *rk;
  size_t *match;
  unsigned char *st;
  double *xend, *sendfree, *recvfree;
  ev *heap;
  size_t nheap, capheap;
  int *work, nwork;
} eng;

static int ev_less(const ev *a, const ev *b) {
  if (a->ready != b->ready) return a->ready < b->ready;
  if (a->from != b->from) return a->from < b->from;
  if (a->to != b->to) return a->to < b->to;
  return a->step < b->step;
}

static int heap_push(eng *E, ev e) {
  if (E->nheap == E->capheap) {
    size_t cap = E->capheap ? 2 * E->capheap : 256;
    ev *h = realloc(E->heap, cap * sizeof *h);
    if (!h) return PAT_ENOMEM;
    E->heap = h;
    E->capheap = cap;
  }
  size_t i = E->nheap++;
  while (i > 0) {
    size_t up = (i - 1) / 2;
    if (!ev_less(&e, &E->heap[up])) break;
    E->heap[i] = E->heap[up];
    i = up;
  }
  E->heap[i] = e;
  return PAT_OK;
}

static ev heap_pop(eng *E) {
  ev top = E->heap[0], last = E->heap[--E->nheap];
  size_t i = 0, n = E->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && ev_less(&E->heap[c + 1], &E->heap[c])) c++;
    if (!ev_less(&E->heap[c], &last)) break;
    E->heap[i] = E->heap[c];
    i = c;
  }
  if (n > 0) E->heap[i] = last;
  return top;
}

static void e_done(eng *E, int r, double end) {
  erank *x = &E->rk[r];
  if (end > x->stepmax) x->stepmax = end;
  if (--x->remaining == 0) E->work[E->nwork++] = r;
}

/* Pair every op with its counterpart on the peer (same step, opposite class). */
static int e_match(eng *E) {
  const pat_sched *s = E->R->s;
  const pat_op *ops = s->ops;
  for (int r = 0; r < s->P; r++)
    for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
      const pat_op *o = &ops[i];
      int p = o->peer;
      if (p < 0 || p >= s->P || p == r) return PAT_EINVAL;
      /* p's ops of step o->step */
      size_t lo = s->rank_start[p], hi = s->rank_start[p + 1];
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ops[mid].step < o->step)
          lo = mid + 1;
        else
          hi = mid;
      }
      size_t end = lo;
      while (end < s->rank_start[p + 1] && ops[end].step == o->step) end++;
      if (lo == end) return PAT_EINVAL;
      size_t m = pat_replay_find(ops, lo, end, !pat_is_send(o->kind), r);
      if (m == (size_t)-1) return PAT_EINVAL;
      int sk = pat_is_send(o->kind) ? o->kind : ops[m].kind, rk = pat_is_send(o->kind) ? ops[m].kind : o->kind;
      if (!((sk == PAT_OP_SEND && rk == PAT_OP_RECV) || (sk == PAT_OP_SIGNAL_SEND && rk == PAT_OP_SIGNAL_RECV)))
        return PAT_EINVAL;
      E->match[i] = m;
    }
  return PAT_OK;
}

static int e_advance(eng *E, int r) {
  pat_replay *R = E->R;
  erank *x = &E->rk[r];
  const pat_op *ops = R->s->ops;
  double prev = x->step < 0 ? -INFINITY : x->stepmax;
  if (x->end == x->rend) {
    R->fin[r] = prev > R->a[r] ? prev : R->a[r];
    x->step = INT32_MAX;
    return PAT_OK;
  }
  size_t pos = x->end, end = pos;
  int t = ops[pos].step;
  for (; end < x->rend && ops[end].step == t; end++) {
    const pat_op *o = &ops[end];
    if (!x->fg && o->kind == PAT_OP_SEND && pat_spans_touch_block(R->P, o->nspans, o->span, r)) {
      x->fg = 1;
      R->fg[r] = t;
    }
  }
  double floor = pat_replay_floor(R, r, x->fg);
  x->pos = pos;
  x->end = end;
  x->step = t;
  x->remaining = (int)(end - pos);
  x->entry = prev > floor ? prev : floor;
  x->stepmax = -INFINITY;
  for (size_t i = pos; i < end; i++) {
    const pat_op *o = &ops[i];
    int p = o->peer;
    size_t sop = pat_is_send(o->kind) ? i : E->match[i];
    int eager = pat_replay_eager(R, pat_model_op_blocks(&ops[sop]));
    if (pat_is_send(o->kind)) {
      E->st[sop] |= ST_SEND;
      if (eager || (E->st[sop] & ST_RECV)) {
        double ready = eager || x->entry > E->rk[p].entry ? x->entry : E->rk[p].entry;
        ev e = {ready, r, p, t, eager, sop};
        if (heap_push(E, e)) return PAT_ENOMEM;
      }
    } else {
      E->st[sop] |= ST_RECV;
      if (eager) {
        if (E->st[sop] & ST_DONE) e_done(E, r, x->entry > E->xend[sop] ? x->entry : E->xend[sop]);
      } else if (E->st[sop] & ST_SEND) {
        double ready = x->entry > E->rk[p].entry ? x->entry : E->rk[p].entry;
        ev e = {ready, p, r, t, 0, sop};
        if (heap_push(E, e)) return PAT_ENOMEM;
      }
    }
  }
  return PAT_OK;
}

static int e_drain(eng *E) {
  while (E->nwork > 0) {
    int rc = e_advance(E, E->work[--E->nwork]);
    if (rc) return rc;
  }
  return PAT_OK;
}

int pat_replay_event(pat_replay *R) {
  const pat_sched *s = R->s;
  const int P = R->P;
  size_t n = s->nops;
  eng E = {0};
  E.R = R;
  E.rk = calloc((size_t)P, sizeof *E.rk);
  E.match = malloc((n ? n : 1) * sizeof *E.match);
  E.st = calloc(n ? n : 1, 1);
  E.xend = malloc((n ? n : 1) * sizeof *E.xend);
  E.sendfree = malloc((size_t)P * sizeof(double));
  E.recvfree = malloc((size_t)P * sizeof(double));
  E.work = malloc((size_t)P * sizeof(int));
  int rc = PAT_OK;
  if (!E.rk || !E.match || !E.st || !E.xend || !E.sendfree || !E.recvfree || !E.work) rc = PAT_ENOMEM;
  if (!rc) rc = e_match(&E);
  for (int r = 0; r < P && !rc; r++) {
    E.sendfree[r] = E.recvfree[r] = -INFINITY;
    E.rk[r].step = -1;
    E.rk[r].pos = E.rk[r].end = s->rank_start[r];
    E.rk[r].rend = s->rank_start[r + 1];
  }
  for (int r = P - 1; r >= 0 && !rc; r--) E.work[E.nwork++] = r;
  if (!rc) rc = e_drain(&E);
  while (!rc && E.nheap > 0) {
    ev e = heap_pop(&E);
    const pat_op *o = &s->ops[e.sop];
    double blocks = pat_model_op_blocks(o);
    double cost = pat_model_cost(pat_replay_pair(R, e.from, e.to), R->block_bytes, blocks);
    double start = e.ready;
    if (E.sendfree[e.from] > start) start = E.sendfree[e.from];
    if (E.recvfree[e.to] > start) start = E.recvfree[e.to];
    double end = start + cost;
    E.sendfree[e.from] = E.recvfree[e.to] = end;
    R->transfers++;
    pat_replay_trace(R, e.step, e.from, e.to, e.eager, blocks, e.ready, start, end);
    e_done(&E, e.from, end);
    if (!e.eager) {
      e_done(&E, e.to, end);
    } else {
      E.st[e.sop] |= ST_DONE;
      E.xend[e.sop] = end;
      if (E.st[e.sop] & ST_RECV) {
        double entry = E.rk[e.to].entry;
        e_done(&E, e.to, entry > end ? entry : end);
      }
    }
    rc = e_drain(&E);
  }
  for (int r = 0; r < P && !rc; r++)
    if (E.rk[r].step != INT32_MAX) rc = PAT_EINVAL;
  free(E.rk);
  free(E.match);
  free(E.st);
  free(E.xend);
  free(E.sendfree);
  free(E.recvfree);
  free(E.work);
  free(E.heap);
  return rc;
}
