/*
 * The all-reduce algorithms: builders of reduction schedules
 * (PAT_SCHED_REDUCE, algorithms/sched/schedule.h) and their registry, kept
 * apart from the all-gather's (algorithms.h) so that its numbering, its
 * names and every table sized by PAT_ALG_COUNT (the model file's lines,
 * auto's candidates) stay as they are.
 *
 * A reduction schedule's blocks are the P segments of the vector (segment b
 * of a vector of n elements: the executor's split, exec/reduce.h); a span
 * of all P of them is the whole vector.  Builders take the all-gather's
 * arguments (pat_build_args: P and self; the others are for arrival-aware
 * builders to come) and are pure in the same way.
 */
#ifndef PAT_ALLREDUCE_H
#define PAT_ALLREDUCE_H

#include "algorithms/algorithms.h"

enum pat_allreduce_id {
  PAT_ARED_RDB = 0,
  PAT_ARED_RING,
  PAT_ARED_RABENSEIFNER,
  PAT_ARED_RELAY,
  PAT_ARED_HRING,
  PAT_ARED_HRELAY,
  PAT_ARED_SLT,
  PAT_ARED_COUNT
};

/* pat_sched.alg of an all-reduce schedule: PAT_ARED_ALG_BASE + its id, beyond
 * every all-gather id, so that the model gives it the default parameters and
 * never an all-gather's fitted ones. */
#define PAT_ARED_ALG_BASE 100

/* It combines contributions in rank order (the checker's
 * PAT_CHECK_RANK_ORDER holds): right for a non-commutative op. */
#define PAT_AREDF_ORDERED 0x1u
/* It is built for a predicted order of arrival (a->arrival: the runtime
 * gathers the stamps for it) and runs as a data flow. */
#define PAT_AREDF_ARRIVAL 0x2u

typedef struct pat_allreduce_info {
  const char *name;
  pat_builder build;
  unsigned flags;
  const char *summary;
} pat_allreduce_info;

extern const pat_allreduce_info pat_allreduce_algorithms[PAT_ARED_COUNT];

/* Id for a name (case-insensitive), or PAT_ALG_UNKNOWN. */
int pat_allreduce_by_name(const char *name);

/* Build and finalize the schedule of all-reduce `id` into out (initialised
 * here, PAT_SCHED_REDUCE set; free with pat_sched_free).  PAT_OK or PAT_E*. */
int pat_build_allreduce(int id, pat_sched *out, const pat_build_args *a);

int pat_allreduce_rdb(pat_sched *s, const pat_build_args *a);
int pat_allreduce_ring(pat_sched *s, const pat_build_args *a);
int pat_allreduce_rabenseifner(pat_sched *s, const pat_build_args *a);
/* RELAY (allreduce_relay.c): arrival-aware, a data flow; reads a->arrival
 * (the predicted last rank) and a->block_bytes (a segment's bytes: the
 * vector's / P; 0 if unknown).  Commutative ops only. */
int pat_allreduce_relay(pat_sched *s, const pat_build_args *a);
/* The predicted last rank of the arrival-aware all-reduces: the latest in
 * a->arrival, the highest rank of a tie; P - 1 without a prediction. */
int pat_allreduce_late_rank(const pat_build_args *a);
/* HRING (allreduce_hring.c): two levels, for nodes of equal sizes; reads
 * a->node / a->nodes (NULL: every rank a node, the ring).  Commutative ops
 * only. */
int pat_allreduce_hring(pat_sched *s, const pat_build_args *a);
/* HRELAY (allreduce_hrelay.c): HRING's phases inside the nodes, RELAY's
 * between them: the predicted last rank's node owns nothing; reads
 * a->arrival, a->block_bytes and the node map as HRING and RELAY do.
 * Commutative ops only. */
int pat_allreduce_hrelay(pat_sched *s, const pat_build_args *a);
/* SLT (allreduce_slt.c): Proficz's sorted linear tree, pipelined, a data
 * flow: a chain in the predicted order of arrival (a->arrival, all of it;
 * rank order without one) sums the vector up to the last rank and hands the
 * result back down.  Commutative ops only. */
int pat_allreduce_slt(pat_sched *s, const pat_build_args *a);
/* The most a data-flow all-reduce's piece carries: under the eager limit
 * of the TCP transports (Open MPI's btl_tcp_eager_limit is 64 KiB with its
 * header; MPICH's is larger), so that a piece leaves at once instead of
 * waiting for a handshake that the receiver's progress must answer.  With
 * 87 KB pieces HRELAY measured 380 ms where pieces sent eagerly (a larger
 * eager limit) took 324 (4 hosts x 2 ranks, 1M floats, one rank 100 ms
 * late; HRING 368): the handshakes, answered by threads that share the
 * cores, kept the owners' links a quarter idle. */
#define PAT_ARED_RELAY_PIECE ((int64_t)60 * 1024)
#define PAT_ARED_RELAY_MAX_PIECES 64
/* How many pieces the data-flow all-reduces cut `bytes` into: none over
 * PAT_ARED_RELAY_PIECE, 1 to PAT_ARED_RELAY_MAX_PIECES. */
static inline int pat_allreduce_pieces(int64_t bytes) {
  int64_t k = (bytes + PAT_ARED_RELAY_PIECE - 1) / PAT_ARED_RELAY_PIECE;
  return k < 1 ? 1 : k > PAT_ARED_RELAY_MAX_PIECES ? PAT_ARED_RELAY_MAX_PIECES : (int)k;
}

/* The phases inside a node of the two-level all-reduces (allreduce_nodes.c):
 * part j of `parts` of chunk c of k (the chunk is
 * segments [c P / k, (c + 1) P / k), cut the same way); node h's ring over
 * its first k members from step `step`, a reduce-scatter (chunk i complete
 * at member i) or an all-gather; node h's extras, members past the first k,
 * adding their vector into member (position mod k) at step first + (p - k) / k
 * (reduce) or getting the result back from it.  pat_allreduce_node_shape:
 * k, the smallest node's size, and returns E, the most extras a member
 * takes (the extras' steps each way). */
pat_span pat_allreduce_chunk_part(int P, int k, int c, int parts, int j);
int pat_allreduce_node_ring(pat_sched *s, const pat_nodes *n, int h, int k, int step, int reduce);
int pat_allreduce_node_extras(pat_sched *s, const pat_nodes *n, int h, int k, int first, int reduce);
int pat_allreduce_node_shape(const pat_nodes *n, int *k);

/* The fold of a P that is not a power of two (allreduce_fold.c), which keeps
 * rank order: with p2 the largest power of two <= P and x = P - p2, rank 2i
 * hands its vector to rank 2i + 1 (i < x), which then stands for ranks 2i
 * and 2i + 1; the p2 ranks left are numbered v = 0..p2-1 in rank order, so
 * that an aligned group of them stands for a run of consecutive ranks, and
 * a combination with a higher-numbered partner is one with higher ranks. */
int pat_allreduce_pow2(int P); /* p2 */
/* v of rank r, or -1 for a rank folded away (an even rank below 2x) */
static inline int pat_allreduce_vrank(int P, int p2, int r) {
  int x = P - p2;
  if (r >= 2 * x) return r - x;
  return r % 2 ? r / 2 : -1;
}
static inline int pat_allreduce_rank_of(int P, int p2, int v) {
  int x = P - p2;
  return v < x ? 2 * v + 1 : v + x;
}
/* Step `step`: the fold (nothing where P is a power of two).  *next: the step after it. */
int pat_allreduce_fold(pat_sched *s, int P, int step, int *next);
/* Step `step`: each rank 2i + 1 hands the result back to rank 2i. */
int pat_allreduce_unfold(pat_sched *s, int P, int step);

#endif
