/*
 * Data flow (flow.c; the schedule's send_window > 0): see flow.c for how
 * it runs.  pat_exec_init, _free, _run and _cancel (executor.h) call the
 * first four for such a schedule; the background thread calls
 * pat_exec_flow_progress.
 */
#ifndef PAT_EXEC_FLOW_H
#define PAT_EXEC_FLOW_H

#include "exec/exec_state.h"

/* On failure e keeps what it allocated, for pat_exec_free. */
int pat_exec_flow_init(pat_exec *e, int window);
void pat_exec_flow_free(pat_exec *e);
int pat_exec_flow_run(pat_exec *e);
/* Cancel what is posted and not complete, keep what stays active as
 * pending, post nothing more; the first error is kept. */
void pat_exec_flow_abandon(pat_exec *e, int error);

/* Data flow only (e->window > 0): post the receives not yet posted and the
 * sends that are ready, complete what is done, without blocking; sends of
 * the own block wait for pat_exec_run.  *busy = 1 while ops are in flight.
 * What the background thread calls while the rank computes. */
int pat_exec_flow_progress(pat_exec *e, int *busy);

/* Pacing (PAT_PACE, flow.c): ns_per_byte > 0 is the rate of this process's
 * link; data-flow schedules then post a send that carries none of the rank's
 * own block (a relay's forward) only while the bytes this process posted are
 * estimated to leave the link within PAT_PACE_LEAD_NS, so that the rank's
 * own block, posted at its arrival, does not wait behind them in the host's
 * queues; a reduction's sends all carry the rank's own contribution, and
 * all are paced so.  0: off.  Process-wide: the calls and the background thread share
 * the link. */
void pat_exec_set_pace(double ns_per_byte);
#define PAT_PACE_LEAD_NS 2000000
/* How often pacing held a ready send back in this process (tests). */
long long pat_exec_paced_sends(void);

/* The other ranks' blocks whose every receive is done, in either way of
 * running (a block with none counts): what a run started ahead of its call
 * holds already. */
int pat_exec_blocks_received(const pat_exec *e);

#endif
