/*
 * What lockstep (executor.c) and data flow (flow.c) share: an op's message
 * on the call's buffers, the tags, completing what is done, the nap,
 * PAT_TRACE and the timeline's stamps.  Below both, so that neither calls
 * the other for them.
 */
#ifndef PAT_EXEC_MESSAGE_H
#define PAT_EXEC_MESSAGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/exec_state.h"

/*
 * Tags.  Every message of a communicator goes on its one private duplicate,
 * tagged generation * span + step % span (span = (tag upper bound + 1) /
 * PAT_TAG_GENS), so messages of different generations never share a tag:
 *  - arrival-aware plans cycle through generations 0 .. PAT_TAG_PLAN_GENS-1,
 *    two per exchange (as planned ahead, and replanned in the call);
 *  - classic schedules use PAT_TAG_GEN_CLASSIC;
 *  - the handshake that retires a freed communicator uses PAT_TAG_GEN_FIN.
 * A communicator's arrival exchange has a channel of its own (runtime/comm.h).
 * The last tag of each generation is no step's: a non-blocking call's
 * stamps (runtime/nbc_stamps.h) go with its messages under it.
 */
#define PAT_TAG_GENS 32
#define PAT_TAG_GEN_CLASSIC (PAT_TAG_GENS - 1)
#define PAT_TAG_GEN_FIN (PAT_TAG_GENS - 2)
#define PAT_TAG_PLAN_GENS (PAT_TAG_GENS - 2)
void pat_exec_set_tag_ub(int tag_ub);
int pat_tag(int gen, int step);
int pat_tag_stamp(int gen);
int pat_tag_generation(int tag);
/* The generation pair of the plans of exchange number seq: its even member. */
int pat_tag_plan_gen(long long seq);

/* An op's message on the call's buffers (typed or packed view). */
int pat_exec_describe(pat_exec *e, const pat_op *op, pat_msg *m);
/* The count a receive of m reports when it arrived whole (MPI_Get_count). */
int pat_exec_expected_count(const pat_exec *e, const pat_msg *m);
/* Complete, without blocking, those of reqs[0..n) that are done and move
 * the others, still active, to the front; returns how many stay active. */
int pat_exec_keep_active(MPI_Request *reqs, int n);
/* Sleep ns (e->nap_ns between tests of a wait, instead of spinning in MPI). */
void pat_exec_nap(int64_t ns);

/* PAT_TRACE: print every message posted, cancelled or drained.  Read as a
 * variable where every op is posted (no call when off). */
void pat_exec_set_trace(int on);
extern int pat_exec_trace_on;
static inline int pat_exec_tracing(void) { return pat_exec_trace_on; }
void pat_exec_trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The timeline: record, per op, when it was posted and completed, on the
 * clock `now` (ns; the runtime passes the common clock: the executor reads
 * none itself).  pat_exec_record allocates the arrays (before anything is
 * posted); 0 for a time not reached.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
void pat_exec_set_clock(int64_t (*now)(void));
int pat_exec_record(pat_exec *e);
/* Timeline: op posted (done = 0) or completed (done = 1) now. */
void pat_exec_stamp(pat_exec *e, size_t op, int done);

#endif
