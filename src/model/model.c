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

#include "model/model_impl.h"

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
  uint64_t h_owner, h_peer; /* op signatures (see op_hash) */
} gent;

typedef struct fgroup {
  gent *v;
  int n, cap;
} fgroup;

typedef struct frank {
  size_t end, rend;  /* the next step starts at end; this rank's ops end at rend */
  int step;          /* step being run; -1 before the first; INT32_MAX when finished */
  int remaining;     /* ops of the step not yet done */
  int nsend, nrecv;  /* send-class and receive-class ops in the step */
  int fg;
  double entry, stepmax;
  uint64_t sig, got; /* signatures of the step's ops, and of the ops matched so far */
  fgroup gs, gr;     /* this step's transfers queued on the send / receive port */
} frank;

/* Ranks whose step is done wait on a stack (a rank is on it at most once). */
typedef struct fast {
  pat_replay *R;
  frank *rk;
  int *stack, sp;
  int bad;                       /* an op was matched with one its partner does not have */
  int uniform_pair, eager_on;    /* one (alpha, beta) for every pair; eager threshold set */
  double memo_blocks, memo_cost; /* the last cost computed */
} fast;

/* The second rank to enter a step matches its op with the first rank's
 * without looking it up: each op carries a signature hash(kind, peer), and a
 * step may only end when the signatures of the ops matched on a rank add up
 * to those of the ops it has.  (The event engine looks every match up.) */
static inline uint64_t op_hash(int kind, int peer) {
  uint64_t z = (((uint64_t)(uint32_t)peer << 3) | (unsigned)kind) * 0x9e3779b97f4a7c15ull;
  return z ^ (z >> 29);
}
static inline int peer_kind(int kind) { return kind & 1 ? kind + 1 : kind - 1; } /* SEND<->RECV, SIGNAL_* */

static inline void f_done(fast *F, int r, double end, uint64_t h) {
  frank *x = &F->rk[r];
  if (end > x->stepmax) x->stepmax = end;
  x->got += h;
  if (--x->remaining == 0) {
    if (x->got != x->sig) F->bad = 1;
    F->stack[F->sp++] = r;
  }
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
    const gent *e = &g->v[i];
    double start = e->ready > free_at ? e->ready : free_at;
    double end = start + e->cost;
    free_at = end;
    int from = owner_sends ? owner : e->peer, to = owner_sends ? e->peer : owner;
    pat_replay_trace(R, F->rk[owner].step, from, to, 0, e->blocks, e->ready, start, end);
    f_done(F, owner, end, e->h_owner);
    f_done(F, e->peer, end, e->h_peer);
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

/* Both ends of the transfer of op `o` (rank r, peer p) are in the step. */
static int f_pair(fast *F, int r, const pat_op *o, int p) {
  pat_replay *R = F->R;
  frank *x = &F->rk[r], *y = &F->rk[p];
  const int kind = o->kind, sends = kind & 1;
  const int from = sends ? r : p, to = sends ? p : r;
  double blocks = o->nspans == 1 && o->span[0].lo == 0 && o->span[0].hi == PAT_FRAC_ONE ? (double)o->span[0].count
                                                                                          : pat_model_op_blocks(o);
  if (F->eager_on && pat_replay_eager(R, blocks)) return PAT_MODEL_FALLBACK;
  double cost;
  if (F->uniform_pair && blocks == F->memo_blocks) { /* most transfers repeat the previous size */
    cost = F->memo_cost;
  } else {
    cost = pat_model_cost(pat_replay_pair(R, from, to), R->block_bytes, blocks);
    F->memo_blocks = blocks;
    F->memo_cost = cost;
  }
  double ready = x->entry > y->entry ? x->entry : y->entry;
  uint64_t hx = op_hash(kind, p), hy = op_hash(peer_kind(kind), r);
  R->transfers++;
  int cs = F->rk[from].nsend > 1, cr = F->rk[to].nrecv > 1;
  if (!cs && !cr) {
    double end = ready + cost;
    if (R->mp->trace) pat_replay_trace(R, x->step, from, to, 0, blocks, ready, ready, end);
    f_done(F, r, end, hx);
    f_done(F, p, end, hy);
    return PAT_OK;
  }
  if (cs && cr) return PAT_MODEL_FALLBACK; /* queued on two busy ports: the order is global */
  int owner = cs ? from : to;
  frank *ow = &F->rk[owner];
  fgroup *g = cs ? &ow->gs : &ow->gr;
  int need = cs ? ow->nsend : ow->nrecv;
  gent e = {ready, cost, blocks, owner == r ? p : r, owner == r ? hx : hy, owner == r ? hy : hx};
  if (g_push(g, need, e)) return PAT_ENOMEM;
  if (g->n == need) f_resolve(F, owner, g, cs);
  return PAT_OK;
}

/* Rank r's previous step is done (or it has not started): enter the next. */
static int f_advance(fast *F, int r) {
  pat_replay *R = F->R;
  frank *x = &F->rk[r];
  const pat_op *ops = R->s->ops;
  const unsigned P = (unsigned)R->P;
  double prev = x->step < 0 ? -INFINITY : x->stepmax;
  if (x->end == x->rend) {
    R->fin[r] = prev > R->a[r] ? prev : R->a[r];
    x->step = INT32_MAX;
    return PAT_OK;
  }
  const size_t pos = x->end;
  size_t end = pos;
  const int t = ops[pos].step;
  int ns = 0, nr = 0;
  uint64_t sig = 0;
  do {
    const pat_op *o = &ops[end];
    const unsigned peer = (unsigned)o->peer, kind = o->kind;
    if (peer >= P || peer == (unsigned)r || kind - 1u > 3u) return PAT_EINVAL;
    sig += op_hash((int)kind, (int)peer);
    if (kind & 1) {
      ns++;
      if (!x->fg && kind == PAT_OP_SEND && pat_spans_touch_block(R->P, o->nspans, o->span, r)) {
        x->fg = 1;
        R->fg[r] = t;
      }
    } else {
      nr++;
    }
    end++;
  } while (end < x->rend && ops[end].step == t);
  /* keep this rank's next ops coming into the cache: ranks advance in an
   * interleaved order, too many streams for the hardware prefetcher */
  const char *ahead = (const char *)&ops[end] + 256;
  if (ahead + 64 < (const char *)&ops[x->rend]) {
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
  }
  double floor = pat_replay_floor(R, r, x->fg);
  x->end = end;
  x->step = t;
  x->nsend = ns;
  x->nrecv = nr;
  x->remaining = (int)(end - pos);
  x->sig = sig;
  x->got = 0;
  x->entry = prev > floor ? prev : floor;
  x->stepmax = -INFINITY;
  for (size_t i = pos; i < end; i++) {
    int p = ops[i].peer, ps = F->rk[p].step;
    if (ps == t) {
      int rc = f_pair(F, r, &ops[i], p);
      if (rc) return rc;
    } else if (ps > t) {
      return PAT_EINVAL; /* the partner went past this step without us */
    }
  }
  return PAT_OK;
}

int pat_replay_fast(pat_replay *R) {
  const int P = R->P;
  fast F = {R, calloc((size_t)P, sizeof(frank)), malloc((size_t)P * sizeof(int)), 0, 0,
            !(R->mp->node && R->lm->has_intra), R->mp->eager_bytes > 0, NAN, 0};
  int rc = PAT_OK;
  if (!F.rk || !F.stack) rc = PAT_ENOMEM;
  for (int r = P - 1; r >= 0 && !rc; r--) {
    frank *x = &F.rk[r];
    x->step = -1;
    x->end = R->s->rank_start[r];
    x->rend = R->s->rank_start[r + 1];
    F.stack[F.sp++] = r;
  }
  while (!rc && F.sp > 0) {
    rc = f_advance(&F, F.stack[--F.sp]);
    if (F.bad && !rc) rc = PAT_EINVAL;
  }
  for (int r = 0; r < P && !rc; r++)
    if (F.rk[r].step != INT32_MAX) rc = PAT_EINVAL; /* stuck: an op without its partner */
  if (F.rk)
    for (int r = 0; r < P; r++) {
      free(F.rk[r].gs.v);
      free(F.rk[r].gr.v);
    }
  free(F.rk);
  free(F.stack);
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
