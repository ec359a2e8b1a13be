/*
 * The node model: HRING's and HRELAY's ē at node granularity, for the
 * selection where replaying their schedules costs too much (P = 1024 in
 * nodes of 16-32: HRELAY has about 2 P^2 ops, and where nodes share their
 * links the replay pays microseconds per op; model_nodes.c).
 *
 * It follows the schedule the builder makes (the same ports, pieces and
 * relay nodes) but serves every link as a queue in the blocks' arrival
 * order instead of sharing it: a node's send link, a node's receive link,
 * and the send port of the rank that hands a block on inside a node.  A
 * transfer ends when both of its links have served it.  O(P H) for HRELAY
 * with whole blocks, O(P H kp) with kp pieces, O(H^2 log H + P) for HRING.
 *
 * It departs from the fluid replay where the replay shares a link among
 * flows that end together (a balanced start: every block lands at once,
 * then every hand-out runs; here they overlap): unit.test_model_nodes
 * states the agreement on P = 64 and 128 in nodes of 16.
 *
 * Pure C, no MPI.
 */
#ifndef PAT_MODEL_NODES_H
#define PAT_MODEL_NODES_H

#include "model/model.h"

/* Can the node model predict alg under mp: HRING or HRELAY, mp's node map
 * made (mp->nodes), regular (pat_nodes.regular), hierarchical, with shared
 * links? */
int pat_model_nodes_fits(int alg, const pat_model_params *mp);

/* alg's ē under arrivals a (s, relative to the earliest: min 0), built
 * with args (its tau and arrivals decide HRELAY's pieces as in the
 * builder), blocks of block_bytes.  Fills out's ebar, emax, r, omega, f
 * and e (if given); transfers counts the modelled inter-node ones.
 * Returns PAT_OK, PAT_EINVAL (not fits) or PAT_ENOMEM. */
int pat_model_nodes(int alg, const pat_build_args *args, const double *a, const pat_model_params *mp,
                    double block_bytes, pat_model_result *out);

#endif
