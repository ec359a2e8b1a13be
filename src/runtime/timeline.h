/*
 * The per-op timeline of calls (PAT_TIMELINE=prefix): every executed call
 * appends, to prefix.<world rank>, a header line and one line per op of
 * this rank's schedule with when it was posted and completed on the common
 * clock, whether the background thread or the call did it, and its
 * bytes (its "blocks" are fractions of each block's own size).  Off, it
 * costs one test per op; on, a clock read per post and completion, and a
 * file write at the end of the call, inside it: use it to see where time
 * goes, not for the headline numbers.
 * bench/timeline/timeline.py reads the files of every rank.  The
 * non-blocking and persistent calls write theirs into the same files
 * (round_trace.h).
 */
#ifndef PAT_TIMELINE_H
#define PAT_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "exec/executor.h"
#include "algorithms/sched/schedule.h"

/* Is recording on?  Then pat_exec_record every executor before it posts. */
int pat_timeline_on(void);

/* Append the call just run.  arrival: when the call was entered; handover:
 * when the foreground took the schedule over (after the exchange and the
 * plan); exit: when it ran out.  predicted: the P predicted arrivals the
 * schedule was built from (NULL for classic schedules). */
void pat_timeline_write(int P, int rank, int alg, int64_t bytes, const pat_sched *s, const pat_exec *e,
                        const int64_t *predicted, int64_t arrival, int64_t handover, int64_t exit);

/* A record (a call's lines, a round's line) is written in memory and
 * appended to this process's file in one write: begin gives the stream to
 * write it to (NULL: no memory, nothing to end), end appends and frees it. */
typedef struct pat_timeline_record {
  FILE *f;
  char *text;
  size_t len;
} pat_timeline_record;
FILE *pat_timeline_begin(pat_timeline_record *r);
void pat_timeline_end(pat_timeline_record *r);

/* The op lines of e (recorded), each opening with word ("op" for a
 * blocking call's, "nbcop" for a non-blocking one's: round_trace.h). */
void pat_timeline_ops(FILE *f, const char *word, int P, const pat_exec *e);

#endif
