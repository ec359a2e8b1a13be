/*
 * ARD: arrival-driven dissemination (libpat's own arrival-aware all-gather).
 *
 * A greedy, step-by-step dissemination over predicted time.  Ranks are
 * ranked by predicted arrival (earliest first, ties by rank); L is the last.
 * Each step every rank sends at most one message and receives at most one;
 * a rank may forward anything it held when the step began -- a rank still
 * computing relays from its background thread -- but sends its own block
 * only from the step containing its predicted arrival on (its ops before
 * that are exactly its background part under the executor's rule).
 * Whatever is still missing somewhere is served rarest first (fewest
 * holders; ties: the item that reached that count first), each item to as
 * many receivers as it has free holders; senders are taken earliest arrival
 * first; receivers in cyclic arrival order from a start that advances by
 * ~0.618 P each step, so whichever rank has waited longest is soon first in
 * line.  (A fixed receiver order -- earliest arrival first -- starves the late
 * ranks; their backlog then delays the end: in the model at P = 8 and 48,
 * 1.38x and 1.23x the lower bound instead of 1.23x and 1.12x.)
 *
 * The clock (pat_ard_clock): steps 0 .. E-1 are slots of tau from the
 * earliest predicted arrival and move whole blocks; E = max(0, slot(L) - D),
 * D = ceil(log2 P), starts the end game.  From E on, steps are slots of
 * tau/q and every block not yet everywhere -- those of the last arrivals,
 * L's included, and what is left of the others -- moves as q pieces.  A new
 * block then doubles its holders q times per block time, and L's block
 * leaves L piece by piece to different ranks, which exchange the pieces: the
 * call ends about (D + q - 1)/q + 1 block times after the last arrival
 * instead of D + 1.  q (1..8) minimises the predicted end game from tau and
 * alpha (pat_build_args.alpha): each rank's share of what is still owed, at
 * one alpha per piece, plus the last block's pipeline; q = 1 when more than
 * 2*D*P block transfers are still owed at E (bandwidth-bound).
 *
 * arrival == NULL or tau <= 0: every block is released in step 0.
 *
 * Cost (Hockney, block of m bytes): after the last arrival, once the blocks
 * released earlier are everywhere, about
 *   (D + q - 1) * (alpha + beta*m/q) + owed/P * (q*alpha + beta*m);
 * with a flat PAP it is a gossip of P blocks: at least (P - 1)(alpha + beta*m).
 * Building: every rank simulates the whole greedy (bit sets of holders, the
 * items in flight in lists by holder count) and keeps its own ops:
 * O(transfers + steps * items visited * P/64).
 */
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"

#define ARD_QMAX 8

typedef struct ard_xfer {
  int from, to; /* ranks as arrival positions */
} ard_xfer;

typedef struct ard {
  int P, W, L; /* L = P - 1, the position of the last arriver */
  const int *order;
  int g; /* receiver rotation stride */
  /* items: whole blocks (phase A) or pieces (phase B) */
  int n;             /* items */
  int *block;        /* owner position of each item */
  int *piece;        /* piece index, -1 for a whole block */
  int q;             /* pieces per block in phase B */
  int32_t *rel;      /* release time of each item, in the phase's unit */
  uint64_t *hold;    /* hold[i*W + w]: holders of item i */
  int *cnt, nextrel;
  /* items in flight, in lists by holder count (FIFO within a count), with a
   * bit set of the non-empty counts: the rarest come first at O(1) a move */
  int *bnext, *bprev, *bhead, *btail, nalive;
  uint64_t *bmask;
  int *touched, *delta; /* items served in the step, and how many times */
  int *relorder;     /* items by release time */
  uint64_t *fs, *fr; /* free send / receive ports in the step */
  ard_xfer *xf;
  int32_t prestep_until; /* steps before this one carry PAT_OPF_PRESTEP */
  int selfpos;           /* position of the rank whose ops are kept; -1: every rank; -2: none */
} ard;

static int gcd(int a, int b) {
  while (b) {
    int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

static int ceil_log2(int P) {
  int d = 0;
  while ((1 << d) < P) d++;
  return d;
}

/* Count buckets: item lists by holder count. */
static void bucket_push(ard *A, int it) { /* append at the tail of its count's list */
  int c = A->cnt[it];
  A->bnext[it] = -1;
  A->bprev[it] = A->btail[c];
  if (A->btail[c] >= 0)
    A->bnext[A->btail[c]] = it;
  else {
    A->bhead[c] = it;
    A->bmask[c / 64] |= 1ull << (c % 64);
  }
  A->btail[c] = it;
  A->nalive++;
}

static void bucket_unlink(ard *A, int it) {
  int c = A->cnt[it];
  if (A->bprev[it] >= 0)
    A->bnext[A->bprev[it]] = A->bnext[it];
  else
    A->bhead[c] = A->bnext[it];
  if (A->bnext[it] >= 0)
    A->bprev[A->bnext[it]] = A->bprev[it];
  else
    A->btail[c] = A->bprev[it];
  if (A->bhead[c] < 0) A->bmask[c / 64] &= ~(1ull << (c % 64));
  A->nalive--;
}

static void ard_reset_buckets(ard *A) {
  for (int c = 0; c <= A->P; c++) A->bhead[c] = A->btail[c] = -1;
  memset(A->bmask, 0, ((size_t)A->P + 64) / 64 * sizeof *A->bmask);
  A->nalive = 0;
}

/* The smallest non-empty count >= c, or -1. */
static int next_count(const ard *A, int c) {
  const int nw = (A->P + 64) / 64;
  if (c > A->P) return -1;
  int w = c / 64;
  uint64_t m = A->bmask[w] & (~0ull << (c % 64));
  while (!m) {
    if (++w >= nw) return -1;
    m = A->bmask[w];
  }
  return w * 64 + __builtin_ctzll(m);
}

/* One step of the greedy at time t (phase unit) = schedule step `step`:
 * match, emit, update.  Returns the number of transfers, or -1 on ENOMEM. */
static int ard_step(ard *A, pat_sched *s, int32_t t, int step) {
  const int P = A->P, W = A->W;
  /* release the items due */
  while (A->nextrel < A->n && A->rel[A->relorder[A->nextrel]] <= t) bucket_push(A, A->relorder[A->nextrel++]);
  uint64_t *fs = A->fs, *fr = A->fr;
  for (int w = 0; w < W; w++) fs[w] = fr[w] = ~0ull;
  if (P % 64) fs[W - 1] = fr[W - 1] = (1ull << (P % 64)) - 1;
  /* receivers in cyclic position order from o */
  const int o = (int)(((int64_t)step * A->g) % P), w0 = o / 64;
  const uint64_t himask = ~0ull << (o % 64), lomask = ~himask;
#define RWORD(k) ((k) + w0 < W ? (k) + w0 : (k) + w0 - W)
#define RMASK(k) ((k) == 0 ? himask : (k) == W ? lomask : ~0ull)
  const unsigned flags = step < A->prestep_until ? PAT_OPF_PRESTEP : 0;
  int nfs = P, nfr = P, nx = 0, slo = 0, rlo = 0;
  int ntouched = 0;
  for (int c = next_count(A, 0), it = c < 0 ? -1 : A->bhead[c]; it >= 0 && nfs > 0 && nfr > 0;) {
    const int k0 = nx;
    uint64_t *h = A->hold + (size_t)it * W;
    while (!fs[slo]) slo++;
    while (!(fr[RWORD(rlo)] & RMASK(rlo))) rlo++;
    int ws = slo, kr = rlo, wr = RWORD(rlo);
    uint64_t ms = h[ws] & fs[ws], mr = ~h[wr] & fr[wr] & RMASK(kr);
    for (;;) {
      while (!ms && ++ws < W) ms = h[ws] & fs[ws];
      if (!ms) break;
      while (!mr && ++kr <= W) {
        wr = RWORD(kr);
        mr = ~h[wr] & fr[wr] & RMASK(kr);
      }
      if (!mr) break;
      int bs = __builtin_ctzll(ms), br = __builtin_ctzll(mr);
      ms &= ms - 1;
      mr &= mr - 1;
      fs[ws] &= ~(1ull << bs);
      fr[wr] &= ~(1ull << br);
      nfs--;
      nfr--;
      A->xf[nx].from = ws * 64 + bs;
      A->xf[nx].to = wr * 64 + br;
      nx++;
    }
    /* the item's transfers of this step: its new holders may forward it
     * from the next step on; emit the ops this schedule keeps */
    if (nx > k0) {
      A->touched[ntouched] = it;
      A->delta[ntouched++] = nx - k0;
    }
    for (int k = k0; k < nx; k++) {
      const ard_xfer *e = &A->xf[k];
      h[e->to / 64] |= 1ull << (e->to % 64);
      if (A->selfpos != -1 && e->from != A->selfpos && e->to != A->selfpos) continue;
      int b = A->order[A->block[it]], pc = A->piece[it];
      pat_span sp = pc < 0 ? pat_blocks(P, b, 1)
                           : pat_piece(b, (uint32_t)((uint64_t)pc * PAT_FRAC_ONE / (uint64_t)A->q),
                                       (uint32_t)((uint64_t)(pc + 1) * PAT_FRAC_ONE / (uint64_t)A->q));
      if (pat_sched_transfer(s, step, A->order[e->from], A->order[e->to], 1, &sp, flags)) return -1;
    }
    if ((it = A->bnext[it]) < 0 && (c = next_count(A, c + 1)) >= 0) it = A->bhead[c];
  }
#undef RWORD
#undef RMASK
  /* the served items move to their new holder counts (or leave, complete) */
  for (int k = 0; k < ntouched; k++) {
    int it = A->touched[k];
    bucket_unlink(A, it);
    A->cnt[it] += A->delta[k];
    if (A->cnt[it] < P) bucket_push(A, it);
  }
  return nx;
}

/* Release order of items (counting their release times in order). */
static void ard_order_releases(ard *A) {
  for (int i = 0; i < A->n; i++) A->relorder[i] = i;
  for (int i = 1; i < A->n; i++) { /* items are nearly in release order already */
    int v = A->relorder[i], j = i;
    while (j > 0 && A->rel[A->relorder[j - 1]] > A->rel[v]) {
      A->relorder[j] = A->relorder[j - 1];
      j--;
    }
    A->relorder[j] = v;
  }
}

/* Fine arrival time of position p in units of tau/q: floor((a - amin) * q / tau). */
static int64_t fine_time(const pat_build_args *a, int rank, int64_t amin, int q) {
  if (!a->arrival || a->tau <= 0) return 0;
  uint64_t d = (uint64_t)a->arrival[rank] - (uint64_t)amin, tau = (uint64_t)a->tau;
  uint64_t whole = d / tau, rest = d % tau;
  if (whole >= (uint64_t)PAT_MAX_ARRIVAL_SLOT) return (int64_t)PAT_MAX_ARRIVAL_SLOT * q;
  uint64_t v = whole * (uint64_t)q + (rest * (uint64_t)q) / tau;
  return (int64_t)v;
}

/* The whole builder; with clock != NULL it stops after choosing the clock
 * and fills clock and release (per rank) instead of building. */
static int ard_run(pat_sched *s, const pat_build_args *a, pat_ard_timing *clock, int32_t *release) {
  const int P = a->P;
  ard A;
  memset(&A, 0, sizeof A);
  A.P = P;
  A.W = (P + 63) / 64;
  A.L = P - 1;
  const int W = A.W, L = A.L, D = ceil_log2(P);
  int rc = PAT_ENOMEM;
  pat_sched nobody; /* clock only: a schedule that keeps no rank's ops */
  pat_sched_init(&nobody, P, P);
  int *order = malloc((size_t)P * sizeof *order);
  int32_t *slot = malloc((size_t)P * sizeof *slot);
  const size_t cap = (size_t)P * ARD_QMAX; /* most items ever */
  A.block = malloc(cap * sizeof *A.block);
  A.piece = malloc(cap * sizeof *A.piece);
  A.rel = malloc(cap * sizeof *A.rel);
  A.cnt = malloc(cap * sizeof *A.cnt);
  A.bnext = malloc(cap * sizeof *A.bnext);
  A.bprev = malloc(cap * sizeof *A.bprev);
  A.touched = malloc(cap * sizeof *A.touched);
  A.delta = malloc(cap * sizeof *A.delta);
  A.bhead = malloc(((size_t)P + 1) * sizeof *A.bhead);
  A.btail = malloc(((size_t)P + 1) * sizeof *A.btail);
  A.bmask = malloc(((size_t)P + 64) / 64 * sizeof *A.bmask);
  A.relorder = malloc(cap * sizeof *A.relorder);
  A.hold = malloc((size_t)(L > 0 ? L : 1) * W * sizeof *A.hold);
  A.fs = malloc((size_t)W * sizeof *A.fs);
  A.fr = malloc((size_t)W * sizeof *A.fr);
  A.xf = malloc((size_t)P * sizeof *A.xf);
  uint64_t *blockhold = NULL;
  if (!order || !slot || !A.block || !A.piece || !A.rel || !A.cnt || !A.bnext || !A.bprev || !A.touched || !A.delta || !A.bhead || !A.btail || !A.bmask || !A.relorder || !A.hold || !A.fs ||
      !A.fr || !A.xf)
    goto out;
  if ((rc = pat_arrival_order(P, a->arrival, 0, order))) goto out;
  rc = PAT_ENOMEM;
  A.order = order;
  pat_arrival_slots(P, a->arrival, a->tau, slot);
  int64_t amin = 0;
  if (a->arrival) {
    amin = a->arrival[0];
    for (int r = 1; r < P; r++)
      if (a->arrival[r] < amin) amin = a->arrival[r];
  }
  A.g = (int)(((int64_t)P * 633) >> 10); /* ~0.618 P, coprime with P */
  if (A.g < 1) A.g = 1;
  while (gcd(A.g, P) != 1) A.g++;
  const int32_t slotL = slot[order[L]];
  const int32_t E = slotL > D ? slotL - D : 0;

  /* Phase A: whole blocks of every rank but L, slots 0 .. E-1 */
  A.n = L;
  A.q = 1;
  A.prestep_until = E; /* every phase-A step precedes L's arrival */
  memset(A.hold, 0, (size_t)L * W * sizeof *A.hold);
  for (int b = 0; b < L; b++) {
    A.block[b] = b;
    A.piece[b] = -1;
    A.rel[b] = slot[order[b]];
    A.cnt[b] = 1;
    A.hold[(size_t)b * W + b / 64] = 1ull << (b % 64);
  }
  ard_order_releases(&A);
  ard_reset_buckets(&A);
  if (clock) s = &nobody;
  A.selfpos = -2;
  for (int p = 0; p < P; p++)
    if (s->self == order[p]) A.selfpos = p;
  if (s->self == PAT_ALL_RANKS) A.selfpos = -1;
  for (int32_t t = 0; t < E;) {
    if (A.nalive == 0) { /* idle until the next arrival, or done */
      if (A.nextrel == A.n || A.rel[A.relorder[A.nextrel]] >= E) break;
      if (A.rel[A.relorder[A.nextrel]] > t) t = A.rel[A.relorder[A.nextrel]];
    }
    if (ard_step(&A, s, t, t) < 0) goto out;
    t++;
  }

  /* End game: pieces per block.  Every block not yet everywhere at E moves
   * in q pieces (a whole block can only double its holders once per block
   * time; q pieces double q times as often but each costs a latency alpha).
   * q minimises the predicted end game: each rank's share of what is still
   * owed, with alpha per piece, plus the pipeline of the last block (its q
   * pieces leave L one per step, the last one then doubles for D - 1 more):
   *   owed/P * (q*alpha + (tau - alpha)) + (D + q - 1) * (alpha + (tau - alpha)/q).
   * More than 2*D*P block transfers still owed: bandwidth-bound, q = 1. */
  int64_t owed = P - 1; /* L's block */
  for (int b = 0; b < L; b++) owed += P - A.cnt[b];
  int q = 1;
  if (D > 1 && owed <= 2 * (int64_t)D * P && a->tau > 0) {
    /* compare the costs exactly: cost(k) = N(k) / (P k), so cost(k) < cost(j)
     * iff N(k) j < N(j) k; ties keep the fewer pieces */
    const int64_t al = a->alpha < 0 ? 0 : (a->alpha < a->tau ? a->alpha : a->tau), tb = a->tau - al;
    __int128 bestn = 0;
    for (int k = 1; k <= ARD_QMAX; k++) {
      __int128 per = (__int128)k * al + tb; /* k times one piece's cost */
      __int128 nk = (__int128)owed * per * k + (__int128)P * (D + k - 1) * per;
      if (k == 1 || nk * q < bestn * k) {
        bestn = nk;
        q = k;
      }
    }
  }
  if (clock) {
    clock->switch_step = E;
    clock->q = q;
    for (int r = 0; r < P; r++)
      release[r] = slot[r] < E ? slot[r] : (int32_t)(E + fine_time(a, r, amin, q) - (int64_t)E * q);
    rc = PAT_OK;
    goto out;
  }
  if (q > 1 && P - 1 <= (int)PAT_FRAC_ONE) s->flags |= PAT_SCHED_PIECES; /* on every rank alike */

  /* Phase B: every block not yet everywhere (L's included), as q items each;
   * time in units of tau/q from E. */
  blockhold = malloc((size_t)P * W * sizeof *blockhold);
  if (!blockhold) goto out;
  memcpy(blockhold, A.hold, (size_t)L * W * sizeof *blockhold);
  {
    size_t nitems = 0;
    for (int b = 0; b < L; b++) nitems += A.cnt[b] < P;
    nitems = (nitems + 1) * (size_t)q;
    uint64_t *nh = realloc(A.hold, nitems * W * sizeof *nh);
    if (!nh) goto out;
    A.hold = nh;
  }
  int *bcnt = A.touched; /* scratch: phase-A counts per block */
  int32_t *brel = A.relorder;
  for (int b = 0; b < L; b++) { /* phase-A items are the blocks, in order */
    bcnt[b] = A.cnt[b];
    brel[b] = A.rel[b] < E ? 0 : (int32_t)(fine_time(a, order[b], amin, q) - (int64_t)E * q);
  }
  memset(blockhold + (size_t)L * W, 0, (size_t)W * sizeof *blockhold);
  blockhold[(size_t)L * W + L / 64] = 1ull << (L % 64);
  bcnt[L] = 1;
  brel[L] = (int32_t)(fine_time(a, order[L], amin, q) - (int64_t)E * q);
  int n = 0;
  for (int b = 0; b < P; b++) {
    if (bcnt[b] == P) continue;
    for (int k = 0; k < q; k++, n++) {
      A.block[n] = b;
      A.piece[n] = q > 1 ? k : -1;
      A.rel[n] = brel[b];
      A.cnt[n] = bcnt[b];
      memcpy(A.hold + (size_t)n * W, blockhold + (size_t)b * W, (size_t)W * sizeof *A.hold);
    }
  }

  A.n = n;
  A.q = q;
  ard_reset_buckets(&A);
  A.nextrel = 0;
  /* items released at E already have holders; the sort needs them in order */
  ard_order_releases(&A);
  A.prestep_until = E + (int32_t)(fine_time(a, order[L], amin, q) - (int64_t)E * q);
  for (int32_t u = 0;;) {
    if (A.nalive == 0) {
      if (A.nextrel == A.n) break;
      if (A.rel[A.relorder[A.nextrel]] > u) u = A.rel[A.relorder[A.nextrel]];
    }
    if (ard_step(&A, s, u, E + u) < 0) goto out;
    u++;
  }
  rc = PAT_OK;
out:
  free(order);
  free(slot);
  free(A.block);
  free(A.piece);
  free(A.rel);
  free(A.cnt);
  free(A.bnext);
  free(A.bprev);
  free(A.touched);
  free(A.delta);
  free(A.bhead);
  free(A.btail);
  free(A.bmask);
  free(A.relorder);
  free(A.hold);
  free(A.fs);
  free(A.fr);
  free(A.xf);
  free(blockhold);
  pat_sched_free(&nobody);
  return rc;
}

int pat_allgather_ard(pat_sched *s, const pat_build_args *a) {
  if (a->P < 2) return PAT_OK;
  return ard_run(s, a, NULL, NULL);
}

int pat_ard_clock(const pat_build_args *a, pat_ard_timing *clock, int32_t *release) {
  if (a->P < 1) return PAT_EINVAL;
  if (a->P == 1) {
    clock->switch_step = 0;
    clock->q = 1;
    release[0] = 0;
    return PAT_OK;
  }
  return ard_run(NULL, a, clock, release);
}
