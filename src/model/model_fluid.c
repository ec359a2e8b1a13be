/*
 * The replay engine: the executor's contract (schedule.h, above struct
 * pat_sched) played out on a fluid network (see model.h for the rules).
 *
 * Why fluid: on the emulated cluster (tbf on every host's send and receive
 * link, TCP underneath) concurrent messages through one port share its rate;
 * they are not served one after the other.  The one-port replay this engine
 * replaces held both ports of a transfer until it ended, so a transfer whose
 * receiver was busy also idled its sender, and so predicted the imbalanced
 * calls far slower than they measure.
 *
 * A transfer is *ready* when the contract lets it start (both ops posted;
 * eager: the send posted).  After the latency alpha it becomes *active*: its
 * bytes (beta * bytes seconds of port time when alone) flow through the
 * sender's send port and the receiver's receive port, each shared equally
 * among the transfers through it (model_net.h says why equal shares and
 * not max-min).  Alone, a transfer thus takes alpha + beta * bytes, as in
 * the one-port model; and a transfer that never shared a port ends at
 * exactly ready + pat_model_cost(...), so that the compiled closed forms
 * (model_prog.c) agree bit for bit.
 *
 * Why one engine: the one-port replay had three (a fast dataflow pass, an
 * event engine, the compiled programs) that had to agree bit for bit; the
 * fast pass and the event engine are gone.  The compiled programs stay
 * (model_prog.h) because the selection needs RING & co. at P = 1024 in
 * microseconds: their closed form is exact here too (a uniform lockstep
 * schedule never puts two transfers on one port), and their port groups
 * are served by processor sharing, which is what this engine does for a
 * port whose transfers' other ends are free; mesh steps defer to this
 * engine.

 * The engine is driven by time: a heap of timed events (a transfer becomes
 * active; a rank wakes up to post sends) and the network's earliest
 * completion (model_net.c: rates are recomputed only in the component of
 * ports a change touches, so a port carrying one transfer at a time costs
 * O(log n) per event, and a mesh such as DIRECT's O(its transfers)).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_impl.h"
#include "model/model_net.h"

/* Find, among ops[lo, hi) of one rank and one step (sorted receives first,
 * then by peer), the op of class `send` (1: send/signal-send, 0: receive)
 * whose peer is `peer`.  Returns its index or (size_t)-1. */
static size_t replay_find(const pat_op *ops, size_t lo, size_t hi, int send, int peer) {
  if (hi - lo <= 8) { /* the usual step: a send and a receive */
    for (size_t i = lo; i < hi; i++)
      if (ops[i].peer == peer && pat_is_send(ops[i].kind) == send) return i;
    return (size_t)-1;
  }
  /* key: (class, peer) with receives (class 0) first */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = pat_is_send(ops[mid].kind);
    if (c < send || (c == send && ops[mid].peer < peer))
      lo = mid + 1;
    else
      hi = mid;
  }
  return ops[lo].peer == peer && pat_is_send(ops[lo].kind) == send ? lo : (size_t)-1;
}

#define EV_ACTIVATE 0 /* transfer id becomes active (ready + alpha) */
#define EV_WAKE 1     /* rank id may post sends (data flow: its start, or its own block arrives) */
#define EV_APPLY 2    /* a reduction's receive op id is applied (combined or copied in): its dependants may go */

typedef struct fev {
  double t;
  int kind;
  size_t id;
} fev;

typedef struct fxfer { /* indexed by the send op */
  int from, to, step, eager;
  int sport, rport;            /* its ports in the fluid network (port numbers: pat_replay_fluid) */
  double blocks, alpha, work;  /* work: beta * bytes, port-seconds */
  int paced;                   /* pacing counts it (and may hold it, a forward): it leaves the node */
  double pace;                 /* its bytes at the pacing rate (pace_beta * bytes), s; 0 unless paced */
  int own;                     /* a send that carries part of its rank's own block: the first starts the
                                  rank's foreground; in a data flow it waits for the arrival and is never paced
                                  but in a reduction (exec/flow.c) */
  int heap;                    /* data flow: the ready heap it waits in (frk.ready) */
  double tsend, trecv;         /* when each op was posted (NAN: not yet) */
  double ready, finish_solo;   /* finish_solo = ready + cost, exact while it never shared a port */
  int state;                   /* 0 waiting, 1 latency, 2 active, 3 done */
  double end;
  size_t queued_next; /* the next transfer of its pair waiting behind it (NONE: none) */
} fxfer;

#define NONE ((size_t)-1)

/* A pair's transfers in activation order (model.h: one connection per pair). */
typedef struct fpair {
  uint64_t key; /* from * P + to + 1; 0: an empty slot */
  size_t moving, head, tail; /* the one in the network; the ones waiting behind it */
} fpair;

/* A min-heap of op indices in storage the replay owns (a rank's ready sends:
 * the data flow posts the lowest index first, as the schedule orders them). */
typedef struct idxheap {
  size_t *v;
  size_t n;
} idxheap;

static void ih_push(idxheap *h, size_t x) {
  size_t i = h->n++;
  while (i > 0 && h->v[(i - 1) / 2] > x) {
    h->v[i] = h->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->v[i] = x;
}

static size_t ih_pop(idxheap *h) {
  size_t top = h->v[0], last = h->v[--h->n], i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->v[c + 1] < h->v[c]) c++;
    if (last <= h->v[c]) break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n > 0) h->v[i] = last;
  return top;
}

typedef struct frk {
  /* lockstep */
  size_t pos, end, rend;
  int step, remaining;
  double entry, stepmax;
  double combine; /* a reduction: gamma * the bytes its step's reducing receives bring, spent after the step */
  /* data flow */
  idxheap ready[4];   /* its unposted sends whose receives are all in: [1] own-block ones, [0] forwards
                         pacing may hold, [2] forwards it never holds (inside a node, or no pacing), [3] a
                         reduction's that wait for the arrival and that pacing may hold (they leave the node) */
  int inflight, left; /* sends in flight; ops not completed */
  double start, last; /* when it starts running the schedule; its last completion so far */
  double wake_at;     /* a wake-up is pending at this time (INFINITY: none) */
  double pace_end;    /* pacing: when the bytes it posted so far are estimated to have left its link */
  double cpu_free;    /* a reduction as a data flow: when its thread is done applying the receives so far */
  int fg;
} frk;

/* The replay's arrays in the space (the network's follow: model_net.h). */
enum { SLOT_RANKS, SLOT_MATCH, SLOT_XFERS, SLOT_OPDONE, SLOT_WORK, SLOT_PAIRS, SLOT_NEED, SLOT_DEP_OFF, SLOT_DEP,
       SLOT_READY, SLOT_EVENTS, SLOT_DEPS_SCRATCH };
_Static_assert(SLOT_DEPS_SCRATCH < PAT_NET_SLOT_FLOWS, "the replay's slots and the network's overlap");

typedef struct fl {
  pat_replay *R;
  pat_replay_space *sp;
  const pat_op *ops;
  size_t nops;
  int window; /* 0: lockstep */
  int reduce; /* a reduction as a data flow (the dependencies of rd_deps, receives applied: EV_APPLY) */
  frk *rk;
  size_t *match;
  fxfer *x;         /* per op; only send ops' entries are used */
  double *opdone;   /* per op: completion time (NAN: not yet) */
  int *need;        /* data flow, per send op: receives it still waits for (a reduction's, per op: rd_deps) */
  size_t *dep_off, *dep; /* data flow, per receive op: the sends waiting for it (a reduction's, per op) */
  size_t *ready_mem;     /* data flow: the ranks' ready heaps (each send is in at most one, once) */
  fpair *pair;           /* open addressing, npair (a power of two) slots */
  size_t npair;
  fev *heap;
  size_t nheap, capheap;
  pat_net net;       /* the ports and the active transfers */
  int *work, nwork; /* lockstep: ranks whose step is done */
} fl;

/* ---- heap ---- */
static int fev_less(const fev *a, const fev *b) {
  if (a->t != b->t) return a->t < b->t;
  if (a->kind != b->kind) return a->kind < b->kind;
  return a->id < b->id;
}

static int fpush(fl *F, double t, int kind, size_t id) {
  if (F->nheap == F->capheap) {
    size_t cap = F->capheap ? 2 * F->capheap : 256;
    fev *h = pat_space_grow(F->sp, SLOT_EVENTS, cap * sizeof *h);
    if (!h) return PAT_ENOMEM;
    F->heap = h;
    F->capheap = cap;
  }
  fev e = {t, kind, id};
  size_t i = F->nheap++;
  while (i > 0) {
    size_t up = (i - 1) / 2;
    if (!fev_less(&e, &F->heap[up])) break;
    F->heap[i] = F->heap[up];
    i = up;
  }
  F->heap[i] = e;
  return PAT_OK;
}

static fev fpop(fl *F) {
  fev top = F->heap[0], last = F->heap[--F->nheap];
  size_t i = 0, n = F->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && fev_less(&F->heap[c + 1], &F->heap[c])) c++;
    if (!fev_less(&F->heap[c], &last)) break;
    F->heap[i] = F->heap[c];
    i = c;
  }
  if (n > 0) F->heap[i] = last;
  return top;
}

/* ---- matching: every op with its counterpart (same step, opposite class) ---- */
static int f_match(fl *F) {
  const pat_sched *s = F->R->s;
  const pat_op *ops = s->ops;
  for (int r = 0; r < s->P; r++)
    for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
      const pat_op *o = &ops[i];
      int p = o->peer;
      if (p < 0 || p >= s->P || p == r || o->kind < PAT_OP_SEND || o->kind > PAT_OP_SIGNAL_RECV) return PAT_EINVAL;
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
      size_t m = replay_find(ops, lo, end, !pat_is_send(o->kind), r);
      if (m == (size_t)-1) return PAT_EINVAL;
      int sk = pat_is_send(o->kind) ? o->kind : ops[m].kind, rk = pat_is_send(o->kind) ? ops[m].kind : o->kind;
      if (!((sk == PAT_OP_SEND && rk == PAT_OP_RECV) || (sk == PAT_OP_SIGNAL_SEND && rk == PAT_OP_SIGNAL_RECV)))
        return PAT_EINVAL;
      F->match[i] = m;
    }
  return PAT_OK;
}

/* ---- the contract ---- */

static int f_ready(fl *F, size_t sop);

/* Data flow: send op sop has all its receives in; it waits for its post. */
static int df_heap(const fxfer *x, int reduce) { return x->own ? (reduce && x->paced ? 3 : 1) : x->paced ? 0 : 2; }
static void df_ready(fl *F, size_t sop) {
  const fxfer *x = &F->x[sop];
  ih_push(&F->rk[x->from].ready[x->heap], sop);
}
static int df_post_sends(fl *F, int r, double now);
static int ls_advance(fl *F, int r);

/* A reduction as a data flow, in the executor's order (pat_reduce_waits):
 * receive i of rank r may be applied at `now` (it has arrived and its turn
 * has come).  The rank's thread applies one receive at a time, a reducing
 * one in gamma * its bytes; never before the rank arrives, since nothing of
 * its run starts before (df_start). */
static int rd_apply(fl *F, size_t i, int r, double now) {
  frk *k = &F->rk[r];
  double at = now > k->cpu_free ? now : k->cpu_free;
  const pat_op *o = &F->ops[i];
  if (o->flags & PAT_OPF_REDUCE) at += F->R->mp->gamma * pat_replay_op_bytes(F->R, o, pat_model_op_blocks(o));
  k->cpu_free = at;
  return fpush(F, at, EV_APPLY, i);
}

/* Op i of rank r is done at t (a send complete, a receive applied): its dependants move. */
static int rd_release(fl *F, size_t i, int r, double t) {
  frk *k = &F->rk[r];
  if (t > k->last) k->last = t;
  if (--k->left == 0) F->R->fin[r] = k->last > F->R->a[r] ? k->last : F->R->a[r];
  for (size_t d = F->dep_off[i]; d < F->dep_off[i + 1]; d++) {
    size_t y = F->dep[d];
    if (--F->need[y] > 0) continue;
    int rc = pat_is_send(F->ops[y].kind) ? (df_ready(F, y), PAT_OK) : rd_apply(F, y, r, t);
    if (rc) return rc;
  }
  return df_post_sends(F, r, t);
}

/* A reduction's op i of rank r completed at t: a send is done; a receive has arrived (applied once its turn
 * comes: rd_apply, then EV_APPLY). */
static int rd_op_done(fl *F, size_t i, int r, double t) {
  if (pat_is_send(F->ops[i].kind)) {
    F->opdone[i] = t;
    F->rk[r].inflight--;
    return rd_release(F, i, r, t);
  }
  return --F->need[i] == 0 ? rd_apply(F, i, r, t) : PAT_OK;
}

/* EV_APPLY: receive i is applied at t. */
static int rd_applied(fl *F, size_t i, double t) {
  F->opdone[i] = t;
  return rd_release(F, i, F->x[F->match[i]].to, t);
}

/* An op of rank r completed at t. */
static int f_op_done(fl *F, size_t i, double t) {
  const pat_op *o = &F->ops[i];
  int r = o->kind == PAT_OP_SEND || o->kind == PAT_OP_SIGNAL_SEND ? F->x[i].from : F->x[F->match[i]].to;
  frk *k = &F->rk[r];
  if (F->reduce) return rd_op_done(F, i, r, t);
  F->opdone[i] = t;
  if (F->window == 0) {
    if (t > k->stepmax) k->stepmax = t;
    if (--k->remaining == 0) F->work[F->nwork++] = r;
    return PAT_OK;
  }
  if (t > k->last) k->last = t;
  k->left--;
  if (pat_is_send(o->kind)) {
    k->inflight--;
  } else {
    for (size_t d = F->dep_off[i]; d < F->dep_off[i + 1]; d++)
      if (--F->need[F->dep[d]] == 0) df_ready(F, F->dep[d]);
  }
  if (k->left == 0) F->R->fin[r] = k->last > F->R->a[r] ? k->last : F->R->a[r];
  return df_post_sends(F, r, t);
}

static int f_drain(fl *F) {
  while (F->nwork > 0) {
    int rc = ls_advance(F, F->work[--F->nwork]);
    if (rc) return rc;
  }
  return PAT_OK;
}

/* Transfer sop ended at t. */
static int f_end(fl *F, size_t sop, double t) {
  fxfer *x = &F->x[sop];
  pat_replay *R = F->R;
  x->state = 3;
  x->end = t;
  R->transfers++;
  pat_replay_trace(R, x->step, x->from, x->to, x->eager, x->blocks, x->ready, x->ready, t);
  int rc = f_op_done(F, sop, t);
  size_t rop = F->match[sop];
  if (!rc && !isnan(x->trecv)) rc = f_op_done(F, rop, x->trecv > t ? x->trecv : t);
  if (!rc) rc = f_drain(F);
  return rc;
}

/* One op of transfer sop was posted: if the contract lets it start, it is
 * ready; a late receive of a finished eager transfer completes at once. */
static int f_posted(fl *F, size_t sop) {
  fxfer *x = &F->x[sop];
  if (x->state == 3) { /* eager, over before its receive was posted */
    int rc = f_op_done(F, F->match[sop], x->trecv > x->end ? x->trecv : x->end);
    return rc ? rc : f_drain(F);
  }
  if (x->state != 0 || isnan(x->tsend)) return PAT_OK;
  if (!x->eager && isnan(x->trecv)) return PAT_OK;
  x->ready = x->eager || x->tsend >= x->trecv ? x->tsend : x->trecv;
  return f_ready(F, sop);
}

static int f_ready(fl *F, size_t sop) {
  fxfer *x = &F->x[sop];
  x->state = 1;
  x->finish_solo = x->ready + (x->alpha + x->work);
  return fpush(F, x->ready + x->alpha, EV_ACTIVATE, sop);
}

/* Lockstep: rank r's step is done (or it has not started): enter the next. */
static int ls_advance(fl *F, int r) {
  pat_replay *R = F->R;
  frk *k = &F->rk[r];
  const pat_op *ops = F->ops;
  double prev = k->step < 0 ? -INFINITY : k->stepmax + k->combine;
  if (k->end == k->rend) {
    R->fin[r] = prev > R->a[r] ? prev : R->a[r];
    k->step = INT32_MAX;
    return PAT_OK;
  }
  size_t pos = k->end, end = pos;
  int t = ops[pos].step;
  k->combine = 0;
  for (; end < k->rend && ops[end].step == t; end++) {
    if (!k->fg && F->x[end].own) {
      k->fg = 1;
      R->fg[r] = t;
    }
    if (ops[end].flags & PAT_OPF_REDUCE)
      k->combine += R->mp->gamma * pat_replay_op_bytes(R, &ops[end], pat_model_op_blocks(&ops[end]));
  }
  double floor = pat_replay_floor(R, r, k->fg);
  k->pos = pos;
  k->end = end;
  k->step = t;
  k->remaining = (int)(end - pos);
  k->entry = prev > floor ? prev : floor;
  k->stepmax = -INFINITY;
  /* post the receives, then the sends (the order only matters for ties) */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = pos; i < end; i++) {
      int send = pat_is_send(ops[i].kind);
      if (send != pass) continue;
      size_t sop = send ? i : F->match[i];
      if (send)
        F->x[sop].tsend = k->entry;
      else
        F->x[sop].trecv = k->entry;
      int rc = f_posted(F, sop);
      if (rc) return rc;
    }
  return PAT_OK;
}

/* Data flow: post rank r's sends at `now` while the window allows, the
 * first held one first; if one is held only later (its own block), or the
 * rank has not started, wake up then. */
static int df_post_sends(fl *F, int r, double now) {
  pat_replay *R = F->R;
  frk *k = &F->rk[r];
  if (now < k->start) {
    if (k->wake_at > k->start) {
      k->wake_at = k->start;
      return fpush(F, k->start, EV_WAKE, (size_t)r);
    }
    return PAT_OK;
  }
  /* the lowest ready send that may go now: its own block's once the rank
   * has arrived; a forward unless pacing holds it; a reduction's that leaves
   * the node both */
  const int paced = R->mp->pace_beta > 0;
  while (k->inflight < F->window) {
    const double paced_from = k->pace_end - PAT_MODEL_PACE_LEAD_S; /* forwards wait until then */
    idxheap *own = &k->ready[1], *fwd = &k->ready[0], *both = &k->ready[3];
    const int held = paced && paced_from > now, in = !(R->a[r] > now);
    const int may[4] = {fwd->n > 0 && !held, own->n > 0 && in, k->ready[2].n > 0, both->n > 0 && in && !held};
    int h = -1; /* the heap whose first send may go and comes first */
    for (int i = 0; i < 4; i++)
      if (may[i] && (h < 0 || k->ready[i].v[0] < k->ready[h].v[0])) h = i;
    size_t pick;
    if (h >= 0)
      pick = ih_pop(&k->ready[h]);
    else {
      double later = INFINITY;
      if (own->n > 0) later = R->a[r];
      if (fwd->n > 0 && paced_from < later) later = paced_from;
      if (both->n > 0) {
        double t = R->a[r] > paced_from ? R->a[r] : paced_from;
        if (t < later) later = t;
      }
      if (later < k->wake_at) {
        k->wake_at = later;
        return fpush(F, later, EV_WAKE, (size_t)r);
      }
      return PAT_OK;
    }
    k->inflight++;
    F->x[pick].tsend = now;
    k->pace_end = (k->pace_end > now ? k->pace_end : now) + F->x[pick].pace;
    int rc = f_posted(F, pick);
    if (rc) return rc;
  }
  return PAT_OK;
}

/* Data flow: which sends wait for which receives (a send waits for every receive of its rank that brings any byte
 * it sends).  Two spans share bytes where they share a block and their pieces [lo, hi) overlap; a span of count
 * <= 0 stands for its first block alone, and two such spans share nothing.  df_deps indexes a span under its run of
 * blocks clamped to 1..P. */
static int span_first(int P, const pat_span *sp) { return pat_mod_p(sp->first, P); }
static int span_nblocks(int P, const pat_span *sp) { return sp->count < 1 ? 1 : sp->count > P ? P : sp->count; }

/* A send's span listed under a block it covers: a receive that covers the block shares bytes with it where
 * their pieces [lo, hi) overlap, unless both spans are empty (count <= 0).
 * maxhi: the largest hi of the block's list up to this entry, in order of lo. */
typedef struct dep_entry {
  size_t send;
  uint32_t lo, hi, maxhi, empty;
} dep_entry;

/* Ops a..z-1's sends by block, a counting sort: with list NULL count into bstart[b + 1]; else fill with bstart[b]
 * as the cursor (the caller shifts it back).  Returns the sends. */
static size_t df_index(const fl *F, int P, size_t a, size_t z, size_t *bstart, dep_entry *list) {
  size_t nsend = 0;
  for (size_t j = a; j < z; j++) {
    const pat_op *o = &F->ops[j];
    if (o->kind != PAT_OP_SEND) continue;
    nsend++;
    for (int k = 0; k < o->nspans; k++) {
      const pat_span *y = &o->span[k];
      int b = span_first(P, y), nb = span_nblocks(P, y);
      for (int t = 0; t < nb; t++, b = b + 1 < P ? b + 1 : 0)
        if (list)
          list[bstart[b]++] = (dep_entry){.send = j, .lo = y->lo, .hi = y->hi, .empty = y->count < 1};
        else
          bstart[b + 1]++;
    }
  }
  return nsend;
}

static int entry_before(const dep_entry *x, const dep_entry *y) {
  return x->lo < y->lo || (x->lo == y->lo && x->send < y->send);
}

static int entry_cmp(const void *a, const void *b) {
  const dep_entry *x = a, *y = b;
  return entry_before(x, y) ? -1 : entry_before(y, x);
}

/* A block's list in order of lo, with its running maximum of hi. */
static void df_sort_block(dep_entry *e, size_t n) {
  if (n > 24)
    qsort(e, n, sizeof *e, entry_cmp);
  else
    for (size_t u = 1; u < n; u++)
      for (size_t v = u; v > 0 && entry_before(&e[v], &e[v - 1]); v--) {
        dep_entry tmp = e[v];
        e[v] = e[v - 1];
        e[v - 1] = tmp;
      }
  for (size_t q = 0; q < n; q++) e[q].maxhi = q && e[q - 1].maxhi > e[q].hi ? e[q - 1].maxhi : e[q].hi;
}

static int size_cmp(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* A receive's sends, ascending (most receives, one piece, have a few) */
static void sort_sends(size_t *v, size_t n) {
  if (n > 24) {
    qsort(v, n, sizeof *v, size_cmp);
    return;
  }
  for (size_t u = 1; u < n; u++)
    for (size_t w = u; w > 0 && v[w - 1] > v[w]; w--) {
      size_t tmp = v[w];
      v[w] = v[w - 1];
      v[w - 1] = tmp;
    }
}

/* Testing all pairs of a rank's ops was O(ops^2) per rank, a large share of the selection's time with RELAY's
 * many pieces: a receive tests only the sends indexed under the blocks it covers, and of those only the ones whose
 * pieces can reach its own (a block's list in order of lo: from the first whose running maximum of hi passes the
 * receive's lo, up to the first that starts at its hi or after), each send once (stamp[j] == i).  The result is
 * the all-pairs one: the same sends per receive, ascending. */
static int df_deps(fl *F) {
  const pat_sched *s = F->R->s;
  const int P = s->P;
  size_t n = F->nops ? F->nops : 1, len = 0, cap = 0, lcap = 0;
  /* one scratch array: the block index (P + 1), the stamps (n), then the per-block lists */
  size_t *bstart = pat_space_get(F->sp, SLOT_DEPS_SCRATCH, ((size_t)P + 1 + n) * sizeof *bstart),
         *stamp = bstart ? bstart + P + 1 : NULL;
  dep_entry *list = NULL;
  F->dep_off = pat_space_zeroed(F->sp, SLOT_DEP_OFF, (F->nops + 1) * sizeof *F->dep_off);
  F->need = pat_space_zeroed(F->sp, SLOT_NEED, n * sizeof *F->need);
  int rc = bstart && stamp && F->dep_off && F->need ? PAT_OK : PAT_ENOMEM;
  for (size_t i = 0; i < F->nops && !rc; i++) stamp[i] = (size_t)-1;
  for (int r = 0; r < P && !rc; r++) {
    const size_t a = s->rank_start[r], z = s->rank_start[r + 1];
    memset(bstart, 0, ((size_t)P + 1) * sizeof *bstart);
    size_t nsend = df_index(F, P, a, z, bstart, NULL);
    for (int b = 0; b < P; b++) bstart[b + 1] += bstart[b];
    if (bstart[P] > lcap || !list) { /* the lists follow the stamps in the scratch array */
      lcap = bstart[P] > lcap ? bstart[P] : lcap;
      size_t *grown = pat_space_grow(F->sp, SLOT_DEPS_SCRATCH,
                                     ((size_t)P + 1 + n) * sizeof *grown + (lcap ? lcap : 1) * sizeof *list);
      if (!grown) {
        rc = PAT_ENOMEM;
        break;
      }
      bstart = grown;
      stamp = grown + P + 1;
      list = (dep_entry *)(stamp + n);
    }
    df_index(F, P, a, z, bstart, list);
    for (int b = P; b > 0; b--) bstart[b] = bstart[b - 1];
    bstart[0] = 0;
    for (int b = 0; b < P; b++) df_sort_block(list + bstart[b], bstart[b + 1] - bstart[b]);
    for (size_t i = a; i < z && !rc; i++) {
      const pat_op *o = &F->ops[i];
      F->dep_off[i + 1] = len;
      if (o->kind != PAT_OP_RECV) continue;
      if (len + nsend > cap) { /* a receive adds each send at most once */
        size_t c = 2 * cap > len + nsend ? 2 * cap : len + nsend, *d = pat_space_grow(F->sp, SLOT_DEP, c * sizeof *d);
        if (!d) {
          rc = PAT_ENOMEM;
          break;
        }
        F->dep = d;
        cap = c;
      }
      for (int k = 0; k < o->nspans; k++) {
        const pat_span *x = &o->span[k];
        int b = span_first(P, x), nb = span_nblocks(P, x);
        for (int t = 0; t < nb; t++, b = b + 1 < P ? b + 1 : 0) {
          size_t q = bstart[b], end = bstart[b + 1], top = end;
          while (q < top) { /* the first whose running maximum of hi passes lo: none before it reaches lo */
            size_t mid = q + (top - q) / 2;
            if (list[mid].maxhi <= x->lo)
              q = mid + 1;
            else
              top = mid;
          }
          for (; q < end && list[q].lo < x->hi; q++) {
            const dep_entry *y = &list[q];
            if (y->hi <= x->lo || (y->empty && x->count < 1) || stamp[y->send] == i) continue;
            stamp[y->send] = i;
            F->dep[len++] = y->send;
            F->need[y->send]++;
          }
        }
      }
      sort_sends(F->dep + F->dep_off[i], len - F->dep_off[i]);
      F->dep_off[i + 1] = len;
    }
  }
  return rc;
}

/* A reduction's dependencies (pat_reduce_waits, the executor's order):
 * each op's dependants (dep_off, dep) and what each op waits for (need; a
 * receive its arrival too).  Pairs of a rank's ops, as the executor finds
 * them: the all-reduces' schedules have a few ops per rank and step. */
static int rd_deps(fl *F) {
  const pat_sched *s = F->R->s;
  const size_t n = F->nops;
  F->dep_off = pat_space_zeroed(F->sp, SLOT_DEP_OFF, (n + 1) * sizeof *F->dep_off);
  F->need = pat_space_zeroed(F->sp, SLOT_NEED, (n ? n : 1) * sizeof *F->need);
  size_t *pos = pat_space_get(F->sp, SLOT_DEPS_SCRATCH, (n ? n : 1) * sizeof *pos);
  if (!F->dep_off || !F->need || !pos) return PAT_ENOMEM;
  for (int r = 0; r < s->P; r++)
    for (size_t y = s->rank_start[r]; y < s->rank_start[r + 1]; y++) {
      if (!pat_is_send(F->ops[y].kind)) F->need[y] = 1; /* its arrival */
      for (size_t x = s->rank_start[r]; x < s->rank_start[r + 1]; x++)
        if (x != y && pat_reduce_waits(s->P, F->ops, y, x)) {
          F->dep_off[x + 1]++;
          F->need[y]++;
        }
    }
  for (size_t x = 0; x < n; x++) F->dep_off[x + 1] += F->dep_off[x];
  F->dep = pat_space_get(F->sp, SLOT_DEP, (F->dep_off[n] ? F->dep_off[n] : 1) * sizeof *F->dep);
  if (!F->dep) return PAT_ENOMEM;
  memcpy(pos, F->dep_off, n * sizeof *pos);
  for (int r = 0; r < s->P; r++)
    for (size_t y = s->rank_start[r]; y < s->rank_start[r + 1]; y++)
      for (size_t x = s->rank_start[r]; x < s->rank_start[r + 1]; x++)
        if (x != y && pat_reduce_waits(s->P, F->ops, y, x)) F->dep[pos[x]++] = y;
  return PAT_OK;
}

static int df_start(fl *F) {
  pat_replay *R = F->R;
  const pat_sched *s = R->s;
  if (!(F->ready_mem = pat_space_get(F->sp, SLOT_READY, (F->nops ? F->nops : 1) * sizeof *F->ready_mem)))
    return PAT_ENOMEM;
  size_t *mem = F->ready_mem;
  for (size_t i = 0; i < F->nops; i++)
    if (pat_is_send(F->ops[i].kind)) F->x[i].heap = df_heap(&F->x[i], F->reduce);
  for (int r = 0; r < R->P; r++) /* each heap gets room for all its rank's sends of its kind */
    for (int h = 0; h < 4; h++) {
      F->rk[r].ready[h].v = mem;
      for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++)
        if (pat_is_send(F->ops[i].kind) && F->x[i].heap == h) mem++;
    }
  for (size_t i = 0; i < F->nops; i++)
    if (pat_is_send(F->ops[i].kind) && F->need[i] == 0) df_ready(F, i);
  for (int r = 0; r < R->P; r++) {
    frk *k = &F->rk[r];
    /* a reduction's run is posted by its call: nothing of it starts before the arrival */
    k->start = R->bg < R->a[r] && !F->reduce ? R->bg : R->a[r];
    k->last = -INFINITY;
    k->wake_at = INFINITY;
    k->pace_end = -INFINITY;
    k->cpu_free = -INFINITY;
    k->left = (int)(s->rank_start[r + 1] - s->rank_start[r]);
    if (k->left == 0) R->fin[r] = R->a[r];
    for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1] && !k->fg; i++)
      if (F->x[i].own) {
        k->fg = 1;
        R->fg[r] = F->ops[i].step;
      }
  }
  /* every receive is posted when its rank starts */
  for (int r = 0; r < R->P; r++)
    for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++)
      if (!pat_is_send(F->ops[i].kind)) F->x[F->match[i]].trecv = F->rk[r].start;
  for (int r = 0; r < R->P; r++) {
    int rc = df_post_sends(F, r, F->rk[r].start);
    if (rc) return rc;
  }
  return PAT_OK;
}

/* ---- pairs: one connection each ---- */

static fpair *pair_of(fl *F, const fxfer *x) {
  const uint64_t key = (uint64_t)x->from * (uint64_t)F->R->P + (uint64_t)x->to + 1;
  size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 17) & (F->npair - 1);
  while (F->pair[i].key != key && F->pair[i].key != 0) i = (i + 1) & (F->npair - 1);
  if (F->pair[i].key == 0) F->pair[i] = (fpair){.key = key, .moving = NONE, .head = NONE, .tail = NONE};
  return &F->pair[i];
}

/* Transfer sop's latency is over: its bytes move now, or after those of its pair's transfers ahead of it. */
static int pair_activate(fl *F, size_t sop, double now) {
  fxfer *x = &F->x[sop];
  fpair *q = pair_of(F, x);
  x->queued_next = NONE;
  if (q->moving != NONE) {
    if (q->tail == NONE)
      q->head = sop;
    else
      F->x[q->tail].queued_next = sop;
    q->tail = sop;
    x->finish_solo = INFINITY; /* set when it moves */
    return PAT_OK;
  }
  q->moving = sop;
  x->state = 2;
  return pat_net_add(&F->net, sop, x->sport, x->rport, now, x->work, x->finish_solo);
}

/* Transfer sop's bytes are all through at `now`: the next of its pair moves. */
static int pair_next(fl *F, size_t sop, double now) {
  fpair *q = pair_of(F, &F->x[sop]);
  q->moving = q->head;
  if (q->head == NONE) return PAT_OK;
  fxfer *y = &F->x[q->head];
  q->head = y->queued_next;
  if (q->head == NONE) q->tail = NONE;
  y->state = 2;
  y->finish_solo = now + y->work;
  return pat_net_add(&F->net, (size_t)(y - F->x), y->sport, y->rport, now, y->work, y->finish_solo);
}

/* ---- the loop ---- */

static int f_run(fl *F) {
  double now = -INFINITY;
  for (;;) {
    double tc = INFINITY;
    size_t idc = 0;
    int have = pat_net_next(&F->net, &tc, &idc);
    if (F->nheap > 0 && (!have || F->heap[0].t <= tc)) {
      fev e = fpop(F);
      if (e.t > now) now = e.t;
      if (e.kind == EV_WAKE) {
        F->rk[e.id].wake_at = INFINITY;
        int rc = df_post_sends(F, (int)e.id, now);
        if (rc) return rc;
        continue;
      }
      if (e.kind == EV_APPLY) {
        int rc = rd_applied(F, e.id, now);
        if (rc) return rc;
        continue;
      }
      fxfer *x = &F->x[e.id];
      int rc;
      if (x->work <= 0) { /* nothing to move: over once the latency is */
        rc = f_end(F, e.id, x->finish_solo > now ? x->finish_solo : now);
      } else {
        rc = pair_activate(F, e.id, now);
      }
      if (rc) return rc;
      continue;
    }
    if (!have) break; /* nothing left to happen */
    if (tc > now) now = tc;
    const int solo = F->net.fl[idc].solo;
    const double end = solo ? F->x[idc].finish_solo : now;
    int rc = pat_net_remove(&F->net, idc, now);
    if (!rc) rc = pair_next(F, idc, end);
    if (!rc) rc = f_end(F, idc, end);
    if (rc) return rc;
  }
  return PAT_OK;
}

static int replay_fluid(pat_replay *R, pat_replay_space *sp) {
  const pat_sched *s = R->s;
  const int P = R->P;
  fl F;
  memset(&F, 0, sizeof F);
  F.R = R;
  F.sp = sp;
  F.ops = s->ops;
  F.nops = s->nops;
  F.window = s->send_window > 0 ? s->send_window : 0;
  size_t n = s->nops ? s->nops : 1;
  F.rk = pat_space_zeroed(sp, SLOT_RANKS, (size_t)P * sizeof *F.rk);
  F.match = pat_space_get(sp, SLOT_MATCH, n * sizeof *F.match);
  F.x = pat_space_zeroed(sp, SLOT_XFERS, n * sizeof *F.x);
  F.opdone = pat_space_get(sp, SLOT_OPDONE, n * sizeof *F.opdone);
  F.work = pat_space_get(sp, SLOT_WORK, (size_t)P * sizeof(int));
  int rc = PAT_OK;
  /* Ports: rank r sends through r and receives through P + r; where nodes share their links
   * (shared_links), a transfer between two nodes goes through its nodes' ports instead: node h
   * sends through 2P + h and receives through 2P + H + h. */
  pat_nodes own = {0};
  const int shared = R->mp->node && R->mp->shared_links;
  const pat_nodes *np = R->mp->nodes && R->mp->nodes->P == P ? R->mp->nodes : &own;
  if (shared && np == &own && pat_nodes_make(P, R->mp->node, &own) != PAT_OK) rc = PAT_ENOMEM;
  const int H = shared && !rc ? np->H : 0;
  if (!F.rk || !F.match || !F.x || !F.opdone || !F.work || pat_net_init(&F.net, 2 * P + 2 * H, n, sp))
    rc = PAT_ENOMEM;
  size_t want = 2 * (s->nops < (size_t)P * (size_t)P ? s->nops : (size_t)P * (size_t)P) + 2;
  for (F.npair = 16; F.npair < want; F.npair *= 2) {
  }
  F.pair = rc ? NULL : pat_space_zeroed(sp, SLOT_PAIRS, F.npair * sizeof *F.pair);
  if (!rc && !F.pair) rc = PAT_ENOMEM;
  if (!rc) rc = f_match(&F);
  for (size_t i = 0, r = 0; i < s->nops && !rc; i++) {
    F.opdone[i] = NAN;
    while (s->rank_start[r + 1] <= i) r++; /* ops are sorted by rank */
    /* every byte of a reduction holds its rank's own contribution: all of its steps wait for the arrival */
    const int reduction = (s->flags & PAT_SCHED_REDUCE) && s->ops[i].nspans > 0;
    F.x[i].own = reduction;
    if (!pat_is_send(s->ops[i].kind)) continue;
    fxfer *x = &F.x[i];
    x->from = (int)r;
    x->to = s->ops[i].peer;
    x->sport = x->from;
    x->rport = P + x->to;
    if (shared && np->of[x->from] != np->of[x->to]) {
      x->sport = 2 * P + np->of[x->from];
      x->rport = 2 * P + H + np->of[x->to];
    }
    x->step = s->ops[i].step;
    x->blocks = pat_model_op_blocks(&s->ops[i]);
    pat_hockney h = pat_replay_pair(R, x->from, x->to);
    x->alpha = h.alpha;
    double bytes = pat_replay_op_bytes(R, &s->ops[i], x->blocks);
    x->work = h.beta * bytes;
    /* the executor paces only what leaves the node (exec/flow.c) */
    const int same_node = R->mp->node && R->mp->node[x->from] == R->mp->node[x->to];
    x->paced = R->mp->pace_beta > 0 && !same_node;
    x->pace = x->paced ? R->mp->pace_beta * bytes : 0;
    x->own = reduction ||
             (s->ops[i].kind == PAT_OP_SEND && pat_spans_touch_block(P, s->ops[i].nspans, s->ops[i].span, (int)r));
    x->eager = pat_replay_eager(R, bytes);
    x->tsend = x->trecv = NAN;
  }
  F.reduce = F.window > 0 && (s->flags & PAT_SCHED_REDUCE);
  for (size_t i = 0; i < s->nops && !rc && F.window > 0 && !F.reduce; i++)
    if (s->ops[i].flags & PAT_OPF_REDUCE) rc = PAT_EINVAL; /* a combination outside a reduction */
  if (!rc && F.window > 0) rc = F.reduce ? rd_deps(&F) : df_deps(&F);
  if (!rc) {
    if (F.window == 0) {
      for (int r = 0; r < P; r++) {
        F.rk[r].step = -1;
        F.rk[r].pos = F.rk[r].end = s->rank_start[r];
        F.rk[r].rend = s->rank_start[r + 1];
      }
      for (int r = P - 1; r >= 0; r--) F.work[F.nwork++] = r;
      rc = f_drain(&F);
    } else {
      rc = df_start(&F);
    }
  }
  if (!rc) rc = f_run(&F);
  /* everything must have happened: an op without its partner leaves a rank stuck */
  for (size_t i = 0; i < s->nops && !rc; i++)
    if (isnan(F.opdone[i])) rc = PAT_EINVAL;
  for (int r = 0; r < P && !rc && F.window == 0; r++)
    if (F.rk[r].step != INT32_MAX) rc = PAT_EINVAL;
  pat_nodes_free(&own);
  return rc;
}

/* ------------------------------------------------------------------ */
/* The entry points (model.h): the replay of a whole schedule             */

static int replay(pat_replay_space *sp, const pat_sched *s, const double *arrival, const pat_model_params *mp,
                  double block_bytes, const double *block_size, pat_model_result *out) {
  if (!s || !mp || !out || !s->finalized || s->self != PAT_ALL_RANKS || s->P < 1 || !(block_bytes >= 0))
    return PAT_EINVAL;
  const int P = s->P;
  if (block_size)
    for (int j = 0; j < P; j++)
      if (!(block_size[j] >= 0) || !isfinite(block_size[j])) return PAT_EINVAL;
  double amin = 0;
  if (arrival) {
    amin = arrival[0];
    for (int i = 1; i < P; i++)
      if (arrival[i] < amin) amin = arrival[i];
    for (int i = 0; i < P; i++)
      if (!isfinite(arrival[i])) return PAT_EINVAL;
  }
  double *a = malloc((size_t)P * sizeof *a), *fin = malloc((size_t)P * sizeof *fin);
  int *fg = malloc((size_t)P * sizeof *fg);
  if (!a || !fin || !fg) {
    free(a);
    free(fin);
    free(fg);
    return PAT_ENOMEM;
  }
  for (int i = 0; i < P; i++) {
    a[i] = arrival ? arrival[i] - amin : 0.0;
    fg[i] = -1;
  }
  pat_replay R = {s, P, a, mp->bg_start - amin, amin, mp, pat_model_link(mp, s->alg), block_bytes, block_size, fin, fg, 0};
  pat_replay_space own = {0};
  int rc = replay_fluid(&R, sp ? sp : &own);
  pat_replay_space_free(&own);
  out->engine = PAT_ENGINE_EVENT;
  if (rc == PAT_OK) {
    double sum = 0, emax = 0, fmax = 0, amax = 0;
    for (int i = 0; i < P; i++) {
      double e = fin[i] - a[i];
      sum += e;
      if (e > emax) emax = e;
      if (fin[i] > fmax) fmax = fin[i];
      if (a[i] > amax) amax = a[i];
      if (out->f) out->f[i] = fin[i] + amin;
      if (out->e) out->e[i] = e;
      if (out->fg_step) out->fg_step[i] = fg[i];
    }
    out->ebar = sum / P;
    out->emax = emax;
    out->r = fmax;
    out->omega = amax;
    out->transfers = R.transfers;
  }
  free(a);
  free(fin);
  free(fg);
  return rc;
}

int pat_model_replay(const pat_sched *s, const double *arrival, const pat_model_params *mp, double block_bytes,
                     pat_model_result *out) {
  return replay(NULL, s, arrival, mp, block_bytes, NULL, out);
}

int pat_model_replay_in(pat_replay_space *sp, const pat_sched *s, const double *arrival, const pat_model_params *mp,
                        double block_bytes, pat_model_result *out) {
  return replay(sp, s, arrival, mp, block_bytes, NULL, out);
}

int pat_model_replay_v(const pat_sched *s, const double *arrival, const pat_model_params *mp,
                       const double *block_size, pat_model_result *out) {
  if (!block_size) return PAT_EINVAL;
  return replay(NULL, s, arrival, mp, 0, block_size, out);
}
