/*
 * The model's parameters and the receive-port lower bound (the replay, with
 * its entry points, is model_fluid.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

void pat_model_params_init(pat_model_params *mp, double alpha, double beta) {
  memset(mp, 0, sizeof *mp);
  mp->dflt.set = 1;
  mp->dflt.inter.alpha = alpha;
  mp->dflt.inter.beta = beta;
  mp->gamma = PAT_MODEL_GAMMA_DEFAULT;
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

/* ------------------------------------------------------------------ */
/* Lower bound                                                          */

/* A block's release (arrival relative to the earliest) and transfer time. */
typedef struct release {
  double at, tau;
} release;

static int release_cmp(const void *pa, const void *pb) {
  const release *a = pa, *b = pb;
  return (a->at > b->at) - (a->at < b->at);
}

/* tau_each NULL: every block takes tau. */
static double lower_bound(int P, const double *arrival, double tau, const double *tau_each, double *e_lb_out) {
  if (P < 1) return 0;
  if (P == 1) {
    if (e_lb_out) e_lb_out[0] = 0;
    return 0;
  }
  /* Serving releases in sorted order is optimal for one machine.  With the
   * sorted releases b_0 <= ... <= b_{P-1} and b_k removed (rank i's own):
   * f = max(pre_k + rest_k, suf_{k+1}), pre_k = makespan of b_0..b_{k-1},
   * rest_k = the transfer times after k, suf_k = makespan of b_k.. from an
   * idle start (max-plus linearity). */
  release *b = malloc((size_t)P * sizeof *b);
  double *pre = malloc((size_t)(P + 1) * sizeof *pre), *suf = malloc((size_t)(P + 1) * sizeof *suf),
         *rest = malloc((size_t)(P + 1) * sizeof *rest);
  double amin = arrival[0], result = 0;
  if (!b || !pre || !suf || !rest) goto out;
  for (int i = 1; i < P; i++)
    if (arrival[i] < amin) amin = arrival[i];
  for (int i = 0; i < P; i++) b[i] = (release){arrival[i] - amin, tau_each ? tau_each[i] : tau};
  qsort(b, (size_t)P, sizeof *b, release_cmp);
  pre[0] = -INFINITY;
  for (int k = 0; k < P; k++) pre[k + 1] = (pre[k] > b[k].at ? pre[k] : b[k].at) + b[k].tau;
  /* rest[k] = sum of the times of b_k..; suf[k] = max(b_k + rest[k], suf[k+1]) */
  rest[P] = 0;
  suf[P] = -INFINITY;
  for (int k = P - 1; k >= 0; k--) {
    rest[k] = tau_each ? rest[k + 1] + b[k].tau : (P - k) * tau; /* equal times: as before, bit for bit */
    double v = b[k].at + rest[k];
    suf[k] = v > suf[k + 1] ? v : suf[k + 1];
  }
  double sum = 0;
  for (int i = 0; i < P; i++) {
    double ai = arrival[i] - amin, ti = tau_each ? tau_each[i] : tau;
    /* rank i's own block: a release equal to a_i; with unequal times the one
     * with i's time (any such one gives the same bound) */
    int lo = 0, hi = P - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (b[mid].at < ai)
        lo = mid + 1;
      else
        hi = mid;
    }
    int k = lo;
    while (tau_each && k + 1 < P && b[k].tau != ti && b[k + 1].at == ai) k++;
    double f1 = pre[k] + rest[k + 1], f = f1 > suf[k + 1] ? f1 : suf[k + 1];
    double e = f - ai > 0 ? f - ai : 0;
    if (e_lb_out) e_lb_out[i] = e;
    sum += e;
  }
  result = sum / P;
out:
  free(b);
  free(pre);
  free(suf);
  free(rest);
  return result;
}

double pat_lower_bound(int P, const double *arrival, double tau, double *e_lb_out) {
  return lower_bound(P, arrival, tau, NULL, e_lb_out);
}

typedef struct timed_block {
  double at;
  int rank;
} timed_block;

static int timed_cmp(const void *x, const void *y) {
  const timed_block *p = x, *q = y;
  if (p->at != q->at) return p->at < q->at ? -1 : 1;
  return p->rank - q->rank;
}

double pat_lower_bound_allreduce(int P, const double *arrival, double tau, const int *node, double *e_lb_out) {
  double sum = 0;
  for (int i = 0; i < P; i++) {
    double last = -INFINITY;
    for (int j = 0; j < P; j++)
      if (j != i && (!node || node[j] != node[i]) && arrival[j] > last) last = arrival[j];
    const double e = last + P * tau - arrival[i] > 0 ? last + P * tau - arrival[i] : 0;
    if (e_lb_out) e_lb_out[i] = e;
    sum += e;
  }
  return P > 0 ? sum / P : 0;
}

double pat_lower_bound_nodes(int P, const double *arrival, double tau, const int *node, double *e_lb_out) {
  pat_nodes n;
  if (!node || P < 2 || pat_nodes_make(P, node, &n) != PAT_OK) return pat_lower_bound(P, arrival, tau, e_lb_out);
  if (n.H == P) {
    pat_nodes_free(&n);
    return pat_lower_bound(P, arrival, tau, e_lb_out);
  }
  timed_block *b = malloc((size_t)P * sizeof *b);
  double *done = malloc((size_t)n.H * sizeof *done), sum = 0;
  if (!b || !done) {
    free(b);
    free(done);
    pat_nodes_free(&n);
    return NAN;
  }
  for (int i = 0; i < P; i++) b[i] = (timed_block){arrival[i], i};
  qsort(b, (size_t)P, sizeof *b, timed_cmp);
  for (int h = 0; h < n.H; h++) { /* node h's link takes in every other node's block, in release order */
    double t = -INFINITY;
    for (int k = 0; k < P; k++)
      if (n.of[b[k].rank] != h) t = (t > b[k].at ? t : b[k].at) + tau;
    done[h] = t;
  }
  for (int i = 0; i < P; i++) {
    const double e = done[n.of[i]] - arrival[i] > 0 ? done[n.of[i]] - arrival[i] : 0;
    if (e_lb_out) e_lb_out[i] = e;
    sum += e;
  }
  free(b);
  free(done);
  pat_nodes_free(&n);
  return sum / P;
}

double pat_lower_bound_v(int P, const double *arrival, const double *tau, double *e_lb_out) {
  return lower_bound(P, arrival, 0, tau, e_lb_out);
}

double pat_lower_bound_persistent(int P, const double *arrival, double alpha, double tau, const double *tau_each,
                                  double *e_lb_out) {
  if (P < 1) return 0;
  /* the receive port's bound (blocks released at their owners' starts), per rank; zeros (no term)
   * if lower_bound could not allocate, which leaves them unwritten */
  double *port = calloc((size_t)P, sizeof *port);
  if (!port) return NAN;
  lower_bound(P, arrival, tau, tau_each, port);
  /* the two latest block arrivals (a_j + alpha + tau_j): rank i's own block is left out, so i takes the
   * latest unless it is its own, then the second */
  double first = -INFINITY, second = -INFINITY;
  int first_rank = -1;
  for (int j = 0; j < P; j++) {
    double t = arrival[j] + alpha + (tau_each ? tau_each[j] : tau);
    if (t > first) {
      second = first;
      first = t;
      first_rank = j;
    } else if (t > second) {
      second = t;
    }
  }
  double sum = 0;
  for (int i = 0; i < P; i++) {
    double other = i == first_rank ? second : first, T = other > arrival[i] ? other : arrival[i];
    double e = P == 1 ? 0 : T - arrival[i];
    if (port[i] > e) e = port[i];
    if (e_lb_out) e_lb_out[i] = e;
    sum += e;
  }
  free(port);
  return sum / P;
}
