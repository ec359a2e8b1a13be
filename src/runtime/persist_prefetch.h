/*
 * The prefetching schedule of persistent all-gathers (persist_prefetch.c):
 * a persistent call's blocks are taken into libpat's staging buffer while
 * this rank computes, before its PAT_Start, where the starts spread (each
 * rank then relays its block through the others); under auto, MPI's own
 * all-gather where they do not.
 *
 * Locks (docs/locks.md): prefetch_lock, a leaf, guards every prefetching
 * call; it is held for a start (the application's thread) and for one pass
 * of the background thread, in which only non-blocking MPI is called.
 */
#ifndef PAT_PERSIST_PREFETCH_H
#define PAT_PERSIST_PREFETCH_H

#include <mpi.h>

typedef struct pat_prefetch pat_prefetch;

/* May a persistent call on a communicator of P processes run the
 * prefetching schedule under the process's setting (an arrival-aware one or
 * auto, with the background thread)?  The same on every rank. */
int pat_prefetch_applies(int P);

/* Set up a persistent all-gather (counts NULL; recvcount each) or
 * all-gatherv (counts, displs) on comm, whose copy *own (libpat's, the
 * persistent call's) its messages go on: taken over where *out is made
 * (*own becomes MPI_COMM_NULL; freed with the call).  Under
 * auto on a communicator with more than one rank on a node, *out is NULL
 * (MPI_SUCCESS): every start is MPI's own (the same on every rank).  When a
 * round completes, the background thread sends an empty message with
 * signal_tag to this process in signal_comm (persist.c's completion).  Checks the
 * arguments once (they cannot change).  trace_id: its number in the
 * timeline (PAT_TIMELINE).  Returns an MPI error code. */
int pat_prefetch_make(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      const int *counts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Comm *own,
                      MPI_Comm signal_comm, int signal_tag, long long trace_id, pat_prefetch **out);

/* Start the next round: the staged blocks go into recvbuf, this rank's
 * block goes out.  Non-blocking.  Returns an MPI error code; on an error
 * the round was not started (no signal will come). */
int pat_prefetch_start(pat_prefetch *f);

/* The application saw its request complete (PAT_Waited): with
 * PAT_TIMELINE, the round's trace is written now with this time. */
void pat_prefetch_waited(pat_prefetch *f);

/* The other ranks' blocks of the current (or next) round received so far. */
int pat_prefetch_held(pat_prefetch *f);

/* The application freed the persistent call: it goes now if no round is
 * in flight, else once its round completed (and was signalled). */
void pat_prefetch_free(pat_prefetch *f);

/* The background thread's pass over every prefetching call; 1 while one
 * lives (messages of a next round can come at any time). */
int pat_prefetch_progress(void);

/* Rounds completed by the prefetching schedule; blocks (or pieces)
 * received into the staging buffer (before this rank's start, or into a
 * non-contiguous recvtype's); starts that relayed their block; starts in
 * spread mode (persist_prefetch.c: the same on every rank of a call) and in
 * mpi-own mode (tests). */
long long pat_prefetch_rounds(void);
long long pat_prefetch_staged(void);
long long pat_prefetch_relays(void);
long long pat_prefetch_spread_rounds(void);
long long pat_prefetch_own_rounds(void); /* starts in mpi-own mode (auto) */

/* At shutdown, the background thread stopped: whatever is left goes. */
void pat_prefetch_stop(void);

#endif
