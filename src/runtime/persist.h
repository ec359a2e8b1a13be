/*
 * The persistent all-gathers' registry (persist.c): which requests are
 * libpat's, and its shutdown.
 */
#ifndef PAT_PERSIST_H
#define PAT_PERSIST_H

#include <mpi.h>

/* At PAT_Init (collective): the communicator of the requests' signals. */
int pat_persist_start(void);
/* Is request the handle of a persistent all-gather of libpat's? */
int pat_persist_is_libpat(MPI_Request request);
/* May a persistent all-gather on a communicator of P processes choose its
 * rounds from its starts (persist.c) under the process's setting (an
 * arrival-aware one or auto, with the background thread)?  The same on
 * every rank; under auto the communicator must also have one rank a node. */
int pat_persist_rounds_apply(int P);
/* The other ranks' blocks of its next round that a run started ahead of it
 * already received for request; -1 if its rounds are not chosen so (tests). */
int pat_persist_prefetched(MPI_Request request);
/* Rounds chosen so that completed (freed active ones too), starts whose
 * round ran RELAY (spread) and MPI's own (auto, not spread) (tests). */
long long pat_persist_rounds(void);
long long pat_persist_spread_starts(void);
long long pat_persist_own_starts(void);
/* At shutdown, after the background thread stopped (pat_nbc_stop). */
void pat_persist_stop(void);

#endif
