/*
 * Fitting the cost model's parameters, and the model file.
 *
 * Fit (Nuriyev 2021, ch. 5): (alpha, beta) are fitted per algorithm, from
 * times measured while running that very algorithm at several block sizes on
 * balanced arrivals.  The prediction for block size m is the replay of the
 * algorithm's schedule, T(m) = alpha * c1(m) + beta * c2(m), where c1, c2 are
 * the replay's sensitivities to alpha and beta (a replay on equal arrivals
 * scales exactly with the parameters, so T is piecewise linear in them; c1,
 * c2 are first taken from replays with unit parameters, then refined at the
 * fitted point until the critical path no longer changes).  The fit is a
 * robust regression (Huber weights, iteratively reweighted least squares) on
 * relative residuals (T_meas - T_pred) / T_meas, so every size counts alike on
 * log-spaced sizes.  No negative parameters: a negative unconstrained slope
 * (beta) rejects the fit with a message; a negative intercept (alpha) is set
 * to 0 and beta refitted alone.
 *
 * The model file (parser and writer): model_file.h.  Pure C, no MPI.
 */
#ifndef PAT_FIT_H
#define PAT_FIT_H

#include <stddef.h>

#include "model/model.h"
#include "model/model_file.h" /* the fit's output; included for the tools that use both */

#define PAT_EFIT 20 /* the data cannot give an acceptable fit (see the message) */

#define PAT_FIT_EBAR 0    /* the measured time is ē (mean over ranks of e_i) */
#define PAT_FIT_RUNTIME 1 /* the measured time is r (first arrival to last exit) */

typedef struct pat_fit_opts {
  int metric;      /* PAT_FIT_EBAR (default) or PAT_FIT_RUNTIME */
  double huber_k;  /* Huber threshold in robust standard deviations; 0: 1.345 */
  int max_iter;    /* IRLS iterations; 0: 100 */
} pat_fit_opts;

typedef struct pat_fit_result {
  double alpha, beta;           /* the fit (s, s/byte) */
  double alpha_free, beta_free; /* the unconstrained robust fit */
  int alpha_clamped;            /* alpha came out negative: set to 0, beta refitted */
  int n;                        /* points */
  int n_down;                   /* points down-weighted as outliers */
  double scale;                 /* robust spread of the relative residuals (1.4826 MAD) */
  double rel_rms;               /* RMS relative residual over the points with full weight */
  double rel_max;               /* largest |relative residual| over all points */
  int iterations;               /* IRLS iterations of the last solve */
  int refinements;              /* re-linearisations of the replay (pat_fit_alg) */
  char msg[320];                /* why the fit was rejected; or a note (clamping) */
} pat_fit_result;

/* Fit T[i] ~ alpha * c1[i] + beta * c2[i] (i < n).  Returns PAT_OK,
 * PAT_EINVAL (fewer than 2 points, a time <= 0 or not finite, negative
 * coefficients) or PAT_EFIT (negative slope; sizes that cannot separate
 * alpha from beta), with out->msg saying why. */
int pat_fit_linear(int n, const double *c1, const double *c2, const double *T, const pat_fit_opts *opt,
                   pat_fit_result *out);

/* T[i] ~ alpha + beta * x[i] through a measurement's few sizes (a
 * ping-pong's, MPI_Reduce_local's): plain least squares on relative
 * residuals (too few points to tell an outlier; exact through two), alpha
 * clamped to 0 as pat_fit_linear does; a slope that is not > 0 is PAT_EFIT
 * (out->msg says so). */
int pat_fit_line(int n, const double *x, const double *T, pat_fit_result *out);

/* c1, c2 of algorithm alg on P ranks (root for rooted ones) at one block
 * size: the metric's derivatives with respect to alpha and beta at
 * (alpha0, beta0), from replays on equal arrivals.  (alpha0, beta0) = (1, 0)
 * and (0, 1) give the plain unit replays. */
int pat_fit_coeffs(int alg, int P, int root, double block_bytes, double alpha0, double beta0, int metric, double *c1,
                   double *c2);

/* Fit (alpha, beta) of algorithm alg from n measured times T[i] (s) at block
 * sizes block_bytes[i], on P ranks with balanced arrivals. */
int pat_fit_alg(int alg, int P, int root, int n, const double *block_bytes, const double *T, const pat_fit_opts *opt,
                pat_fit_result *out);

#endif
