/*
 * Running a call's schedule, every variant, in the foreground: its buffers
 * (typed on the user's buffer, or packed on a stage), the executor with its
 * tags and nap, and PAT_TIMELINE's record.  The call path (call.h) chooses
 * the variant; this module is the one place that gets a schedule, buffers
 * and executor ready and runs them:
 *  - classic: the classic algorithm's cached schedule, typed on the user's
 *    buffer, classic tags;
 *  - balanced: an arrival-aware algorithm without an exchange (an
 *    all-gatherv's static RELAY), its schedule for balanced arrivals packed
 *    on a stage the planner lends;
 *  - planned: the plan the planner decided and prepared (plan.h; the
 *    background thread may have started it), finished on the user's buffer.
 * Like the planner's, its functions take the parts they use and run under
 * the communicator's lock.
 */
#ifndef PAT_RUN_H
#define PAT_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/comm_base.h"
#include "runtime/args.h"
#include "runtime/plan.h"


/* A classic schedule of `alg`, typed on the user's buffer (blocks of the
 * counts at the displacements where c->displs, of any sizes): the
 * executor's foreground nap for c->bytes per block.  c->recvcount is read
 * only without displs. */
int pat_run_classic(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c);

/* An arrival-aware algorithm that runs without an exchange: an
 * all-gatherv's static choice (RELAY, decide/vchoice.h), on its schedule
 * for balanced arrivals (each block's pieces by its size, as vchoice
 * predicted it), packed on a stage the planner lends (pat_planner_stage). */
int pat_run_balanced(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c);

/* The planned arrival-aware schedule (decided: pat_plan_decide), packed on
 * the plan's stage, where the background thread may already have received
 * (and forwarded) blocks; exchange_seq: the exchange it was decided from.
 * *bg_steps, *fg_steps: the steps (data flow: ops) done in the background
 * before the call and in the call. */
int pat_run_planned(pat_planner *pl, const pat_comm_base *b, int64_t exchange_seq, const pat_call_args *c,
                    long long *bg_steps, long long *fg_steps);

#endif
