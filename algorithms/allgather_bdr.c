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
 * Empty steps are dropped as the builder goes (exactly what
 * pat_sched_compact_steps would do, but computed for every rank alike, so a
 * per-rank build is the slice of the all-ranks build).  Pre-step ops carry
 * PAT_OPF_PRESTEP.  A late rank's pre-step receives come before its first
 * send, so its background thread runs them while it still computes.
 * arrival == NULL (or tau <= 0) means balanced: no pre-steps, plain RING.
 *
 * Steps:  at most min(S, P(P-1)) pre-steps + (P - 1 - min_q prevSent_q) ring steps.
 * Cost (Hockney, block of m bytes, flat PAP):  (P - 1) * (alpha + beta * m);
 * with a PAP, the ranks whose blocks were pre-sent to k ranks finish k ring
 * steps earlier.  Building: O(S * P + P^2) for every rank, O(S * P + P) for one.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

int pat_allgather_bdr(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  if (P < 2) return PAT_OK;
  int rc = PAT_ENOMEM;
  int *pa = malloc((size_t)P * sizeof *pa);
  int *prev = calloc((size_t)P, sizeof *prev);    /* prevSent */
  int *stamp = malloc((size_t)P * sizeof *stamp); /* compacted step of rank's last pre-step receive */
  int *ov = malloc((size_t)P * sizeof *ov);       /* open senders, fastest first */
  int *ot = malloc((size_t)P * sizeof *ot);       /* their next receivers */
  int64_t *ps = malloc((size_t)P * sizeof *ps);   /* psNo */
  if (!pa || !prev || !stamp || !ov || !ot || !ps) goto out;

  /* pre-step counts */
  int64_t S = 0;
  if (a->arrival && a->tau > 0) {
    int64_t amax = a->arrival[0];
    for (int q = 1; q < P; q++)
      if (a->arrival[q] > amax) amax = a->arrival[q];
    for (int q = 0; q < P; q++) {
      uint64_t d = (uint64_t)amax - (uint64_t)a->arrival[q];
      ps[q] = (int64_t)(d / (uint64_t)a->tau);
      if (ps[q] > S) S = ps[q];
    }
  } else {
    for (int q = 0; q < P; q++) ps[q] = 0;
  }
  if ((rc = pat_arrival_order(P, a->arrival, 1, pa))) goto out;
  for (int q = 0; q < P; q++) stamp[q] = -1;

  /* Greedy pre-step pass.  The senders open in step s are a suffix of pa
   * (psNo is nondecreasing along pa).  They are kept fastest first in
   * ov[0..nopen) -- newly opened (slower) ones appended -- with their current
   * receiver in ot[], and visited from the end, i.e. from the slowest.
   * Saturated senders are marked dead (-1) and compacted away now and then.
   * A step in which nobody can send is empty: skip to the next opening. */
  int c = 0;   /* compacted step number */
  int e = P;   /* pa[e..P-1] are open */
  int nopen = 0, ndead = 0;
  const int self = s->self;
  for (int64_t st = 0; st < S;) {
    while (e > 0 && ps[pa[e - 1]] >= S - st) {
      int r = pa[--e];
      ov[nopen] = r;
      ot[nopen++] = r - 1 < 0 ? P - 1 : r - 1;
    }
    int sent = 0;
    for (int i = nopen - 1; i >= 0; i--) {
      int r = ov[i], to = ot[i];
      if (r < 0 || stamp[to] == c) continue;
      stamp[to] = c;
      if (self == PAT_ALL_RANKS || self == r || self == to) {
        pat_span own = pat_blocks(P, r, 1);
        if (pat_sched_transfer(s, c, r, to, 1, &own, PAT_OPF_PRESTEP)) goto nomem;
      }
      sent++;
      to = to - 1 < 0 ? P - 1 : to - 1;
      ot[i] = to;
      if (to == r) { /* sent to every other rank: saturated */
        prev[r] = P - 1;
        ov[i] = -1;
        ndead++;
      }
    }
    if (2 * ndead > nopen) { /* compact, keeping the order */
      int k = 0;
      for (int i = 0; i < nopen; i++)
        if (ov[i] >= 0) {
          ov[k] = ov[i];
          ot[k++] = ot[i];
        }
      nopen = k;
      ndead = 0;
    }
    if (sent) {
      c++;
      st++;
    } else if (e > 0) {
      st = S - ps[pa[e - 1]]; /* nobody open can send until the next rank opens */
    } else {
      break;
    }
  }
  /* prevSent from where each sender's receiver pointer stopped */
  for (int i = 0; i < nopen; i++)
    if (ov[i] >= 0) prev[ov[i]] = ((ov[i] - 1 - ot[i]) % P + P) % P;

  /* Ring pass, skipping blocks the pre-steps delivered. */
  {
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
          if (pat_sched_add(s, r, c + j, PAT_OP_SEND, right, 1, &sp, 0)) goto nomem;
        }
        if (prev[in] + j < P - 1) {
          pat_span sp = pat_blocks(P, in, 1);
          if (pat_sched_add(s, r, c + j, PAT_OP_RECV, left, 1, &sp, 0)) goto nomem;
        }
      }
    }
  }
  rc = PAT_OK;
  goto out;
nomem:
  rc = PAT_ENOMEM;
out:
  free(pa);
  free(prev);
  free(stamp);
  free(ov);
  free(ot);
  free(ps);
  return rc;
}
