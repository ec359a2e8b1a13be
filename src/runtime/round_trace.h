/*
 * The timeline of a non-blocking or persistent all-gather's round
 * (PAT_TIMELINE): what the background thread did for it, kept in memory
 * while the round runs and appended to PREFIX.<world rank> in one write
 * afterwards, by whichever thread is outside the hot path then (the
 * application's after its wait, or the next start).  Every time is on the
 * common clock (pat/clock.h), 0 for one not reached.
 *
 * Lines (bench/timeline/round.py reads them; timeline.py skips them):
 *   round <id> <n> what <schedule> rank R P P parity q bytes B relay 0|1
 *     start T copy T0 T1 done T signal T waited T
 *     passes N maxgap G prepasses N premaxgap G
 *   msg send|recv whole|piece|forwarded peer R owner O bytes B
 *     matched T posted T done T staged 0|1
 * (each on one line); a start per PAT_Iallgather(v) is a round line alone
 * (schedule mpi-own or the classic algorithm's name, "in-start" if it
 * completed inside PAT_Start), its application's completion a line
 *   waited <id> <n> at T
 * of its own (PAT_Waited).  <id>: the persistent call's number in the
 * process, <n>: the start's.  start: the rank's start (its arrival); copy: the
 * staged blocks copied into recvbuf at the start; done: when the background
 * thread saw the round's last message complete; signal: when it completed
 * the application's request; waited: when the application saw it complete
 * (PAT_Waited), 0 if it did not say.  passes / maxgap: the background
 * thread's passes over the call from the start to done and the longest
 * time between two of them; prepasses / premaxgap the same before the start.
 * matched: a receive's MPI_Improbe match (0 for a send); posted: its
 * MPI_Imrecv or MPI_Isend.
 */
#ifndef PAT_ROUND_TRACE_H
#define PAT_ROUND_TRACE_H

#include <stdint.h>

enum { PAT_TRACE_WHOLE = 0, PAT_TRACE_PIECE = 1, PAT_TRACE_FORWARDED = 2 };

typedef struct pat_trace_msg {
  int is_send, kind, peer, owner, staged;
  int cancelled; /* a receive posted ahead for a message that never came (its owner relayed): not written */
  long long bytes;
  int64_t matched, posted, done;
} pat_trace_msg;

typedef struct pat_round_trace {
  long long id, round;
  int rank, P, parity, relay;
  long long bytes; /* this rank's block */
  const char *what; /* the schedule the round ran, if not its writer's (a static string) */
  int64_t start, copy_begin, copy_end, done, signal, waited;
  long long passes, prepasses;
  int64_t max_gap, pre_max_gap;
  pat_trace_msg *msg;
  int nmsg, cap;
} pat_round_trace;

/* A message of the round, its other fields 0: its index, -1 if out of memory. */
int pat_round_trace_add(pat_round_trace *t, int is_send, int kind, int peer, int owner, long long bytes);

/* One pass of the background thread over the call, gap after the one
 * before (0: none before); after the start if started. */
void pat_round_trace_pass(pat_round_trace *t, int64_t gap, int started);

/* Append the round to the process's timeline file (one open) as the
 * schedule `what`. */
void pat_round_trace_write(const pat_round_trace *t, const char *what);

/* Empty it for another round, keeping its memory. */
void pat_round_trace_clear(pat_round_trace *t);
void pat_round_trace_free(pat_round_trace *t);

#endif
