/*
 * The all-reduce's part of a persistent all-reduce (persist.c owns the
 * request and its starts): what every start runs, chosen once at the
 * set-up, and a start's call.  PAT_Allreduce and PAT_Iallreduce themselves
 * are the public API (pat.h); allreduce.c defines all of them.
 */
#ifndef PAT_RUNTIME_ALLREDUCE_H
#define PAT_RUNTIME_ALLREDUCE_H

#include <mpi.h>

/* What PAT_Iallreduce would run now on the application's comm with these
 * arguments (the same on every rank): PAT_ARED_ALG_BASE + an all-reduce's
 * id, or -1 for the MPI library's own.  Under auto, a size class's choice
 * once the blocking calls on comm made it, MPI's own before. */
int pat_allreduce_persistent_alg(MPI_Comm comm, MPI_Op op, int count, MPI_Datatype datatype);

/* One start: the call posted on comm (the persistent call's copy) as
 * PAT_Iallreduce posts it, running alg (>= 0: its schedule on the queue;
 * -1: MPI's own non-blocking all-reduce).  *request completes with the
 * call.  Returns an MPI error code. */
int pat_allreduce_start(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, int alg, MPI_Request *request);

#endif
