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
 * ranks; their backlog then delays the end, well above the lower bound in
 * the model.)
 *
 * The clock (pat_ard_clock): steps 0 .. E-1 are slots of tau from the
 * earliest predicted arrival and move whole blocks; E = max(0, slot(L) - D),
 * D = ceil(log2 P), starts the end game.  From E on, steps are slots of
 * tau/q and every block not yet everywhere -- those of the last arrivals,
 * L's included, and what is left of the others -- moves as q pieces.  A new
 * block then doubles its holders q times per block time, and L's block
 * leaves L piece by piece to different ranks, which exchange the pieces: the
 * call ends about (D + q - 1)/q + 1 block times after the last arrival
 * instead of D + 1.  q (1..8, and pieces of at least PAT_ARD_MIN_PIECE
 * bytes: q <= block_bytes / 64 KiB; smaller, eager pieces stalled on TCP)
 * minimises the predicted end game from tau and
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
 * O(transfers + steps * items visited * P/64).  The clock alone needs the
 * greedy up to E (q depends on the holder counts there), without any ops.
 *
 * The builder, in order: read the arrivals (order, slots, E); phase A, the
 * whole blocks before E; the clock's q and release steps; phase B, the end
 * game's items from E on.
 */
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"

#define ARD_QMAX 8

typedef struct ard_xfer {
  int from, to; /* ranks as arrival positions */
} ard_xfer;

typedef struct ard {
  int P, W, L;      /* L = P - 1, the position of the last arriver */
  int *order;       /* rank at each arrival position, earliest first */
  int32_t *slot;    /* arrival slot of each rank */
  int64_t amin;     /* the earliest predicted arrival */
  int g;            /* receiver rotation stride */
  /* the clock */
  int32_t E;        /* switch step: the end game starts here */
  int end_q;        /* pieces per block in the end game */
  int32_t *release; /* release step of each rank */
  /* items: whole blocks (phase A) or pieces (phase B) */
  int n;             /* items */
  int *block;        /* owner position of each item */
  int *piece;        /* piece index, -1 for a whole block */
  int q;             /* pieces per block of the current phase's items */
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

/* Release the items due by time t (phase unit): they join the lists. */
static void ard_release_due(ard *A, int32_t t) {
  while (A->nextrel < A->n && A->rel[A->relorder[A->nextrel]] <= t) bucket_push(A, A->relorder[A->nextrel++]);
}

/* Every rank's send and receive port free for the step. */
static void ard_open_ports(ard *A) {
  const int P = A->P, W = A->W;
  for (int w = 0; w < W; w++) A->fs[w] = A->fr[w] = ~0ull;
  if (P % 64) A->fs[W - 1] = A->fr[W - 1] = (1ull << (P % 64)) - 1;
}

/* Item it's transfers xf[k0, nx) of the step: its new holders may forward it
 * from the next step on; emit the ops the schedule keeps (none if s == NULL).
 * Returns 0, or -1 on ENOMEM. */
static int ard_deliver(ard *A, pat_sched *s, int it, int k0, int nx, int step, unsigned flags) {
  uint64_t *h = A->hold + (size_t)it * A->W;
  for (int k = k0; k < nx; k++) {
    const ard_xfer *e = &A->xf[k];
    h[e->to / 64] |= 1ull << (e->to % 64);
    if (!s || (A->selfpos != -1 && e->from != A->selfpos && e->to != A->selfpos)) continue;
    int b = A->order[A->block[it]], pc = A->piece[it];
    pat_span sp = pc < 0 ? pat_blocks(A->P, b, 1)
                         : pat_piece(b, (uint32_t)((uint64_t)pc * PAT_FRAC_ONE / (uint64_t)A->q),
                                     (uint32_t)((uint64_t)(pc + 1) * PAT_FRAC_ONE / (uint64_t)A->q));
    if (pat_sched_transfer(s, step, A->order[e->from], A->order[e->to], 1, &sp, flags)) return -1;
  }
  return 0;
}

/* The items served in the step (touched[0, ntouched)) move to their new
 * holder counts, or leave the lists when complete. */
static void ard_requeue_served(ard *A, int ntouched) {
  for (int k = 0; k < ntouched; k++) {
    int it = A->touched[k];
    bucket_unlink(A, it);
    A->cnt[it] += A->delta[k];
    if (A->cnt[it] < A->P) bucket_push(A, it);
  }
}

/* One step of the greedy at time t (phase unit) = schedule step `step`:
 * match, emit (into s unless NULL), update.  Returns the number of
 * transfers, or -1 on ENOMEM. */
static int ard_step(ard *A, pat_sched *s, int32_t t, int step) {
  const int P = A->P, W = A->W;
  ard_release_due(A, t);
  ard_open_ports(A);
  uint64_t *fs = A->fs, *fr = A->fr;
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
    const uint64_t *h = A->hold + (size_t)it * W;
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
    if (nx > k0) {
      A->touched[ntouched] = it;
      A->delta[ntouched++] = nx - k0;
    }
    if (ard_deliver(A, s, it, k0, nx, step, flags) < 0) return -1;
    if ((it = A->bnext[it]) < 0 && (c = next_count(A, c + 1)) >= 0) it = A->bhead[c];
  }
#undef RWORD
#undef RMASK
  ard_requeue_served(A, ntouched);
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

/* Fine arrival time of rank `rank` in units of tau/q: floor((a - amin) * q / tau). */
static int64_t fine_time(const pat_build_args *a, int rank, int64_t amin, int q) {
  if (!a->arrival || a->tau <= 0) return 0;
  uint64_t d = (uint64_t)a->arrival[rank] - (uint64_t)amin, tau = (uint64_t)a->tau;
  uint64_t whole = d / tau, rest = d % tau;
  if (whole >= (uint64_t)PAT_MAX_ARRIVAL_SLOT) return (int64_t)PAT_MAX_ARRIVAL_SLOT * q;
  uint64_t v = whole * (uint64_t)q + (rest * (uint64_t)q) / tau;
  return (int64_t)v;
}

static void ard_free(ard *A) {
  free(A->order);
  free(A->slot);
  free(A->release);
  free(A->block);
  free(A->piece);
  free(A->rel);
  free(A->cnt);
  free(A->bnext);
  free(A->bprev);
  free(A->touched);
  free(A->delta);
  free(A->bhead);
  free(A->btail);
  free(A->bmask);
  free(A->relorder);
  free(A->hold);
  free(A->fs);
  free(A->fr);
  free(A->xf);
}

/* The state for P ranks, sized for the most items ever (P blocks of
 * ARD_QMAX pieces); hold[] for phase A's P - 1 blocks (phase B regrows it). */
static int ard_alloc(ard *A, int P) {
  memset(A, 0, sizeof *A);
  A->P = P;
  A->W = (P + 63) / 64;
  A->L = P - 1;
  const int W = A->W, L = A->L;
  const size_t cap = (size_t)P * ARD_QMAX;
  A->order = malloc((size_t)P * sizeof *A->order);
  A->slot = malloc((size_t)P * sizeof *A->slot);
  A->release = malloc((size_t)P * sizeof *A->release);
  A->block = malloc(cap * sizeof *A->block);
  A->piece = malloc(cap * sizeof *A->piece);
  A->rel = malloc(cap * sizeof *A->rel);
  A->cnt = malloc(cap * sizeof *A->cnt);
  A->bnext = malloc(cap * sizeof *A->bnext);
  A->bprev = malloc(cap * sizeof *A->bprev);
  A->touched = malloc(cap * sizeof *A->touched);
  A->delta = malloc(cap * sizeof *A->delta);
  A->bhead = malloc(((size_t)P + 1) * sizeof *A->bhead);
  A->btail = malloc(((size_t)P + 1) * sizeof *A->btail);
  A->bmask = malloc(((size_t)P + 64) / 64 * sizeof *A->bmask);
  A->relorder = malloc(cap * sizeof *A->relorder);
  A->hold = malloc((size_t)(L > 0 ? L : 1) * W * sizeof *A->hold);
  A->fs = malloc((size_t)W * sizeof *A->fs);
  A->fr = malloc((size_t)W * sizeof *A->fr);
  A->xf = malloc((size_t)P * sizeof *A->xf);
  if (!A->order || !A->slot || !A->release || !A->block || !A->piece || !A->rel || !A->cnt || !A->bnext ||
      !A->bprev || !A->touched || !A->delta || !A->bhead || !A->btail || !A->bmask || !A->relorder || !A->hold ||
      !A->fs || !A->fr || !A->xf)
    return PAT_ENOMEM;
  return PAT_OK;
}

/* What the arrivals fix before any step: the arrival order and slots, the
 * earliest arrival, the switch step E and the receiver rotation stride. */
static int ard_read_arrivals(ard *A, const pat_build_args *a) {
  const int P = A->P, D = ceil_log2(P);
  int rc = pat_arrival_order(P, a->arrival, 0, A->order);
  if (rc) return rc;
  pat_arrival_slots(P, a->arrival, a->tau, A->slot);
  A->amin = 0;
  if (a->arrival) {
    A->amin = a->arrival[0];
    for (int r = 1; r < P; r++)
      if (a->arrival[r] < A->amin) A->amin = a->arrival[r];
  }
  A->g = (int)(((int64_t)P * 633) >> 10); /* ~0.618 P, coprime with P */
  if (A->g < 1) A->g = 1;
  while (gcd(A->g, P) != 1) A->g++;
  const int32_t slotL = A->slot[A->order[A->L]];
  A->E = slotL > D ? slotL - D : 0;
  return PAT_OK;
}

/* Which position's ops the schedule keeps: -1 every rank's, -2 nobody's. */
static int ard_kept_position(const ard *A, const pat_sched *s) {
  if (s->self == PAT_ALL_RANKS) return -1;
  for (int p = 0; p < A->P; p++)
    if (s->self == A->order[p]) return p;
  return -2;
}

/* Make the current items ready for a phase: none in flight, all pending in
 * release order. */
static void ard_start_phase(ard *A) {
  ard_order_releases(A);
  ard_reset_buckets(A);
  A->nextrel = 0;
}

/* Run the greedy from time 0 of the phase, schedule steps numbered from
 * first_step, until nothing is in flight or due before time `until`.  While
 * nothing is in flight, time skips to the next release. */
static int ard_run(ard *A, pat_sched *s, int32_t first_step, int32_t until) {
  for (int32_t t = 0; t < until; t++) {
    if (A->nalive == 0) {
      if (A->nextrel == A->n) break;
      const int32_t next = A->rel[A->relorder[A->nextrel]];
      if (next >= until) break;
      if (next > t) t = next;
    }
    if (ard_step(A, s, t, first_step + t) < 0) return PAT_ENOMEM;
  }
  return PAT_OK;
}

/* Phase A: the whole blocks of every rank but L, in slots 0 .. E-1, each
 * released in its owner's slot.  s == NULL: only the holder counts it leaves
 * are wanted, no ops. */
static int ard_phase_a(ard *A, pat_sched *s) {
  const int W = A->W, L = A->L;
  A->n = L;
  A->q = 1;
  A->prestep_until = A->E; /* every phase-A step precedes L's arrival */
  memset(A->hold, 0, (size_t)L * W * sizeof *A->hold);
  for (int b = 0; b < L; b++) {
    A->block[b] = b;
    A->piece[b] = -1;
    A->rel[b] = A->slot[A->order[b]];
    A->cnt[b] = 1;
    A->hold[(size_t)b * W + b / 64] = 1ull << (b % 64);
  }
  ard_start_phase(A);
  return ard_run(A, s, 0, A->E);
}

/* End game: pieces per block, from the holder counts phase A left.  Every
 * block not yet everywhere at E moves in q pieces (a whole block can only
 * double its holders once per block time; q pieces double q times as often
 * but each costs a latency alpha).  q minimises the predicted end game: each
 * rank's share of what is still owed, with alpha per piece, plus the
 * pipeline of the last block (its q pieces leave L one per step, the last
 * one then doubles for D - 1 more):
 *   owed/P * (q*alpha + (tau - alpha)) + (D + q - 1) * (alpha + (tau - alpha)/q).
 * More than 2*D*P block transfers still owed: bandwidth-bound, q = 1. */
static int ard_choose_q(const ard *A, const pat_build_args *a) {
  const int P = A->P, D = ceil_log2(P);
  int64_t owed = P - 1; /* L's block */
  for (int b = 0; b < A->L; b++) owed += P - A->cnt[b];
  const int64_t fit = a->block_bytes / PAT_ARD_MIN_PIECE; /* pieces of at least the floor */
  const int qmax = fit < ARD_QMAX ? (int)fit : ARD_QMAX;
  int q = 1;
  if (D > 1 && qmax > 1 && owed <= 2 * (int64_t)D * P && a->tau > 0) {
    /* compare the costs exactly: cost(k) = N(k) / (P k), so cost(k) < cost(j)
     * iff N(k) j < N(j) k; ties keep the fewer pieces */
    const int64_t al = a->alpha < 0 ? 0 : (a->alpha < a->tau ? a->alpha : a->tau), tb = a->tau - al;
    __int128 bestn = 0;
    for (int k = 1; k <= qmax; k++) {
      __int128 per = (__int128)k * al + tb; /* k times one piece's cost */
      __int128 nk = (__int128)owed * per * k + (__int128)P * (D + k - 1) * per;
      if (k == 1 || nk * q < bestn * k) {
        bestn = nk;
        q = k;
      }
    }
  }
  return q;
}

/* The rest of the clock, once phase A has run: q, and every rank's release
 * step -- its slot before E, else E plus its fine arrival time after E. */
static void ard_set_clock(ard *A, const pat_build_args *a) {
  const int32_t E = A->E;
  const int q = A->end_q = ard_choose_q(A, a);
  for (int r = 0; r < A->P; r++)
    A->release[r] = A->slot[r] < E ? A->slot[r] : (int32_t)(E + fine_time(a, r, A->amin, q) - (int64_t)E * q);
}

/* Phase B's items: every block not yet everywhere after phase A (L's
 * included) as q items (pieces; the whole block if q == 1), with the holders
 * phase A left it, released at its owner's release step counted from E (0:
 * released before E, already on its way).  Phase A's items are the blocks
 * 0 .. L-1 in order; their holders are copied out first, since the pieces
 * overwrite the item arrays. */
static int ard_setup_end_game(ard *A) {
  const int P = A->P, W = A->W, L = A->L, q = A->end_q;
  const int32_t E = A->E;
  int *block_cnt = malloc((size_t)P * sizeof *block_cnt);
  uint64_t *block_hold = malloc((size_t)P * W * sizeof *block_hold);
  if (!block_cnt || !block_hold) goto nomem;
  memcpy(block_cnt, A->cnt, (size_t)L * sizeof *block_cnt);
  memcpy(block_hold, A->hold, (size_t)L * W * sizeof *block_hold);
  block_cnt[L] = 1;
  memset(block_hold + (size_t)L * W, 0, (size_t)W * sizeof *block_hold);
  block_hold[(size_t)L * W + L / 64] = 1ull << (L % 64);
  size_t nitems = 0;
  for (int b = 0; b < P; b++) nitems += block_cnt[b] < P;
  uint64_t *nh = realloc(A->hold, nitems * q * W * sizeof *nh);
  if (!nh) goto nomem;
  A->hold = nh;
  int n = 0;
  for (int b = 0; b < P; b++) {
    if (block_cnt[b] == P) continue;
    const int32_t release = A->release[A->order[b]];
    for (int k = 0; k < q; k++, n++) {
      A->block[n] = b;
      A->piece[n] = q > 1 ? k : -1;
      A->rel[n] = release > E ? release - E : 0;
      A->cnt[n] = block_cnt[b];
      memcpy(A->hold + (size_t)n * W, block_hold + (size_t)b * W, (size_t)W * sizeof *A->hold);
    }
  }
  A->n = n;
  A->q = q;
  free(block_cnt);
  free(block_hold);
  return PAT_OK;
nomem:
  free(block_cnt);
  free(block_hold);
  return PAT_ENOMEM;
}

/* Phase B: the end game's items from E on, in steps of tau/q, until every
 * item is everywhere (no time limit); steps before L's release are still
 * pre-steps. */
static int ard_phase_b(ard *A, pat_sched *s) {
  ard_start_phase(A);
  A->prestep_until = A->release[A->order[A->L]];
  return ard_run(A, s, A->E, INT32_MAX);
}

/* The state with its clock: arrivals read, phase A simulated (its ops into
 * s, or none if s == NULL), E, q and the release steps chosen. */
static int ard_start(ard *A, const pat_build_args *a, pat_sched *s) {
  int rc = ard_alloc(A, a->P);
  if (!rc) rc = ard_read_arrivals(A, a);
  if (rc) return rc;
  A->selfpos = s ? ard_kept_position(A, s) : -2;
  rc = ard_phase_a(A, s);
  if (!rc) ard_set_clock(A, a);
  return rc;
}

int pat_allgather_ard(pat_sched *s, const pat_build_args *a) {
  if (a->P < 2) return PAT_OK;
  ard A;
  int rc = ard_start(&A, a, s);
  if (!rc) {
    if (A.end_q > 1 && a->P - 1 <= (int)PAT_FRAC_ONE) s->flags |= PAT_SCHED_PIECES; /* on every rank alike */
    rc = ard_setup_end_game(&A);
  }
  if (!rc) rc = ard_phase_b(&A, s);
  ard_free(&A);
  return rc;
}

int pat_ard_clock(const pat_build_args *a, pat_ard_timing *clock, int32_t *release) {
  if (a->P < 1) return PAT_EINVAL;
  if (a->P == 1) {
    clock->switch_step = 0;
    clock->q = 1;
    release[0] = 0;
    return PAT_OK;
  }
  ard A;
  int rc = ard_start(&A, a, NULL);
  if (!rc) {
    clock->switch_step = A.E;
    clock->q = A.end_q;
    memcpy(release, A.release, (size_t)a->P * sizeof *release);
  }
  ard_free(&A);
  return rc;
}
