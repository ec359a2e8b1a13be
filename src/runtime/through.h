/*
 * The pass-through's gate: does this all-gather(v) go straight to the MPI
 * library's own, unchanged?  It does when its communicator is the one this
 * thread called last (pat_comm_cached), auto passes through there
 * (call.h, pat_gather_passes_through: a one-node communicator in a job
 * without the background thread) and the arguments pass the screen
 * (args.h).  A call that does is counted as NATIVE's here; the caller then
 * makes the PMPI call itself, with the arguments it was given.
 *
 * One small function per call, so that the drop-in's MPI_Allgather(v) costs
 * what a PMPI wrapper costs where libpat has nothing to do: the drop-in
 * tail-calls MPI's own, which raises its own errors on the communicator's
 * handler exactly as without libpat.  Before, such a call went through
 * PAT_Allgather(v) (their whole frame, the drop-in's re-entry flag and error
 * wrapper), which callgrind counted on top of MPI's own in a 1 B call
 * (BENCHMARKS.md, Balanced calls through the drop-in).
 *
 * Any thread may call these: they read the calling thread's lookup and
 * counters, and a communicator's state that MPI's rules keep from changing
 * while a collective on it is being called.  call.c, callv.c, nbc.c and
 * allreduce.c define them, beside the calls they shorten; the non-blocking
 * and all-reduce gates ask no question of the communicator, only of the
 * process's settings (and an all-gatherv's of its size).
 */
#ifndef PAT_THROUGH_H
#define PAT_THROUGH_H

#include <mpi.h>

/* 1: counted, run PMPI_Allgather(v) now; 0: take the whole call
 * (PAT_Allgather(v)), which checks everything and says what is wrong. */
int pat_allgather_through(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int pat_allgatherv_through(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);

/* 1: every non-blocking all-gather(v) of the process is MPI's own (no
 * background thread, as on one node under auto, or PAT_ALG=native) and
 * PAT_REPORT does not count them: run PMPI_Iallgather(v) now; 0: take
 * PAT_Iallgather(v).  An all-gatherv of one process is libpat's (its block
 * is copied: MPICH 4.0's own ignores its displacement).  nbc.c defines it. */
int pat_iallgather_through(MPI_Comm comm, int gatherv);

/* 1: an all-reduce with op runs the MPI library's own whatever its other
 * arguments (PAT_ALLREDUCE auto or native, no background thread, a
 * user-defined op): run PMPI_(I)allreduce now; 0: take PAT_(I)allreduce.
 * allreduce.c defines it. */
int pat_allreduce_through(MPI_Op op);

#endif
