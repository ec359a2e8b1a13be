/*
 * What the executor's two ways of running a schedule share: lockstep
 * (executor.c) and data flow (flow.c).  Not for use outside src/exec.
 */
#ifndef PAT_EXEC_INTERNAL_H
#define PAT_EXEC_INTERNAL_H

#include "exec/executor.h"

/* An op's message on the call's buffers (typed or packed view). */
int pat_exec_describe(pat_exec *e, const pat_op *op, pat_msg *m);
/* The count a receive of m reports when it arrived whole (MPI_Get_count). */
int pat_exec_expected_count(const pat_exec *e, const pat_msg *m);
/* Complete, without blocking, those of reqs[0..n) that are done and move
 * the others, still active, to the front; returns how many stay active. */
int pat_exec_keep_active(MPI_Request *reqs, int n);
/* Sleep ns (e->nap_ns between tests of a wait, instead of spinning in MPI). */
void pat_exec_nap(int64_t ns);
/* PAT_TRACE */
int pat_exec_tracing(void);
void pat_exec_trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Timeline: op posted (done = 0) or completed (done = 1) now. */
void pat_exec_stamp(pat_exec *e, size_t op, int done);

/* Data flow (flow.c) */
int pat_exec_flow_init(pat_exec *e, int window);
void pat_exec_flow_free(pat_exec *e);
int pat_exec_flow_run(pat_exec *e);
/* Cancel what is posted and not complete, keep what stays active as
 * pending, post nothing more; the first error is kept. */
void pat_exec_flow_abandon(pat_exec *e, int error);

#endif
