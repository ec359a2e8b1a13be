/*
 * The state of one rank's run of a schedule (struct pat_exec), below the
 * two ways of running it, lockstep (executor.c) and data flow (flow.c), and
 * what they share (message.h), so that none of them needs another's header
 * for it.  The operations: executor.h.
 */
#ifndef PAT_EXEC_STATE_H
#define PAT_EXEC_STATE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/sched/schedule.h"
#include "exec/buffers.h"
#include "exec/reduce.h"

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
  int unpaced;         /* its forwards are never held by the link's pacing (flow.c) */
  int recvs_posted, sends_inflight;
  size_t ndone, first_unposted_send;
  unsigned char *state;   /* per op: FLOW_IDLE, FLOW_POSTED, FLOW_DONE */
  unsigned char *needs_own; /* per send: it carries part of this rank's own block */
  int *deps_left;         /* per send: receives whose bytes it still waits for */
  size_t *dep_start, *dep_list; /* per receive r: the sends waiting for it, dep_list[dep_start[r] ..];
                                   a reduction's: per op, the ops waiting for it (flow.c) */
  /* a reduction's data flow (flow.c): every receive lands in a buffer of its own and is applied in its turn */
  pat_reduce_landing *landing; /* per op (receives') */
  int *apply_left;             /* per receive: its arrival, and the sends and receives it waits for */
  size_t *applying;            /* scratch: receives whose turn came */
  int keep_landings;           /* abandoned with receives still under MPI: their landings stay allocated */
  int *done_idx;          /* scratch for MPI_Testsome / MPI_Waitsome */
  int64_t nap_ns;         /* pat_exec_run, pat_exec_wait: 0 waits in MPI (Waitsome, Wait); > 0 tests
                             and, when nothing is done, sleeps this long (runtime/wait_nap.h) */
  /* timeline (pat_exec_record): per op, post and completion on the clock of
   * pat_exec_set_clock, and whether the foreground did it */
  int64_t *t_post, *t_done;
  unsigned char *t_fg;
  int in_foreground;
} pat_exec;

#endif
