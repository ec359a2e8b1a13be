/* Hooks for the test suite: observe decisions, inject predictions. */
#ifndef PAT_DEBUG_H
#define PAT_DEBUG_H

#include <mpi.h>
#include <stdint.h>

/* Replaces every arrival a rank contributes, so tests can feed deliberately
 * wrong predictions (NULL: no hook). */
extern int64_t (*pat_test_prediction_hook)(int rank, int P, int64_t seq, int64_t predicted);

/* The last decision on comm: its digest, algorithm and (if arrivals is not
 * NULL) the P arrivals it was made from. */
int pat_debug_last_plan(MPI_Comm comm, uint64_t *digest, int *alg, int64_t *arrivals);

/* Was auto's decision engine made for comm (a call on it ran under auto)?
 * 0 or 1; -1 if comm has no state of libpat's. */
int pat_debug_engine_made(MPI_Comm comm);

/* Do comm's blocking all-gathers go on libpat's channels (1), or on
 * duplicates of comm made because a rank had no channel free (0)?  -1 if
 * comm has no state of libpat's. */
int pat_debug_on_channels(MPI_Comm comm);

/* What comm's one context of libpat's holds (comm.h): PAT_DEBUG_CONTEXT if
 * comm has one, with PAT_DEBUG_CONTEXT_BLOCKING once its blocking calls'
 * channels are agreed and PAT_DEBUG_CONTEXT_NONBLOCKING while its
 * non-blocking part lives; 0 if it has none. */
enum { PAT_DEBUG_CONTEXT = 1, PAT_DEBUG_CONTEXT_BLOCKING = 2, PAT_DEBUG_CONTEXT_NONBLOCKING = 4 };
int pat_debug_context_forms(MPI_Comm comm);

/* auto's all-reduce choice on comm for vectors of `bytes`
 * (decide/allreduce_choice.h): the candidate index taken, -1 while its
 * trials run, -2 where auto does not time such calls (too small, one node,
 * no state). */
int pat_debug_allreduce_choice(MPI_Comm comm, long long bytes);

/* The last arrival of comm's last blocking arrival-aware all-reduce, which the next
 * one is built for (the same on every rank); -1 before the first. */
int pat_debug_allreduce_late(MPI_Comm comm);
/* ... and the whole order of arrival it learned (order: P ranks, earliest first): 1, or 0 before the first. */
int pat_debug_allreduce_order(MPI_Comm comm, int *order);

#endif
