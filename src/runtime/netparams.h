/*
 * The cost model's parameters, identical on every rank: from the PAT_MODEL
 * file (world rank 0 reads it and broadcasts its text; every rank parses
 * the same text), or, without one, a quick ping-pong estimate made at
 * PAT_Init by world rank 0 and a partner and broadcast by rank 0.  The
 * partner is the first rank on another node where the job spans nodes: the
 * parameters are the inter-node pair's (the model's default and the block
 * time tau that tells balanced calls from imbalanced ones and gives the
 * lower bound), and ranks 0 and 1 of one node measured shared memory
 * instead (4 hosts x 2 ranks, 200 Mbit/s: calls at 128x their "bound",
 * balanced ones taken for imbalanced).
 */
#ifndef PAT_NETPARAMS_H
#define PAT_NETPARAMS_H

#include <mpi.h>

#include "model/model.h"

/* Collective over world.  model_path: rank 0's PAT_MODEL ("" for none);
 * partner: the world rank rank 0 ping-pongs with (1 <= partner < size; the
 * same on every rank); nodes: world's nodes (0: unknown).  A model file
 * calibrated on another number of nodes ("nodes" line) is left out, with a
 * warning from rank 0: its times and fits are of another shape (on 4 hosts
 * x 2 ranks, a file made on 8 hosts x 1 rank made auto run DIRECT at 1.9-2.4x
 * HRELAY); the ping-pong estimate stands, as without a file.  So is one
 * calibrated on as many ranks as the job's placed otherwise on their nodes
 * ("placement" line, against placement: the world's, model/placement.h, 0
 * unknown): its measured times are that placement's (by slot, a ring on 4
 * hosts x 2 ranks measured half what it takes round robin). */
int pat_netparams_init(MPI_Comm world, const char *model_path, int partner, int nodes, uint64_t placement);

const pat_model_params *pat_netparams(void);
/* 1 if they came from a model file, 0 for the
 * ping-pong estimate: the same on every rank. */
int pat_netparams_have_model(void);
/* Without a model file: the seconds per byte of PAT_Init's ping-pong of
 * world rank 0 and its partner, two processes alone (the same on every
 * rank; 0 with a model file or a single process).  Where the two are on
 * different nodes it is what a model file's link line measures
 * (pat-calibrate). */
double pat_netparams_pingpong_beta(void);
/* Pacing (PAT_PACE): the replay holds forwards as the executor does, at
 * this rate (s per byte; 0: no pacing).  PAT_Init sets it with the
 * executor's (every rank the same). */
void pat_netparams_set_pace(double s_per_byte);
/* Where the parameters came from, for pat_info. */
const char *pat_netparams_source(void);

#endif
