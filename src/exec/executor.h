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

#include "exec/buffers.h"
#include "algorithms/sched/schedule.h"


typedef struct pat_exec {
  const pat_op *ops; /* this rank's ops, sorted by step */
  size_t nops, next;  /* next op to post */
  int P, self;
  pat_buffers *buf;
  int inflight;       /* a step is posted and not yet complete */
  int inflight_step;
  MPI_Request *reqs;   /* the posted step's nreq requests; after an abandoned step, its npending still active */
  MPI_Status *statuses;
  int *want_count;     /* per request of the posted step: elements a receive expects (-1: a send) */
  MPI_Datatype *want_type;
  MPI_Datatype *types; /* temporary datatypes of the posted step */
  int nreq, npending, ntypes, max_step_ops;
  int error;           /* MPI_SUCCESS, or why steps stopped (MPI_ERR_OTHER after pat_exec_cancel) */
  int data_error;      /* the first step that completed with a wrong-sized message (MPI_ERR_TRUNCATE...):
                          later steps still run, so that peers are not left waiting */
  int tag_gen;         /* generation of its messages (see Tags below) */
  long long steps_done; /* lockstep: steps completed; data flow: ops completed */
  /* data flow (the schedule's send_window > 0; flow.c): the arrays above are
   * then per op, and these say what each op still waits for */
  int window;          /* 0: lockstep */
  int own_held;        /* this rank's own block is in place: sends of it may go */
  int recvs_posted, sends_inflight;
  size_t ndone, first_unposted_send;
  unsigned char *state;   /* per op: FLOW_IDLE, FLOW_POSTED, FLOW_DONE */
  unsigned char *needs_own; /* per send: it carries part of this rank's own block */
  int *deps_left;         /* per send: receives whose bytes it still waits for */
  size_t *dep_start, *dep_list; /* per receive r: the sends waiting for it, dep_list[dep_start[r] ..] */
  int *done_idx;          /* scratch for MPI_Testsome / MPI_Waitsome */
  int64_t nap_ns;         /* pat_exec_run, pat_exec_wait: 0 waits in MPI (Waitsome, Wait); > 0 tests
                             and, when nothing is done, sleeps this long (runtime/wait_nap.h) */
  /* timeline (pat_exec_record): per op, post and completion on the clock of
   * pat_exec_set_clock, and whether the foreground did it */
  int64_t *t_post, *t_done;
  unsigned char *t_fg;
  int in_foreground;
} pat_exec;

/*
 * Tags.  Every message of a communicator goes on its one private duplicate,
 * tagged generation * span + step % span (span = (tag upper bound + 1) /
 * PAT_TAG_GENS), so messages of different generations never share a tag:
 *  - arrival-aware plans cycle through generations 0 .. PAT_TAG_PLAN_GENS-1,
 *    two per exchange (as planned ahead, and replanned in the call);
 *  - classic schedules use PAT_TAG_GEN_CLASSIC;
 *  - the handshake that retires a freed communicator uses PAT_TAG_GEN_FIN.
 */
#define PAT_TAG_GENS 32
#define PAT_TAG_GEN_CLASSIC (PAT_TAG_GENS - 1)
#define PAT_TAG_GEN_FIN (PAT_TAG_GENS - 2)
#define PAT_TAG_PLAN_GENS (PAT_TAG_GENS - 2)
void pat_exec_set_tag_ub(int tag_ub);
/* PAT_TRACE: print every message posted, cancelled or drained. */
void pat_exec_set_trace(int on);
/* Pacing (PAT_PACE, flow.c): ns_per_byte > 0 is the rate of this process's
 * link; data-flow schedules then post a send that carries none of the rank's
 * own block (a relay's forward) only while the bytes this process posted are
 * estimated to leave the link within PAT_PACE_LEAD_NS, so that the rank's
 * own block, posted at its arrival, does not wait behind them in the host's
 * queues.  0: off.  Process-wide: the calls and the background thread share
 * the link. */
void pat_exec_set_pace(double ns_per_byte);
#define PAT_PACE_LEAD_NS 2000000
/* How often pacing held a ready send back in this process (tests). */
long long pat_exec_paced_sends(void);
int pat_tag(int gen, int step);
int pat_tag_generation(int tag);
/* The generation pair of the plans of exchange number seq: its even member. */
int pat_tag_plan_gen(long long seq);

/* Receive and discard, from every source, the messages of plans older than
 * the current pair (plan_gen, plan_gen + 1): leftovers of a plan dropped
 * after some rank had sent a background message (a BSLB signal).  Probes
 * each source in turn (a source's messages arrive in order), and stops at a
 * source's first message that is not stale.  Returns the number discarded. */
int pat_drain_stale(MPI_Comm comm, int P, int plan_gen);

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

/* Data flow only (e->window > 0): post the receives not yet posted and the
 * sends that are ready, complete what is done, without blocking; sends of
 * the own block wait for pat_exec_run.  *busy = 1 while ops are in flight.
 * What the background thread calls while the rank computes. */
int pat_exec_flow_progress(pat_exec *e, int *busy);

/* The timeline: record, per op, when it was posted and completed, on the
 * clock `now` (ns; the runtime passes the common clock: the executor reads
 * none itself).  pat_exec_record allocates the arrays (before anything is
 * posted); 0 for a time not reached.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
void pat_exec_set_clock(int64_t (*now)(void));
int pat_exec_record(pat_exec *e);

/* Requests of an abandoned step that are still active.  They use the
 * buffers (the stage, or recvbuf in the typed view) until they complete. */
int pat_exec_pending(const pat_exec *e);
/* Hand them over: *reqs (malloc'd, the caller frees it) gets the *n pending
 * requests and e keeps none, so e can be freed while the caller keeps the
 * buffers alive until MPI_Testall or MPI_Waitall says the *n are done. */
int pat_exec_take_pending(pat_exec *e, MPI_Request **reqs, int *n);

#endif
