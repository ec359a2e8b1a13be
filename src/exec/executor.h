/*
 * The executor: runs one rank's part of a schedule with MPI.
 *
 * With buffers.h it is the only place that knows about buffers and
 * datatypes: an op's blocks become an address, a count and a datatype of
 * the call's buffers (typed or packed view, see buffers.h).
 *
 * A step is posted (receives first, then sends, all non-blocking) and then
 * completed by test or wait, so a background thread can progress it while
 * the application computes and hand it over to the foreground at any time.
 * The executor decides nothing.
 *
 * A step that fails, or that the caller cancels, is abandoned: its requests
 * are cancelled and those MPI lets go are completed, without waiting for any
 * peer.  Some may stay active: a send Open MPI's ob1 cannot cancel (it
 * completes only when its receiver takes it), a receive already matched.
 * They still read or write the buffers, so the caller must keep those alive
 * until they complete: pat_exec_pending counts them, pat_exec_take_pending
 * hands them over.  No step is posted after an abandoned one.
 */
#ifndef PAT_EXECUTOR_H
#define PAT_EXECUTOR_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/exec_state.h"
#include "exec/flow.h"
#include "exec/message.h"

/* Receive and discard, from every source, the messages of plans older than
 * the current pair (plan_gen, plan_gen + 1): leftovers of a plan dropped
 * after some rank had sent a background message (a BSLB signal).  Probes
 * each source in turn (a source's messages arrive in order), and stops at a
 * source's first message that is not stale.  Rank r sends as rank peer[r]
 * of comm (NULL: r; exec/buffers.h, pat_route).  Returns the number
 * discarded. */
int pat_drain_stale(MPI_Comm comm, int P, const int *peer, int plan_gen);

/* Prepare to run `self`'s ops of schedule s (finalized) on buffers b.
 * Returns MPI_SUCCESS or an MPI error code. */
int pat_exec_init(pat_exec *e, const pat_sched *s, int self, pat_buffers *b);
/* Release e.  Requests still pending (not taken) are waited for first, as
 * freeing their buffers under them would be worse: take them before if the
 * buffers can be kept alive. */
void pat_exec_free(pat_exec *e);

/* All ops done? */
static inline int pat_exec_done(const pat_exec *e) {
  if (e->window > 0) return e->ndone == e->nops && e->error == MPI_SUCCESS;
  return e->next == e->nops && !e->inflight && e->error == MPI_SUCCESS;
}

/* Does the next (not yet posted) step send any part of this rank's own block?
 * The background thread stops before such a step. */
int pat_exec_next_needs_own(const pat_exec *e);

/* Post the next step (no step may be in flight).  If posting fails, the
 * step is abandoned and the error returned. */
int pat_exec_post(pat_exec *e);
/* Complete the posted step if it is done (*done = 1), without blocking.  A
 * failed step is abandoned and its error returned. */
int pat_exec_test(pat_exec *e, int *done);
/* Block until the posted step completes.  A failed step is abandoned and its
 * error returned (the first request's own error, not MPI_ERR_IN_STATUS). */
int pat_exec_wait(pat_exec *e);
/* Abandon the posted step, if any (a call drops its schedule), and post no
 * other.  Returns at once; see pat_exec_pending for what may remain. */
int pat_exec_cancel(pat_exec *e);
/* Run every remaining step to the end (the foreground, once this rank's own
 * block is in place: in data flow, sends of it may go from now on). */
int pat_exec_run(pat_exec *e);

/* Requests of an abandoned step that are still active.  They use the
 * buffers (the stage, or recvbuf in the typed view) until they complete. */
int pat_exec_pending(const pat_exec *e);
/* Hand them over: *reqs (malloc'd, the caller frees it) gets the *n pending
 * requests and e keeps none, so e can be freed while the caller keeps the
 * buffers alive until MPI_Testall or MPI_Waitall says the *n are done. */
int pat_exec_take_pending(pat_exec *e, MPI_Request **reqs, int *n);

#endif
