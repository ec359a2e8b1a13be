/*
 * The timeline of a persistent all-gather's round (PAT_TIMELINE): kept in
 * memory while the round runs and appended to PREFIX.<world rank> in one
 * write once its request completed, by the background thread outside its
 * pass's lock.  Every time is on the common clock (pat/clock.h), 0 for one
 * not reached.
 *
 * Lines (bench/timeline/round.py reads them; timeline.py skips them):
 *   round <id> <n> what <schedule> rank R P P bytes B start T done T signal T waited T
 * <schedule>: what the start ran (relay, direct, mpi-own, the setting's
 * algorithm; "in-start" if it completed inside PAT_Start); its
 * application's completion is a line
 *   waited <id> <n> at T
 * of its own (PAT_Waited).  <id>: the persistent call's number in the
 * process, <n>: the start's.  start: the rank's start (its arrival); done:
 * when the background thread saw the round complete; signal: when it
 * completed the application's request; waited: 0 here (the line above says
 * it).  A round run on the queue also has its call's lines (nbc, nbcop:
 * nbc_queue.c).
 */
#ifndef PAT_ROUND_TRACE_H
#define PAT_ROUND_TRACE_H

#include <stdint.h>

typedef struct pat_round_trace {
  long long id, round;
  int rank, P;
  long long bytes; /* this rank's block */
  int64_t start, done, signal, waited;
} pat_round_trace;

/* Append the round to the process's timeline file (one open) as the
 * schedule `what`. */
void pat_round_trace_write(const pat_round_trace *t, const char *what);

#endif
