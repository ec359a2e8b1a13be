/* Statistics of a run: description, 95% confidence interval, lower bound. */
#include <math.h>
#include <stdlib.h>

#include "mb.h"

double mb_t975(int df) {
  static const double table[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return NAN;
  if (df <= 30) return table[df - 1];
  /* Cornish-Fisher expansion around the normal quantile */
  double z = 1.959964, d = (double)df;
  return z + (z * z * z + z) / (4 * d) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

void mb_describe(const double *x, int n, double *mean, double *sd, double *min, double *max) {
  double s = 0, lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < n; i++) {
    s += x[i];
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
  double m = n > 0 ? s / n : NAN, v = 0;
  for (int i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
  *mean = m;
  *sd = n > 1 ? sqrt(v / (n - 1)) : NAN;
  *min = n > 0 ? lo : NAN;
  *max = n > 0 ? hi : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double mb_median(const double *x, int n) {
  if (n < 1) return NAN;
  double *y = malloc(sizeof(double) * (size_t)n);
  if (!y) return NAN;
  for (int i = 0; i < n; i++) y[i] = x[i];
  qsort(y, (size_t)n, sizeof(double), cmp_double);
  double m = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
  free(y);
  return m;
}

double mb_lower_bound(const double *a, int P, double tau) {
  if (P < 2) return 0;
  double *sorted = malloc(sizeof(double) * (size_t)P);
  if (!sorted) return NAN;
  for (int i = 0; i < P; i++) sorted[i] = a[i];
  qsort(sorted, (size_t)P, sizeof(double), cmp_double);
  double sum = 0;
  for (int i = 0; i < P; i++) {
    /* release-time single-machine makespan, in release order, skipping one
     * occurrence of a[i] (its own block) */
    double t = -INFINITY;
    int skipped = 0;
    for (int k = 0; k < P; k++) {
      if (!skipped && sorted[k] == a[i]) {
        skipped = 1;
        continue;
      }
      t = (t > sorted[k] ? t : sorted[k]) + tau;
    }
    double e = t - a[i];
    sum += e > 0 ? e : 0;
  }
  free(sorted);
  return sum / P;
}

/* mb_lower_bound_v: blocks sorted by arrival (ties in rank order: equal
 * releases give the same makespan in any order) */
typedef struct release {
  double at;
  int rank;
} release;

static int cmp_release(const void *x, const void *y) {
  const release *a = x, *b = y;
  if (a->at != b->at) return (a->at > b->at) - (a->at < b->at);
  return (a->rank > b->rank) - (a->rank < b->rank);
}

/* max(0, f_i - a_i) for rank i, f_i the makespan, in the release order `order`, of the blocks it
 * must take in through one port: every block but its own (node NULL), or every block of another
 * node (its node's link); block j takes tau_v[j], or tau when tau_v is NULL.  O(P). */
static double port_e(const double *a, int P, const release *order, const double *tau_v, double tau, const int *node,
                     int i) {
  double t = -INFINITY;
  for (int k = 0; k < P; k++) {
    const int j = order[k].rank;
    if (node ? node[j] == node[i] : j == i) continue;
    t = (t > a[j] ? t : a[j]) + (tau_v ? tau_v[j] : tau);
  }
  double e = t - a[i];
  return e > 0 ? e : 0;
}

/* The releases a[0..P) in order (NULL without memory). */
static release *release_order(const double *a, int P) {
  release *order = malloc(sizeof *order * (size_t)P);
  if (!order) return NULL;
  for (int i = 0; i < P; i++) order[i] = (release){a[i], i};
  qsort(order, (size_t)P, sizeof *order, cmp_release);
  return order;
}

/* The mean over ranks of port_e.  O(P^2): a benchmark's P. */
static double port_bound(const double *a, int P, const double *tau_v, double tau, const int *node) {
  if (P < 2) return 0;
  release *order = release_order(a, P);
  if (!order) return NAN;
  double sum = 0;
  for (int i = 0; i < P; i++) sum += port_e(a, P, order, tau_v, tau, node, i);
  free(order);
  return sum / P;
}

double mb_lower_bound_v(const double *a, int P, const double *tau) { return port_bound(a, P, tau, 0, NULL); }

double mb_lower_bound_nodes(const double *a, int P, double tau, const int *node) {
  return port_bound(a, P, NULL, tau, node);
}

double mb_lower_bound_persistent(const double *a, int P, double tau, const double *tau_v) {
  if (P < 2) return 0;
  release *order = release_order(a, P);
  if (!order) return NAN;
  double sum = 0;
  for (int i = 0; i < P; i++) {
    double t = a[i];
    for (int j = 0; j < P; j++) {
      double in = a[j] + (tau_v ? tau_v[j] : tau);
      if (j != i && in > t) t = in;
    }
    double e = t - a[i], port = port_e(a, P, order, tau_v, tau, NULL, i);
    sum += port > e ? port : e;
  }
  free(order);
  return sum / P;
}

double mb_lower_bound_allreduce(const double *a, int P, double tau, const int *node) {
  if (P < 2) return 0;
  double sum = 0;
  for (int i = 0; i < P; i++) {
    double t = a[i]; /* no other node: nothing need cross a link, e_i >= 0 only */
    for (int j = 0; j < P; j++)
      if ((node ? node[j] != node[i] : j != i) && a[j] + P * tau > t) t = a[j] + P * tau;
    sum += t - a[i];
  }
  return sum / P;
}
