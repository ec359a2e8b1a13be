/*
 * BDR: background disseminated ring (Proficz 2021, Listing 2).
 *
 * From the predicted PAP and tau, rank q gets psNo_q = floor((max a - a_q)/tau)
 * pre-steps; S = max psNo.  Pre-step s (0 <= s < S) is open to the ranks with
 * psNo_q >= S - s, i.e. those predicted to have arrived by then.  The greedy
 * pass visits the ranks from the slowest (latest predicted arrival; equal
 * arrivals by ascending rank): rank r offers its own block to
 * rc = r - 1 - prevSent_r (mod P), and the transfer is scheduled unless rc
 * already receives in this step -- so of two senders aiming at one receiver
 * the slower one wins, and every rank receives at most one block per step.
 * Then the ring pass: in ring step j rank i forwards block seg = i - j to
 * i + 1 unless prevSent_seg + j >= P - 1, i.e. unless the pre-steps already
 * delivered seg there (pre-step receivers of seg are seg-1, seg-2, ...; ring
 * receivers are seg+1, seg+2, ...; the two sets never meet).
 *
 * Empty steps are dropped as the builder goes (the steps are renumbered
 * without gaps, computed for every rank alike, so a per-rank build is the
 * slice of the all-ranks build).  Pre-step ops carry
 * PAT_OPF_PRESTEP.  A late rank's pre-step receives come before its first
 * send, so its background thread runs them while it still computes.
 * arrival == NULL (or tau <= 0) means balanced: no pre-steps, plain RING.
 *
 * Steps:  at most min(S, P(P-1)) pre-steps + (P - 1 - min_q prevSent_q) ring steps.
 * Cost (Hockney, block of m bytes, flat PAP):  (P - 1) * (alpha + beta * m);
 * with a PAP, the ranks whose blocks were pre-sent to k ranks finish k ring
 * steps earlier.  Building: O(S * P + P^2) for every rank, O(S * P + P) for one.
 *
 * The builder, in order: the pre-step counts psNo, the greedy pre-step pass
 * (which also gives prevSent), the ring pass.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

typedef struct bdr {
  int P;
  int64_t *ps;  /* psNo: the pre-steps open to each rank */
  int64_t S;    /* max psNo */
  int *pa;      /* ranks, latest predicted arrival first */
  int *prev;    /* prevSent: ranks that got each rank's block in the pre-steps */
  int *stamp;   /* compacted step of each rank's last pre-step receive */
  int *ov, *ot; /* open senders, fastest first, and their next receivers */
  int nopen, ndead;
} bdr;

static void bdr_free(bdr *B) {
  free(B->ps);
  free(B->pa);
  free(B->prev);
  free(B->stamp);
  free(B->ov);
  free(B->ot);
}

static int bdr_alloc(bdr *B, int P) {
  B->P = P;
  B->ps = malloc((size_t)P * sizeof *B->ps);
  B->pa = malloc((size_t)P * sizeof *B->pa);
  B->prev = calloc((size_t)P, sizeof *B->prev);
  B->stamp = malloc((size_t)P * sizeof *B->stamp);
  B->ov = malloc((size_t)P * sizeof *B->ov);
  B->ot = malloc((size_t)P * sizeof *B->ot);
  return B->ps && B->pa && B->prev && B->stamp && B->ov && B->ot ? PAT_OK : PAT_ENOMEM;
}

/* psNo of every rank, floor((max a - a_q) / tau), and their maximum S; all 0
 * when balanced. */
static void bdr_prestep_counts(bdr *B, const pat_build_args *a) {
  const int P = B->P;
  B->S = 0;
  if (!a->arrival || a->tau <= 0) {
    for (int q = 0; q < P; q++) B->ps[q] = 0;
    return;
  }
  int64_t amax = a->arrival[0];
  for (int q = 1; q < P; q++)
    if (a->arrival[q] > amax) amax = a->arrival[q];
  for (int q = 0; q < P; q++) {
    uint64_t d = (uint64_t)amax - (uint64_t)a->arrival[q];
    B->ps[q] = (int64_t)(d / (uint64_t)a->tau);
    if (B->ps[q] > B->S) B->S = B->ps[q];
  }
}

/* Open the senders whose pre-steps have begun by pre-step st: pa[e..P-1] are
 * open; returns the new e.  Each starts with its left neighbour. */
static int bdr_open_senders(bdr *B, int e, int64_t st) {
  while (e > 0 && B->ps[B->pa[e - 1]] >= B->S - st) {
    int r = B->pa[--e];
    B->ov[B->nopen] = r;
    B->ot[B->nopen++] = r - 1 < 0 ? B->P - 1 : r - 1;
  }
  return e;
}

/* One pre-step, compacted step c: every open sender, slowest first, offers
 * its block to its next receiver, who takes the first offer.  A sender that
 * has reached every other rank is marked dead (-1).  Returns the number of
 * transfers, or -1 on ENOMEM. */
static int bdr_prestep(bdr *B, pat_sched *s, int c) {
  const int P = B->P, self = s->self;
  int sent = 0;
  for (int i = B->nopen - 1; i >= 0; i--) {
    int r = B->ov[i], to = B->ot[i];
    if (r < 0 || B->stamp[to] == c) continue;
    B->stamp[to] = c;
    if (self == PAT_ALL_RANKS || self == r || self == to) {
      pat_span own = pat_blocks(P, r, 1);
      if (pat_sched_transfer(s, c, r, to, 1, &own, PAT_OPF_PRESTEP)) return -1;
    }
    sent++;
    to = to - 1 < 0 ? P - 1 : to - 1;
    B->ot[i] = to;
    if (to == r) { /* sent to every other rank: saturated */
      B->prev[r] = P - 1;
      B->ov[i] = -1;
      B->ndead++;
    }
  }
  return sent;
}

/* Drop the dead senders once they are the majority, keeping the order. */
static void bdr_compact_senders(bdr *B) {
  if (2 * B->ndead <= B->nopen) return;
  int k = 0;
  for (int i = 0; i < B->nopen; i++)
    if (B->ov[i] >= 0) {
      B->ov[k] = B->ov[i];
      B->ot[k++] = B->ot[i];
    }
  B->nopen = k;
  B->ndead = 0;
}

/* Greedy pre-step pass.  The senders open in pre-step st are a suffix of pa
 * (psNo is nondecreasing along pa).  They are kept fastest first in
 * ov[0..nopen) -- newly opened (slower) ones appended -- with their current
 * receiver in ot[], and visited from the end, i.e. from the slowest.
 * A step in which nobody can send is empty: skip to the next opening.
 * Fills prev[] and returns the number of (compacted) pre-steps through
 * *nsteps. */
static int bdr_prestep_pass(bdr *B, pat_sched *s, int *nsteps) {
  const int P = B->P;
  int c = 0; /* compacted step number */
  int e = P; /* pa[e..P-1] are open */
  B->nopen = B->ndead = 0;
  for (int q = 0; q < P; q++) B->stamp[q] = -1;
  for (int64_t st = 0; st < B->S;) {
    e = bdr_open_senders(B, e, st);
    int sent = bdr_prestep(B, s, c);
    if (sent < 0) return PAT_ENOMEM;
    bdr_compact_senders(B);
    if (sent) {
      c++;
      st++;
    } else if (e > 0) {
      st = B->S - B->ps[B->pa[e - 1]]; /* nobody open can send until the next rank opens */
    } else {
      break;
    }
  }
  /* prevSent from where each sender's receiver pointer stopped */
  for (int i = 0; i < B->nopen; i++)
    if (B->ov[i] >= 0) B->prev[B->ov[i]] = ((B->ov[i] - 1 - B->ot[i]) % P + P) % P;
  *nsteps = c;
  return PAT_OK;
}

/* Ring pass from step c on, skipping blocks the pre-steps delivered. */
static int bdr_ring_pass(pat_sched *s, int P, const int *prev, int c) {
  int minprev = P;
  for (int q = 0; q < P; q++)
    if (prev[q] < minprev) minprev = prev[q];
  const int J = P - 1 - minprev;
  int lo, hi;
  pat_sched_rank_range(s, &lo, &hi);
  for (int r = lo; r < hi; r++) {
    int right = (r + 1) % P, left = (r - 1 + P) % P;
    for (int j = 0; j < J; j++) {
      int seg = ((r - j) % P + P) % P, in = ((left - j) % P + P) % P;
      if (prev[seg] + j < P - 1) {
        pat_span sp = pat_blocks(P, seg, 1);
        if (pat_sched_add(s, r, c + j, PAT_OP_SEND, right, 1, &sp, 0)) return PAT_ENOMEM;
      }
      if (prev[in] + j < P - 1) {
        pat_span sp = pat_blocks(P, in, 1);
        if (pat_sched_add(s, r, c + j, PAT_OP_RECV, left, 1, &sp, 0)) return PAT_ENOMEM;
      }
    }
  }
  return PAT_OK;
}

int pat_allgather_bdr(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  if (P < 2) return PAT_OK;
  bdr B = {0};
  int c = 0;
  int rc = bdr_alloc(&B, P);
  if (!rc) {
    bdr_prestep_counts(&B, a);
    rc = pat_arrival_order(P, a->arrival, 1, B.pa);
  }
  if (!rc) rc = bdr_prestep_pass(&B, s, &c);
  if (!rc) rc = bdr_ring_pass(s, P, B.prev, c);
  bdr_free(&B);
  return rc;
}
