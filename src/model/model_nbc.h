/*
 * The non-blocking form of an all-gather under the cost model: each rank
 * posts at a_i (MPI_Iallgather), computes for T, then waits (MPI_Wait);
 * e_i = the wait's return - a_i, ē their mean.
 *
 *  - libpat's schedules (nbc.c) run in its background thread from the post,
 *    built for balanced arrivals (a rank's post is unknown to those that
 *    post before it): replayed under the posts, f_i each rank's finish;
 *    RELAY and HRELAY start ahead of the call (from the last call's blocks),
 *    so their steps that need no own block may run before the post (the
 *    replay's background from any time).  e_i = max(f_i - a_i, T).
 *  - MPI's own (Open MPI's libnbc, MPICH without its progress thread): no
 *    progress outside MPI calls, so the data move inside MPI_Wait, as the
 *    blocking call entered at a_i + T: e_i = T + e_i(blocking), modelled by
 *    the schedule own_as (the blocking replay of, e.g., RING under the posts).
 *
 * Bound: every rank's wait ends after its compute and after the last block
 * can have reached it, e_i >= max(T, lb_i), lb_i the blocking receive-port
 * bound (pat_lower_bound_nodes) under the posts.
 *
 * Pure C, no MPI.  What it leaves out: a compute phase that slows the
 * background thread (a core per rank and thread is assumed), and the
 * thread's polling (the report and the timeline show it where it matters).
 */
#ifndef PAT_MODEL_NBC_H
#define PAT_MODEL_NBC_H

#include <stdint.h>

#include "model/select.h"

typedef struct pat_nbc_prediction {
  double ebar; /* mean e_i, s */
  double emax; /* largest e_i */
  double lb;   /* the bound's mean of max(T, lb_i) */
} pat_nbc_prediction;

/* ē of alg's non-blocking form (PAT_ALG_NATIVE: MPI's own, as own_as's
 * blocking call entered after the compute) for posts post_ns[P] (ns, any
 * origin) and compute_s after each post; blocks of block_bytes; mp's nodes
 * as pat_predict's.  PAT_OK, or the replay's error. */
int pat_model_nbc(pat_select_cache *c, int alg, int own_as, int P, const int64_t *post_ns, double compute_s,
                  double block_bytes, const pat_model_params *mp, pat_nbc_prediction *out);

#endif
