/*
 * Schedule replay (see model.h for the semantics), the fast engine and the
 * receive-port lower bound.
 *
 * The fast engine is a dataflow pass for schedules whose transfers are all
 * rendezvous.  Then a transfer of step t can only queue on a port behind
 * other transfers of step t (a rank enters step t after all its earlier
 * transfers have ended), so each transfer is resolved as soon as both ends
 * have entered its step: end = max(entries) + cost, or, when one of its ports
 * carries several transfers in that step, by serving that port's transfers in
 * order of readiness once all of them are ready.  No event queue is needed;
 * each op is read once, in memory order per rank.  A transfer queued on two
 * busy ports, or an eager one, sends the whole replay to the event engine
 * (model_event.c), which implements the same rules in general.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

void pat_model_params_init(pat_model_params *mp, double alpha, double beta) {
  memset(mp, 0, sizeof *mp);
  mp->dflt.set = 1;
  mp->dflt.inter.alpha = alpha;
  mp->dflt.inter.beta = beta;
  mp->bg_start = -INFINITY;
  mp->engine = PAT_ENGINE_AUTO;
}

const pat_link_model *pat_model_link(const pat_model_params *mp, int alg) {
  if (alg >= 0 && alg < PAT_ALG_COUNT && mp->alg[alg].set) return &mp->alg[alg];
  return &mp->dflt;
}

double pat_model_tau(const pat_model_params *mp, int alg, double block_bytes) {
  return pat_model_cost(pat_model_link(mp, alg)->inter, block_bytes, 1.0);
}

size_t pat_replay_find(const pat_op *ops, size_t lo, size_t hi, int send, int peer) {
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

/* ------------------------------------------------------------------ */
/* Fast engine                                                          */

typedef struct gent { /* a transfer waiting on a contended port */
  double ready, cost, blocks;
  int peer;
} gent;

typedef struct fgroup {
  gent *v;
  int n, cap;
} fgroup;

typedef struct frank {
  size_t pos, end, rend; /* current step's ops [pos, end); this rank's ops end at rend */
  int step;              /* step being run; -1 before the first; INT32_MAX when finished */
  int remaining;         /* ops of the step not yet done */
  int nsend, nrecv;      /* send-class and receive-class ops in the step */
  int fg;
  double entry, stepmax;
  fgroup gs, gr; /* this step's transfers queued on the send / receive port */
} frank;

/* Ranks whose step is done wait in a FIFO ring of P slots (a rank is in it
 * at most once); their next ops are prefetched when they join it. */
typedef struct fast {
  pat_replay *R;
  frank *rk;
  int *q;
  int head, count;
} fast;

static void f_queue(fast *F, int r) {
  frank *x = &F->rk[r];
  if (x->end < x->rend) __builtin_prefetch(&F->R->s->ops[x->end]);
  int P = F->R->P, slot = F->head + F->count;
  F->q[slot >= P ? slot - P : slot] = r;
  F->count++;
}

static void f_done(fast *F, int r, double end) {
  frank *x = &F->rk[r];
  if (end > x->stepmax) x->stepmax = end;
  if (--x->remaining == 0) f_queue(F, r);
}

static int gent_cmp(const void *pa, const void *pb) {
  const gent *a = pa, *b = pb;
  if (a->ready != b->ready) return a->ready < b->ready ? -1 : 1;
  return (a->peer > b->peer) - (a->peer < b->peer);
}

/* Serve the transfers of one contended port in order of readiness. */
static void f_resolve(fast *F, int owner, fgroup *g, int owner_sends) {
  pat_replay *R = F->R;
  qsort(g->v, (size_t)g->n, sizeof *g->v, gent_cmp);
  double free_at = -INFINITY;
  for (int i = 0; i < g->n; i++) {
    double start = g->v[i].ready > free_at ? g->v[i].ready : free_at;
    double end = start + g->v[i].cost;
    free_at = end;
    int from = owner_sends ? owner : g->v[i].peer, to = owner_sends ? g->v[i].peer : owner;
    pat_replay_trace(R, F->rk[owner].step, from, to, 0, g->v[i].blocks, g->v[i].ready, start, end);
    f_done(F, owner, end);
    f_done(F, g->v[i].peer, end);
  }
  g->n = 0;
}

static int g_push(fgroup *g, int need, gent e) {
  if (g->cap < need) {
    gent *v = realloc(g->v, (size_t)need * sizeof *v);
    if (!v) return PAT_ENOMEM;
    g->v = v;
    g->cap = need;
  }
  g->v[g->n++] = e;
  return PAT_OK;
}

/* Both ends of the transfer described by op `o` of rank r (peer p) are in the step. */
static int f_pair(fast *F, int r, const pat_op *o, int p) {
  pat_replay *R = F->R;
  frank *x = &F->rk[r], *y = &F->rk[p];
  size_t m = pat_replay_find(R->s->ops, y->pos, y->end, !pat_is_send(o->kind), r);
  if (m == (size_t)-1) return PAT_EINVAL;
  const pat_op *q = &R->s->ops[m];
  int sendkind = pat_is_send(o->kind) ? o->kind : q->kind;
  int recvkind = pat_is_send(o->kind) ? q->kind : o->kind;
  if (!((sendkind == PAT_OP_SEND && recvkind == PAT_OP_RECV) ||
        (sendkind == PAT_OP_SIGNAL_SEND && recvkind == PAT_OP_SIGNAL_RECV)))
    return PAT_EINVAL;
  int from = pat_is_send(o->kind) ? r : p, to = from == r ? p : r;
  frank *snd = &F->rk[from], *rcv = &F->rk[to];
  double blocks = pat_model_op_blocks(o);
  if (pat_replay_eager(R, blocks)) return PAT_MODEL_FALLBACK;
  double cost = pat_model_cost(pat_replay_pair(R, from, to), R->block_bytes, blocks);
  double ready = x->entry > y->entry ? x->entry : y->entry;
  R->transfers++;
  int cs = snd->nsend > 1, cr = rcv->nrecv > 1;
  if (!cs && !cr) {
    double end = ready + cost;
    pat_replay_trace(R, x->step, from, to, 0, blocks, ready, ready, end);
    f_done(F, r, end);
    f_done(F, p, end);
    return PAT_OK;
  }
  if (cs && cr) return PAT_MODEL_FALLBACK; /* queued on two busy ports: order is global */
  int owner = cs ? from : to;
  frank *ow = &F->rk[owner];
  fgroup *g = cs ? &ow->gs : &ow->gr;
  int need = cs ? ow->nsend : ow->nrecv;
  gent e = {ready, cost, blocks, cs ? to : from};
  if (g_push(g, need, e)) return PAT_ENOMEM;
  if (g->n == need) f_resolve(F, owner, g, cs);
  return PAT_OK;
}

/* Rank r's previous step is done (or it has not started): enter the next. */
static int f_advance(fast *F, int r) {
  pat_replay *R = F->R;
  frank *x = &F->rk[r];
  const pat_op *ops = R->s->ops;
  double prev = x->step < 0 ? -INFINITY : x->stepmax;
  if (x->end == x->rend) {
    R->fin[r] = prev > R->a[r] ? prev : R->a[r];
    x->step = INT32_MAX;
    return PAT_OK;
  }
  size_t pos = x->end, end = pos;
  int t = ops[pos].step, ns = 0, nr = 0;
  for (; end < x->rend && ops[end].step == t; end++) {
    const pat_op *o = &ops[end];
    if (o->peer < 0 || o->peer >= R->P || o->peer == r) return PAT_EINVAL;
    if (pat_is_send(o->kind)) {
      ns++;
      if (!x->fg && o->kind == PAT_OP_SEND && pat_spans_touch_block(R->P, o->nspans, o->span, r)) {
        x->fg = 1;
        R->fg[r] = t;
      }
    } else {
      nr++;
    }
  }
  /* keep this rank's next ops coming into the cache: ranks advance in an
   * interleaved order, too many streams for the hardware prefetcher */
  const char *ahead = (const char *)&ops[end] + 256;
  if (ahead + 64 < (const char *)&ops[x->rend]) {
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
  }
  double floor = pat_replay_floor(R, r, x->fg);
  x->pos = pos;
  x->end = end;
  x->step = t;
  x->nsend = ns;
  x->nrecv = nr;
  x->remaining = (int)(end - pos);
  x->entry = prev > floor ? prev : floor;
  x->stepmax = -INFINITY;
  for (size_t i = pos; i < end; i++) {
    int p = ops[i].peer;
    if (F->rk[p].step == t) {
      int rc = f_pair(F, r, &ops[i], p);
      if (rc) return rc;
    } else if (F->rk[p].step > t) {
      return PAT_EINVAL; /* the partner went past this step without us */
    }
  }
  return PAT_OK;
}

int pat_replay_fast(pat_replay *R) {
  const int P = R->P;
  fast F = {R, calloc((size_t)P, sizeof(frank)), malloc((size_t)P * sizeof(int)), 0, 0};
  int rc = PAT_OK;
  if (!F.rk || !F.q) rc = PAT_ENOMEM;
  for (int r = 0; r < P && !rc; r++) {
    frank *x = &F.rk[r];
    x->step = -1;
    x->pos = x->end = R->s->rank_start[r];
    x->rend = R->s->rank_start[r + 1];
    f_queue(&F, r);
  }
  while (!rc && F.count > 0) {
    F.count--;
    int slot = F.head + F.count;
    int r = F.q[slot >= P ? slot - P : slot];
    rc = f_advance(&F, r);
  }
  for (int r = 0; r < P && !rc; r++)
    if (F.rk[r].step != INT32_MAX) rc = PAT_EINVAL; /* stuck: an op without its partner */
  if (F.rk)
    for (int r = 0; r < P; r++) {
      free(F.rk[r].gs.v);
      free(F.rk[r].gr.v);
    }
  free(F.rk);
  free(F.q);
  return rc;
}

/* ------------------------------------------------------------------ */

int pat_model_replay(const pat_sched *s, const double *arrival, const pat_model_params *mp, double block_bytes,
                     pat_model_result *out) {
  if (!s || !mp || !out || !s->finalized || s->self != PAT_ALL_RANKS || s->P < 1 || !(block_bytes >= 0))
    return PAT_EINVAL;
  const int P = s->P;
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
  pat_replay R = {s, P, a, mp->bg_start - amin, amin, mp, pat_model_link(mp, s->alg), block_bytes, fin, fg, 0};
  int rc = PAT_MODEL_FALLBACK;
  if (mp->engine != PAT_ENGINE_EVENT) {
    rc = pat_replay_fast(&R);
    out->engine = PAT_ENGINE_FAST;
  }
  if (rc == PAT_MODEL_FALLBACK) {
    for (int i = 0; i < P; i++) fg[i] = -1;
    R.transfers = 0;
    rc = pat_replay_event(&R);
    out->engine = PAT_ENGINE_EVENT;
  }
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

/* ------------------------------------------------------------------ */
/* Lower bound                                                          */

static int dbl_cmp(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

double pat_lower_bound(int P, const double *arrival, double tau, double *e_lb_out) {
  if (P < 1) return 0;
  if (P == 1) {
    if (e_lb_out) e_lb_out[0] = 0;
    return 0;
  }
  /* Serving releases in sorted order is optimal for one machine.  With the
   * sorted releases b_0 <= ... <= b_{P-1} and b_k removed (rank i's own):
   * f = max(pre_k + (P-1-k) tau, suf_k), pre_k = makespan of b_0..b_{k-1},
   * suf_k = makespan of b_{k+1}.. from an idle start (max-plus linearity). */
  double *b = malloc((size_t)P * sizeof *b), *pre = malloc((size_t)(P + 1) * sizeof *pre),
         *suf = malloc((size_t)(P + 1) * sizeof *suf);
  double amin = arrival[0], result = 0;
  if (!b || !pre || !suf) goto out;
  for (int i = 1; i < P; i++)
    if (arrival[i] < amin) amin = arrival[i];
  for (int i = 0; i < P; i++) b[i] = arrival[i] - amin;
  qsort(b, (size_t)P, sizeof *b, dbl_cmp);
  pre[0] = -INFINITY;
  for (int k = 0; k < P; k++) pre[k + 1] = (pre[k] > b[k] ? pre[k] : b[k]) + tau;
  /* suf[k] = makespan of b_k..b_{P-1} from an idle start:
   * suf[k] = max(b_k + (P-k) tau, suf[k+1]) */
  suf[P] = -INFINITY;
  for (int k = P - 1; k >= 0; k--) {
    double v = b[k] + (P - k) * tau;
    suf[k] = v > suf[k + 1] ? v : suf[k + 1];
  }
  double sum = 0;
  for (int i = 0; i < P; i++) {
    double ai = arrival[i] - amin;
    /* any k with b_k == a_i gives the same bound; take the first */
    int lo = 0, hi = P - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (b[mid] < ai)
        lo = mid + 1;
      else
        hi = mid;
    }
    int k = lo;
    double f1 = pre[k] + (P - 1 - k) * tau, f = f1 > suf[k + 1] ? f1 : suf[k + 1];
    double e = f - ai > 0 ? f - ai : 0;
    if (e_lb_out) e_lb_out[i] = e;
    sum += e;
  }
  result = sum / P;
out:
  free(b);
  free(pre);
  free(suf);
  return result;
}
