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
 * Model file: see pat_model_parse below for the format.  Pure C, no MPI.
 */
#ifndef PAT_FIT_H
#define PAT_FIT_H

#include <stddef.h>

#include "model/model.h"

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

/* ---- model file ----
 *
 *   # libpat model v1
 *   made calibrate: P=8, 10 sizes 1 KiB..4 MiB, emulated cluster 1 Gbit/s
 *   eager 65536
 *   default 5.0e-05 8.0e-09
 *   ring    4.8e-05 8.1e-09
 *   intra ring 2.0e-06 1.0e-10
 *
 * - The first line is exactly "# libpat model v1" (the format version).
 * - '#' starts a comment; blank lines are ignored; fields are separated by
 *   blanks.
 * - "made <text>": how the file was made (free text; several lines are
 *   joined with "; ").
 * - "eager <bytes>": messages of fewer bytes are sent eagerly (0: never); at
 *   most once, default 0.
 * - "default <alpha> <beta>": required; the parameters of every algorithm
 *   without its own line.
 * - "<algorithm> <alpha> <beta>": parameters fitted for one algorithm (a name
 *   of the portfolio: native, ring, nex, rdb, bruck, lnbc, bdr, bslb, ard,
 *   direct).
 * - "intra <algorithm|default> <alpha> <beta>": optional pair for transfers
 *   between ranks of the same node; needs the plain line of the same name.
 *   "inter <name> ..." is a synonym of the plain line.
 * - alpha in seconds, beta in seconds per byte; finite, >= 0, not both 0.
 *   Each name at most once per kind.
 */

/* Parse model text (name is used in messages).  On success fills mp (its
 * per-call fields take their defaults).  Returns PAT_OK, or PAT_EINVAL with
 * "name:line: what" in err. */
int pat_model_parse(const char *text, const char *name, pat_model_params *mp, char *err, size_t errlen);

/* Read and parse a file.  Returns PAT_OK or PAT_EINVAL (message in err). */
int pat_model_read(const char *path, pat_model_params *mp, char *err, size_t errlen);

/* The text of mp in the format above (exact round trip: %.17g).  Returns a
 * malloc'd string, or NULL when out of memory. */
char *pat_model_format(const pat_model_params *mp);

/* Write pat_model_format(mp) to path.  Returns PAT_OK or PAT_EINVAL (err). */
int pat_model_write(const char *path, const pat_model_params *mp, char *err, size_t errlen);

#endif
