/*
 * The non-blocking all-gathers' queue (PAT_Iallgather, PAT_Iallgatherv):
 * each posted call becomes a generalized request (MPI_Grequest_start) and an
 * operation queued on its communicator's context; the background thread
 * (background.c) starts the operations, progresses their schedules with
 * non-blocking MPI only, and completes the request (MPI_Grequest_complete),
 * so that the application waits with MPI's own MPI_Wait, MPI_Test, ...
 *
 * The non-blocking part of a communicator's one context (comm.h: the state
 * every call form shares, made without communication at the first call of
 * any form), made at its first posted call, routes its messages over a
 * channel of libpat's (channels.h: no communicator is made for it, so none
 * behind the application's back while it has collectives outstanding; the
 * channel numbers go round in an MPI_Iallgather posted in that first call),
 * lives until the application freed the communicator and its calls are done
 * (the state waits for it), and numbers the calls: MPI requires every rank to post the non-blocking collectives of
 * a communicator in the same order, so call number s is the same call on
 * every rank.  Its messages carry tag generation s mod 16 (16 more for a
 * call whose run may start ahead: nbc_run.h), and it starts only once call
 * s - 16 has completed here: no two calls
 * in flight share a tag.
 *
 * Locks (docs/locks.md): nbc_lock guards the contexts and their queues; it
 * is a leaf, held for a list operation by a posting thread and for the
 * background thread's visit to one communicator's queue (its pass visits
 * every communicator once: comm.h), which only posts and tests
 * (non-blocking MPI).
 * MPI's callbacks (the request's query and free functions, the attribute's
 * delete function) take no lock: an MPI library may hold its own while it
 * runs them.
 */
#ifndef PAT_NBC_QUEUE_H
#define PAT_NBC_QUEUE_H

#include <mpi.h>

#include "runtime/comm.h"
#include "runtime/run.h"
#include "runtime/round_trace.h"

/* One posted call, as checked by its entry (its arguments, u.comm its
 * communicator: args.h; an all-gatherv's counts and displs are copied). */
typedef struct pat_nbc_call {
  pat_call_args u;
  int P;
  int alg;        /* an algorithm with a schedule (it runs in the background) */
  int moves_data; /* 0: nothing to move on any rank (every count 0): completes at once */
  int measured;   /* auto's RELAY: RELAY or DIRECT, chosen at its start by measurement (decide/nbc_choice.h) */
} pat_nbc_call;

/* Do the non-blocking all-gathers of a communicator of several processes
 * run the MPI library's own whatever their blocks, under the process's
 * setting (native, or no background thread)?  The same on every rank. */
int pat_nbc_runs_mpi_own(void);

/* Queue the call and give *request, a generalized request.  The calling
 * thread does not communicate, but for the communicator's first call (the
 * channels' MPI_Iallgather, non-blocking).  Returns an MPI error code. */
int pat_nbc_post(const pat_nbc_call *c, MPI_Request *request);

/* The call (an all-gather's or all-gatherv's, on c->comm) posted as MPI's
 * own MPI_Iallgather(v); MPI's error code. */
int pat_nbc_post_mpi_own(const pat_call_args *c, MPI_Request *request);

/* When request (a persistent start's non-blocking call, libpat's or MPI's
 * own) completes, the background thread sends an empty message with tag to
 * this process in signal_comm: what completes a persistent call's request
 * (persist.c).  trace (malloc'd, taken over; NULL: none): the start's
 * timeline, written as schedule `what` with its done and signal times once
 * it completed.  Returns an MPI error code. */
int pat_nbc_watch(MPI_Request request, MPI_Comm signal_comm, int tag, pat_round_trace *trace, const char *what);

/* The other ranks' blocks that the run started ahead on `own` (a
 * persistent call's communicator, pat_nbc_own_comm) holds (tests). */
int pat_nbc_held(MPI_Comm own);

/* The algorithm PAT_Iallgather(v) runs on comm, of P > 1 processes, for
 * blocks of block_bytes (an all-gatherv's mean) under the process's setting
 * (nbc.c): the same on every rank. */
int pat_nbc_alg(MPI_Comm comm, int P, long long block_bytes);
/* comm is libpat's own (a persistent call's duplicate): its context, made
 * now, sends on it directly and takes no channel.  Returns an MPI error code. */
int pat_nbc_own_comm(MPI_Comm comm);
/* Free such a communicator: now, or, where calls on it are still in
 * flight, by the background thread once they are done.  *comm becomes
 * MPI_COMM_NULL. */
void pat_nbc_free_own_comm(MPI_Comm *comm);
/* Can libpat's channels reach every rank of comm (all in MPI_COMM_WORLD)?
 * The same answer on every rank. */
int pat_nbc_routable(MPI_Comm comm, int P);
/* The nodes comm's ranks are on (pat_comm_node_count), from the map its
 * context keeps once it had a call. */
int pat_nbc_node_count(MPI_Comm comm);
/* What this thread's last PAT_Iallgather(v) ran (PAT_ALG_NATIVE: MPI's own; for a measured call,
 * RELAY, which its start may turn into DIRECT). */
int pat_nbc_last_alg(void);
/* This thread's PAT_Iallgather(v) calls are persistent starts (on) or not:
 * PAT_REPORT counts those it passes to MPI's own as starts, not calls. */
void pat_nbc_starting(int on);
/* auto's smallest block for libpat's schedules: smaller ones are MPI's own. */
#define PAT_NBC_AUTO_MIN_BLOCK 65536

/* What a pass over the communicators' queues leaves for its end, which
 * runs with no lock held: calls finished, libpat's own communicators whose
 * queues went (pat_nbc_free_own_comm), to be freed. */
struct nbc_op;
typedef struct pat_nbc_pass {
  struct nbc_op *done;
  MPI_Comm to_free[16];
  int nfree;
  int may_free; /* a queue whose communicator is gone and whose calls are done goes (the background thread's) */
} pat_nbc_pass;
/* cs's queued calls, in call order (its part of the background thread's
 * pass, comm.h; or a blocking call's: pat_nbc_wait): started, stepped,
 * finished ones into pass; 1 while something is in flight. */
int pat_nbc_progress_comm(pat_comm_state *cs, pat_nbc_pass *pass);
/* The pass's end: what it finished completes (MPI_Grequest_complete), and,
 * where signal, the persistent starts whose requests completed are
 * signalled (pat_nbc_watch); 1 while some are left. */
int pat_nbc_end_pass(pat_nbc_pass *pass, int signal);
/* A blocking call's wait for its request, posted here (pat_nbc_post) on
 * cs's communicator: this thread progresses that communicator's queue itself
 * between tests, as the background thread does, so the call does not wait
 * for that thread's next pass.  Returns MPI_Test's result (the call's error). */
int pat_nbc_wait(pat_comm_state *cs, MPI_Request *request);

/* Calls queued for the background thread since the process started
 * (tests: proof that a program's MPI_Iallgather reached libpat). */
long long pat_nbc_queued_calls(void);
/* ... and completed by it (tests: progress while the application makes no MPI call). */
long long pat_nbc_completed_calls(void);
/* ... of them, those that ran algorithm alg's schedule (tests: the setting's). */
long long pat_nbc_completed_by(int alg);
/* Persistent starts whose completion was
 * signalled, by the background thread (pat_nbc_watch) or at the start
 * itself where the call was complete there: those that ran MPI's own call
 * too (tests).  pat_nbc_count_signal counts one, before its signal goes. */
long long pat_nbc_signalled(void);
void pat_nbc_count_signal(void);
/* Runs started ahead of a call (run.h), and those a call took over (tests). */
long long pat_nbc_ahead_started(void);
long long pat_nbc_ahead_adopted(void);

/* The shutdown, after the background thread stopped: what is still queued
 * fails, the contexts' non-blocking parts go. */
void pat_nbc_stop(void);

/* A datatype a call can keep until it completes (a duplicate, or the named
 * type itself: the application may free its own meanwhile), and its release;
 * persistent requests (persist.c) keep theirs the same way. */
int pat_nbc_keep_type(MPI_Datatype t, MPI_Datatype *kept);
void pat_nbc_drop_type(MPI_Datatype *t);

#endif
