/*
 * The build arguments of one call: the one place where they are made.
 *
 * The selection predicts an algorithm by replaying the schedule these
 * arguments build, and the runtime runs the schedule these same arguments
 * build, so the schedule that runs is the one predicted.  tau (the time to
 * move one block) and alpha (one message's latency) come from the cost
 * model's parameters of the algorithm, quantised to integer nanoseconds, so
 * every rank derives identical arguments from the broadcast model.
 */
#ifndef PAT_BUILD_ARGS_H
#define PAT_BUILD_ARGS_H

#include <stdint.h>

#include "algorithms/algorithms.h"
#include "model/model.h"

/* Algorithm alg on P ranks with node ids node[] (NULL: every rank on a node
 * of its own), built for `self` (a rank or PAT_ALL_RANKS), for the predicted
 * arrivals (ns, common clock; NULL: balanced) and blocks of block_bytes
 * bytes, rooted at root (rooted algorithms; else 0). */
pat_build_args pat_call_build_args(const pat_model_params *mp, int alg, int P, const int *node, int self,
                                   const int64_t *arrival, double block_bytes, int root);

/* A predicted time (s) as integer ns, as the selection compares and the
 * builders take them (INT64_MAX for anything too large, and NaN). */
int64_t pat_quantise_ns(double seconds);

#endif
