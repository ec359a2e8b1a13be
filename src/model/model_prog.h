/*
 * Compiled replay programs: what the selection needs to predict a classic
 * algorithm at P = 1024 in microseconds.
 *
 * A classic schedule depends only on P (and the root), so its structure is
 * compiled once per (algorithm, P, root) and then evaluated for any arrival
 * pattern and parameters.  Evaluation gives exactly (bit for bit) what
 * pat_model_replay gives on the full schedule, whenever every transfer is
 * rendezvous (to rounding where a port is shared) and no step is a mesh;
 * otherwise it reports PAT_MODEL_FALLBACK and the caller replays the
 * schedule.
 *
 * Two forms:
 *  - uniform: every rank has ops in every step, sends at most one and
 *    receives at most one message per step, sends its own block in step 0,
 *    and all messages of a step carry the same number of blocks (RING, NEX,
 *    BRUCK, RDB for powers of two).  With one (alpha, beta) for every
 *    transfer, every rank then leaves at f = (((max a) + c_0) + c_1) + ...,
 *    c_t the cost of step t's messages: entry(r, t+1) = max over r's ops of
 *    (max(entry(r, t), entry(peer, t)) + c_t), rounding is monotone so the
 *    max commutes with each addition, and in a valid all-gather every rank's
 *    exit depends on every arrival (each block reaches every rank).  O(P).
 *  - general: the transfers, step by step, with the ports that serve
 *    several transfers in a step; evaluated by one sweep over the steps.
 *    Such a port is shared by processor sharing (its transfers' other ends
 *    carry nothing else in that step, so this is the fluid replay's
 *    sharing), O(n log n) for its n transfers.  A "mesh" step, in which a
 *    transfer meets a busy port at both ends (DIRECT's), needs the replay
 *    itself: the program reports PAT_MODEL_FALLBACK.  (With rendezvous
 *    lockstep transfers a port only carries transfers of one step at a
 *    time, so steps can be swept one after the other.)
 * A uniform program also gets its general form when a node map with
 * intra-node parameters makes costs differ between transfers.
 *
 * Compiling builds one rank at a time (memory O(P + ops of one rank)).  The
 * program assumes a valid schedule (pat_sched_check); the classic builders are
 * checked by test_classic_schedules.
 */
#ifndef PAT_MODEL_PROG_H
#define PAT_MODEL_PROG_H

#include "model/model.h"

typedef struct pat_prog pat_prog;

/* Compile algorithm alg for P ranks (root for rooted algorithms) by building
 * each rank's schedule.  general: also compile the general form of a
 * uniform program.  Returns PAT_OK, a builder's error (PAT_EINVAL) or
 * PAT_ENOMEM. */
int pat_prog_compile(pat_prog **out, int alg, int P, int root, int general);

/* Evaluate under arrivals relative to the earliest one (a[i] >= 0, min 0).
 * mp->bg_start is relative to the same origin; mp->trace is ignored.  Fills
 * out like pat_model_replay (f relative to that origin).  Returns PAT_OK,
 * PAT_MODEL_FALLBACK (eager transfers, or a uniform program without its
 * general form facing unequal costs) or PAT_ENOMEM. */
int pat_prog_eval(const pat_prog *g, const double *a, const pat_model_params *mp, double block_bytes,
                  pat_model_result *out);

int pat_prog_is_uniform(const pat_prog *g);
void pat_prog_free(pat_prog *g);

#endif
