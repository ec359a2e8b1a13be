/*
 * Measured times: what the calibration (pat-calibrate) timed for every
 * algorithm of the portfolio, NATIVE included, on balanced arrivals at
 * log-spaced block sizes on P processes, kept in the model file (v2 "P" and
 * "time" lines, see model_file.h) and in pat_model_params.measured.
 *
 * These are the balanced part of the selection: the time an algorithm takes
 * when every rank arrives together, measured rather than predicted by one
 * Hockney line per algorithm (which misses the measured times badly over a
 * calibration's range of sizes).  The schedule replay stays what tells an algorithm's response to
 * imbalance.
 *
 * Between and beyond the measured sizes (for algorithm a on exactly the
 * calibration's P; any other P has no table):
 *
 *  - at a measured size: the measured time, exactly;
 *  - between two neighbouring sizes m0 < m < m1: log-log interpolation,
 *      t = t0 * (t1 / t0) ^ (log(m / m0) / log(m1 / m0)),
 *    a power law through both points.  Sizes are log-spaced and times span
 *    orders of magnitude, so the error should be relative, alike at 1 B and
 *    1 MiB: log-log is exact in both limiting regimes (flat when
 *    latency-bound, proportional when bandwidth-bound) and within 6% of a
 *    Hockney curve alpha + beta*m anywhere in a factor-4 gap (1.5% for
 *    factor 2, 14% for factor 8).  The result lies between t0 and t1 and is
 *    monotone in m;
 *  - below the smallest measured size m0: t0.  Small blocks are
 *    latency-bound (the time hardly depends on the size), and the time can
 *    only shrink towards a floor, so the smallest size's time is the honest,
 *    slightly pessimistic answer (a block of 0 bytes included);
 *  - above the largest size m1: the straight line (in linear space) through
 *    the last two points m0 < m1, extended:
 *      t = t1 + max(0, (t1 - t0) / (m1 - m0)) * (m - m1).
 *    Large blocks are bandwidth-bound: the time grows linearly with the
 *    size at the marginal cost per byte the last two sizes show (a power
 *    law would keep the curvature of the last gap and drift).  A falling
 *    last pair (noise) extends flat: time never decreases with size.
 *
 * Deterministic to the bit: every rank decides from the same broadcast
 * table, and a choice that differed between ranks would run two algorithms
 * at once.  The logarithm and the power are therefore computed here with
 * IEEE-754 basic operations only (+, -, *, / are correctly rounded, frexp,
 * ldexp and floor are exact), never with libm's log/exp/pow, which are not
 * correctly rounded and may differ between C libraries on different nodes.
 *
 * Pure C, no MPI.
 */
#ifndef PAT_MEASURED_H
#define PAT_MEASURED_H

#include "model/model.h"

/* Results of pat_measured_add. */
#define PAT_MEASURED_ADDED 0
#define PAT_MEASURED_BAD 1       /* algorithm out of range, or a size or time not finite and > 0 */
#define PAT_MEASURED_DUPLICATE 2 /* this algorithm has a time at this size already */
#define PAT_MEASURED_FULL 3      /* PAT_MEASURED_MAX sizes already */

/* Add the time measured for algorithm alg at block_bytes to t, in size
 * order (the table's P is the caller's to set).  Returns PAT_MEASURED_*. */
int pat_measured_add(pat_measured *t, int alg, double block_bytes, double seconds);

/* The measured (and interpolated) balanced time of algorithm alg for blocks
 * of block_bytes (>= 0) on P processes, by the rules above.  Returns 1 with
 * *seconds set when the table answers: P is exactly the calibration's and alg
 * has measured times; else 0 and *seconds is left alone. */
int pat_model_measured_time(const pat_model_params *mp, int alg, int P, double block_bytes, double *seconds);

/* The same from the back-to-back table (model file "b2b" lines), only up to
 * its largest measured size: the calibration measures it at small blocks,
 * and above them a call's own cost dominates whatever came before it. */
int pat_model_measured_b2b_time(const pat_model_params *mp, int alg, int P, double block_bytes, double *seconds);

/* Every algorithm's measured time for (P, block_bytes) into
 * seconds[PAT_ALG_COUNT], NAN where the table has none: the levels
 * pat_select_in.flat_s takes. */
void pat_model_measured_levels(const pat_model_params *mp, int P, double block_bytes, double *seconds);

/* The algorithm with the smallest measured time for (P, block_bytes) among
 * the allowed ones (bit 1u << alg per candidate; 0: every algorithm), ties
 * to the lower id; its time in *seconds (may be NULL).  Returns the
 * algorithm, or PAT_ALG_UNKNOWN when no allowed algorithm has a time. */
int pat_model_measured_best(const pat_model_params *mp, unsigned allowed, int P, double block_bytes,
                            double *seconds);

/* NULL when mp has measured times; otherwise what to tell a user (a model
 * file v1, or none, has fitted lines only). */
const char *pat_model_measured_note(const pat_model_params *mp);

#endif
