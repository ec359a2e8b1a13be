/*
 * The schedule: the one intermediate representation every all-gather
 * algorithm produces (docs/design.md §3).
 *
 * A schedule is a list of operations, each tagged with the rank that performs
 * it and a step number.  Within a step a rank posts all its receives, then its
 * sends, then waits for all of them; a send in step s is matched by exactly one
 * receive in the same step s on the peer.  Because every rank walks its steps
 * in order and pairs only ever match inside one step, a valid schedule cannot
 * deadlock, whatever the arrival order.
 *
 * Data is named by blocks (block j is rank j's contribution), never by bytes or
 * datatypes: the executor maps blocks to memory.  A span is a cyclic run of
 * whole blocks, or a byte fraction of one block (a "piece", in units of
 * 1/PAT_FRAC_ONE of the block), which lets an algorithm split a block.
 *
 * This file knows nothing about MPI, threads or clocks.
 */
#ifndef PAT_SCHEDULE_H
#define PAT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/sched/status.h"

#define PAT_ALL_RANKS (-1)
#define PAT_FRAC_ONE 65536u /* a whole block, in piece units */
#define PAT_MAX_SPANS 2

enum pat_op_kind {
  PAT_OP_SEND = 1,        /* send spans to peer */
  PAT_OP_RECV = 2,        /* receive spans from peer */
  PAT_OP_SIGNAL_SEND = 3, /* zero-byte control message to peer */
  PAT_OP_SIGNAL_RECV = 4  /* zero-byte control message from peer */
};
/* A send or a signal-send (the other kinds receive). */
static inline int pat_is_send(int kind) { return kind == PAT_OP_SEND || kind == PAT_OP_SIGNAL_SEND; }

/* v mod P in [0, P), as ((v % P) + P) % P: a block's distance round the ring.  Divides only where v
 * is outside (-P, P), which block numbers and their differences seldom are (the model's replays
 * spent 15-20% of their time in those divisions). */
static inline int pat_mod_p(int v, int P) {
  if (v >= P || v <= -P) v %= P;
  return v < 0 ? v + P : v;
}

/* Op flags: PRESTEP is informational, for the viewer and the checker;
 * the REDUCE ones change what a receive does (reduction schedules, below). */
#define PAT_OPF_PRESTEP 0x1u /* part of an arrival-aware pre-step phase */
/* A receive whose bytes are combined into what the rank holds of them with
 * the call's reduction op, instead of replacing them.  The op itself (MPI_Op,
 * datatype) is the executor's: the IR only says where a combination happens
 * and on which side the incoming piece goes.  Without REDUCE_HIGH the piece
 * holds lower ranks' contributions than the rank's: held = in (op) held;
 * with it higher ones: held = held (op) in.  A non-commutative op is thus
 * combined in rank order as long as every combination joins two adjacent
 * runs of ranks on the side named (the checker tracks the runs). */
#define PAT_OPF_REDUCE 0x2u
#define PAT_OPF_REDUCE_HIGH 0x4u

typedef struct pat_span {
  int32_t first; /* first block */
  int32_t count; /* number of consecutive blocks, wrapping modulo P */
  uint32_t lo;   /* piece of the block [lo, hi) in 1/PAT_FRAC_ONE units; */
  uint32_t hi;   /* lo=0, hi=PAT_FRAC_ONE for whole blocks (count may be >1 only then) */
} pat_span;

typedef struct pat_op {
  int32_t rank; /* who performs it */
  int32_t step;
  int32_t peer;
  uint8_t kind;   /* enum pat_op_kind */
  uint8_t nspans; /* 0 for signals */
  uint16_t flags; /* PAT_OPF_* */
  pat_span span[PAT_MAX_SPANS];
} pat_op;

/* Schedule flags */
#define PAT_SCHED_MULTI_RECV 0x1u /* a rank may receive several messages in one step */
#define PAT_SCHED_MULTI_SEND 0x2u /* a rank may send several messages in one step */
#define PAT_SCHED_PIECES 0x4u     /* uses block pieces: must run on packed bytes */
#define PAT_SCHED_ARRIVAL 0x8u    /* built from a predicted PAP (arrival-aware) */
/* A reduction (an all-reduce): blocks are the P segments of one vector, every
 * rank starts with its own contribution to every segment, a receive replaces
 * the bytes it brings unless it reduces them (PAT_OPF_REDUCE), and every rank
 * ends with all P contributions combined in every byte.  Lockstep only: the
 * reductions of a step run once all its messages are complete, so that a send
 * of the step never reads bytes being combined. */
#define PAT_SCHED_REDUCE 0x10u

/* How a rank runs its ops (the contract between the executor and the model's
 * replay; both must implement exactly this):
 *  - send_window == 0, LOCKSTEP: step by step; post the step's receives, then
 *    its sends, complete them all, then the next step.
 *  - send_window  > 0, DATA FLOW: steps only name messages (the tag) and order
 *    a rank's ops.  Every receive may be posted ahead, from the moment the rank
 *    starts running the schedule.  Sends are taken in (step, order added)
 *    order; whenever fewer than send_window of the rank's sends are in flight,
 *    the first send not yet posted whose spans are all held is posted (own
 *    block: held from the rank's arrival; anything else: from the completion of
 *    the receive that brings it).  A later ready send may thus overtake an
 *    earlier one that waits for data.  Signals count as sends and receives.
 *    The call ends when every op has completed. */
typedef struct pat_sched {
  int P;          /* number of ranks */
  int send_window; /* 0: lockstep; > 0: data flow with that many sends in flight (above) */
  int self;       /* the only rank whose ops are stored, or PAT_ALL_RANKS */
  int nsteps;     /* 1 + the largest step number used */
  int alg;        /* algorithm id that built it (enum pat_alg_id) */
  unsigned flags; /* PAT_SCHED_* */
  pat_op *ops;    /* after pat_sched_finalize: sorted by (rank, step, order added) */
  size_t nops, cap;
  size_t *rank_start; /* after finalize: ops of rank r are [rank_start[r], rank_start[r+1]) */
  int finalized;
} pat_sched;

/* Start an empty schedule for P ranks that keeps only the ops of `self`
 * (or of every rank with PAT_ALL_RANKS).  Returns 0 or PAT_ENOMEM. */
int pat_sched_init(pat_sched *s, int P, int self);
void pat_sched_free(pat_sched *s);
void pat_sched_reset(pat_sched *s, int P, int self); /* keeps the memory */

/* Does this schedule keep rank r's ops? */
static inline int pat_sched_keeps(const pat_sched *s, int rank) {
  return s->self == PAT_ALL_RANKS || s->self == rank;
}

/* The ranks whose ops a builder needs to emit: [*lo, *hi). */
void pat_sched_rank_range(const pat_sched *s, int *lo, int *hi);

/* Span constructors */
pat_span pat_blocks(int P, int first, int count); /* first is taken modulo P */
pat_span pat_piece(int block, uint32_t lo, uint32_t hi);

/* Add one op (ops of ranks the schedule does not keep are dropped).
 * Returns 0 or PAT_ENOMEM. */
int pat_sched_add(pat_sched *s, int rank, int step, int kind, int peer,
                  int nspans, const pat_span *spans, unsigned flags);

/* The two halves of a transfer at once: `from` sends spans to `to` in `step`. */
int pat_sched_transfer(pat_sched *s, int step, int from, int to, int nspans,
                       const pat_span *spans, unsigned flags);
int pat_sched_signal(pat_sched *s, int step, int from, int to, unsigned flags);
/* A transfer whose receive reduces (PAT_OPF_REDUCE; `high`: the spans hold
 * higher ranks' contributions than `to` holds, PAT_OPF_REDUCE_HIGH). */
int pat_sched_reduce(pat_sched *s, int step, int from, int to, int nspans, const pat_span *spans, int high);

/* Sort by (rank, step), compute nsteps and the rank index.  Must be called
 * once after the last add. Returns 0 or PAT_ENOMEM. */
int pat_sched_finalize(pat_sched *s);

/* Ops of one rank (after finalize). */
static inline const pat_op *pat_sched_rank_ops(const pat_sched *s, int rank, size_t *n) {
  *n = s->rank_start[rank + 1] - s->rank_start[rank];
  return s->ops + s->rank_start[rank];
}

/* Does the span list include (any part of) block b? */
int pat_spans_touch_block(int P, int nspans, const pat_span *spans, int b);
/* Do two spans share a byte?  Pieces are byte fractions of one block. */
int pat_spans_overlap(int P, const pat_span *a, const pat_span *b);
/* The order of a reduction (PAT_SCHED_REDUCE) run as a data flow, which the
 * executor keeps (exec/flow.c) and the model's replay follows: does op y
 * wait for op x, both of one rank (ops[] in the rank's order, by step)?  A
 * send waits for the receives of earlier steps that bring any of its bytes;
 * a receive, to be applied, for the sends of its step and before that read
 * any of its bytes, and for the receives before it that bring any. */
int pat_reduce_waits(int P, const pat_op *ops, size_t y, size_t x);

/* ---- checking (tests, debugging) ---- */

/* Rules beyond the basic ones (see pat_sched_check). */
#define PAT_CHECK_ONE_RECV 0x1u /* at most one receive per rank per step */
#define PAT_CHECK_ONE_SEND 0x2u /* at most one send per rank per step */
#define PAT_CHECK_RANK_ORDER 0x4u /* reductions: every combination in rank order (a non-commutative op) */

/* Check a schedule that keeps every rank:
 *  - spans are well formed, peers valid, nobody talks to itself;
 *  - every send has exactly one matching receive (same spans) in the same step,
 *    every signal likewise, and at most one message per direction per pair per step;
 *  - nothing is sent before it is held (own block held from the start);
 *  - every rank ends holding every byte of every block exactly once
 *    (never receives its own block or a byte it already has);
 *  - PAT_CHECK_ONE_RECV/SEND unless the schedule's MULTI flags allow more.
 * A reduction (PAT_SCHED_REDUCE) is checked for its contributions instead of
 * holdings (pat_sched_check_contributions).
 * Returns 0 if valid; otherwise nonzero with a description in err. */
int pat_sched_check(const pat_sched *s, unsigned rules, char *err, size_t errlen);

/* A reduction's contributions (schedule_check_reduce.c), on a schedule whose
 * shape and message pairs are valid: it is lockstep; in every step a rank
 * receives each byte at most once and never receives (replacing) bytes it
 * sends in that step; no combination counts a rank's contribution twice;
 * with PAT_CHECK_RANK_ORDER every combination joins adjacent runs of ranks
 * on the side its op names; every rank ends with ranks 0..P-1 combined in
 * every byte of every segment. */
int pat_sched_check_contributions(const pat_sched *s, unsigned rules, char *err, size_t errlen);
/* The checkers' failure: the message (printf's fmt) into err, errlen bytes
 * (none where err is NULL); returns 1. */
int pat_sched_check_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));


#endif
