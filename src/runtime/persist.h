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
/* The other ranks' blocks of its next start that a run started ahead of it
 * already received for request; -1 if it is not libpat's (tests). */
int pat_persist_prefetched(MPI_Request request);
/* At shutdown, after the background thread stopped (pat_nbc_stop). */
void pat_persist_stop(void);

#endif
