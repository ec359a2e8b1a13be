/*
 * A reduction's side of the executor: what a schedule flagged
 * PAT_SCHED_REDUCE (algorithms/sched/schedule.h) needs beyond an
 * all-gather's buffers, the call's MPI_Op and a receive buffer.
 *
 * The vector (count elements of the call's datatype) is the accumulator:
 * it holds the rank's contribution at the start and the result at the end.
 * Its P segments are the schedule's blocks: segment b is counts[b] elements
 * at displs[b], the first count % P segments one element longer.  A piece of
 * a segment ([lo, hi) in 1/PAT_FRAC_ONE) is a run of whole elements,
 * floor(counts[b] * lo / PAT_FRAC_ONE) up to the same of hi, so that every
 * rank cuts alike and no element is split.
 *
 * Sends and plain receives move segments of the vector in place.  A
 * reducing receive lands in the receive buffer, at the same place as in the
 * vector (one layout, so one message description serves both), and is
 * combined once the step's messages are complete (the executor calls
 * pat_reduce_combine then: a send of the step may read the same bytes):
 *   held = in (op) held    MPI_Reduce_local(in, held)
 *   held = held (op) in    (PAT_OPF_REDUCE_HIGH) MPI_Reduce_local(held, in),
 *                          then in is copied over held.
 * The side is honoured for every op, commutative or not: both ranks of a
 * pair that combine the same two runs then compute the same expression and
 * get the same bits (a predefined MPI_MAX, for one, can tell -0.0 from +0.0
 * by the order of its operands).
 *
 * In data flow (exec/flow.c) several receives of the same bytes may be in
 * flight at once, and a plain receive may not write over bytes an earlier
 * send still reads: every receive then lands in a buffer of its own (a
 * landing, laid out as the vector's elements it covers) and is applied,
 * combined or copied in, when the executor says its turn has come.
 */
#ifndef PAT_EXEC_REDUCE_H
#define PAT_EXEC_REDUCE_H

#include <mpi.h>

#include "algorithms/sched/schedule.h"
#include "exec/buffers.h"

typedef struct pat_reduce {
  MPI_Op op;
  MPI_Datatype type;
  int count;
  MPI_Aint extent;
  int dense;            /* pat_type_is_dense(type): copies by memcpy */
  int *counts, *displs; /* the P segments (owned) */
  char *scratch;        /* the receive buffer, addressed as the vector is (element 0 at scratch) */
  char *scratch_mem;    /* its allocation */
} pat_reduce;

/* The P segments of count elements (arrays of P). */
void pat_reduce_segments(int P, int count, int *counts, int *displs);

/* Set b up for a reduction of count elements of type at vec with op (typed
 * view of the segments, b->reduce = r, a receive buffer).  MPI_SUCCESS or an
 * MPI error code; release with pat_reduce_release either way. */
int pat_reduce_init(pat_reduce *r, pat_buffers *b, MPI_Comm comm, int P, int self, void *vec, int count,
                    MPI_Datatype type, MPI_Op op);
void pat_reduce_release(pat_reduce *r, pat_buffers *b);

/* This rank's contribution into the vector (nothing for MPI_IN_PLACE). */
int pat_reduce_put_own(const pat_reduce *r, const pat_buffers *b, const void *sendbuf);

/* The message of a send or receive op: segments of the vector, or of the
 * receive buffer for a reducing receive. */
int pat_reduce_describe(const pat_buffers *b, const pat_op *op, pat_msg *m);
/* A reducing receive's bytes, arrived, combined into the vector. */
int pat_reduce_combine(const pat_buffers *b, const pat_op *op);

/* A receive's own buffer in data flow: elements [origin, ...) of the
 * vector's layout, element `origin` at base. */
typedef struct pat_reduce_landing {
  char *mem, *base;
  int origin;
} pat_reduce_landing;
/* The landing of receive op (none needed, mem NULL, for an op of no
 * elements).  MPI_SUCCESS or MPI_ERR_NO_MEM. */
int pat_reduce_landing_make(const pat_buffers *b, const pat_op *op, pat_reduce_landing *l);
/* The message of receive op into its landing. */
int pat_reduce_describe_landing(const pat_buffers *b, const pat_op *op, const pat_reduce_landing *l, pat_msg *m);
/* Receive op's arrived bytes, from its landing, into the vector: combined
 * (PAT_OPF_REDUCE, on its side) or copied. */
int pat_reduce_apply_landing(const pat_buffers *b, const pat_op *op, const pat_reduce_landing *l);

#endif
