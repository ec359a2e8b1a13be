/*
 * The all-gather's call path, from the communicator's state on: the static
 * choice or the arrival exchange and the plan, the chosen schedule, and the
 * call site's history.  PAT_Allgather runs it; so does every all-gatherv
 * that does not pass through to MPI (callv.c), under any setting, so that
 * each has its call site and report row: equal blocks are an
 * all-gather whose blocks sit at the caller's displacements, and unequal
 * ones are told apart by their shape key where an all-gather has its block
 * size (pat/shape.h), so the whole machinery (exchange, plan ahead,
 * refinement, guardrail) serves both.
 */
#ifndef PAT_CALL_H
#define PAT_CALL_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/comm.h"
#include "runtime/process.h"
#include "runtime/run.h" /* pat_call_args, and what runs the schedule */
#include "runtime/stats.h"


/* auto on a one-node communicator (PAT_ONE_NODE=native, model file or not)
 * runs MPI's own all-gather and has nothing to decide, exchange or learn.  In
 * a job without the background thread no other thread may touch cs during a
 * collective on its communicator (MPI forbids concurrent collectives on one
 * communicator), so such a call needs no lock and no clock: it costs what a
 * PMPI wrapper costs: perf put most of what libpat added to a 1 B call on
 * one node in that lock and the clock reads (BENCHMARKS.md, Balanced calls
 * through the drop-in).  PAT_REPORT keeps the full
 * path: it reports per-site times.  PAT_Allgather(v) take it first, before
 * the checks, for arguments that pass the screen (runtime/args.h). */
static inline int pat_gather_passes_through(const pat_comm_state *cs) {
  return !pat_proc.background && pat_proc.alg == PAT_ALG_AUTO && cs->engine_ready && cs->engine.one_node_native &&
         !cs->next_exchanges && pat_proc.settings.exchange != PAT_EXCHANGE_ALWAYS && !pat_proc.settings.report;
}

/* cs of comm where a call on it passes through, else NULL (also before
 * PAT_Init and after PAT_Finalize: no state is cached then): the start of
 * the gates of through.h, which call.c and callv.c define. */
static inline pat_comm_state *pat_gather_passing_state(MPI_Comm comm) {
  if (!pat_proc.initialized) return NULL;
  pat_comm_state *cs = pat_comm_cached(comm);
  return cs && pat_gather_passes_through(cs) ? cs : NULL;
}

/* Every call form's entry: PAT_Init was called, comm is a communicator,
 * and a non-blocking call's request is not NULL.  *cs is comm's state where
 * this thread has it at hand (then an intra-communicator), else NULL and
 * *inter from MPI.  Returns an MPI error code. */
int pat_call_enter(const char *name, MPI_Comm comm, const MPI_Request *request, int nonblocking,
                   pat_comm_state **cs, int *inter);

/* What PAT_Allgather and PAT_Allgatherv do first, after their pass-through
 * (c filled but for what the checks and the clock give): PAT_Init was
 * called, comm is a communicator, and on one without a state yet an
 * intra-communicator (an inter-communicator's call is MPI's, arguments and
 * all, run here).  Returns 1 when the call is done (*rc its result), else 0
 * with *cs the communicator's state, NULL where it has none yet. */
int pat_gather_enter(const pat_call_args *c, pat_comm_state **cs, int *rc);

/* The call on cs, its arguments checked and c->arrival set: everything
 * after the pass-through (which the caller tests first). */
int pat_gather_run(pat_comm_state *cs, pat_call_args *c);

/* MPI's own all-gather (all-gatherv where c->displs), counted as NATIVE's
 * call: nothing else (cs may be NULL: no state was made). */
int pat_gather_pass_through(pat_comm_state *cs, const pat_call_args *c);

/* What a pass-through leaves behind: NATIVE's call counted, and PAT_LastAlg
 * (cs may be NULL). */
static inline void pat_gather_count_through(pat_comm_state *cs) {
  if (cs) __atomic_store_n(&cs->planner.last_alg, PAT_ALG_NATIVE, __ATOMIC_RELAXED); /* PAT_LastAlg reads it unlocked */
  pat_stats_count(PAT_ALG_NATIVE);
}

#endif
