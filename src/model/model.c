/*
 * The replay's entry point (see model.h for the semantics; the engine is
 * model_fluid.c) and the receive-port lower bound.
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
  int rc = pat_replay_fluid(&R);
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
