/*
 * auto's all-reduce choice: per communicator and size class (the power of
 * two of the vector's bytes), MPI's own all-reduce or one of libpat's
 * schedules, by measurement.  Pure: the runtime (src/runtime/allreduce.c)
 * times each trial from the last rank's arrival to this rank's exit (every
 * rank's arrival stamped on the common clock beside the call) and adds the
 * ranks' trials up.
 *
 * A class of vectors of at least PAT_ARED_CHOICE_MIN_BYTES runs each
 * candidate (MPI's own, ring, Rabenseifner, RELAY: the arrival-aware one,
 * which wins where one rank comes last call after call) PAT_ARED_CHOICE_BLOCK times in a row, one candidate after the
 * other: the same turn on every rank, since every rank calls a
 * communicator's all-reduces in the same order with the same count.  Each
 * rank keeps the mean of its trials of each candidate but the first of each
 * block (unless the block ends there: the cut, below): calls that follow one
 * another run as an iterative code's do, and the first of a block pays for
 * the one before it (its ranks leave it at other times than the candidate's
 * own calls would: with the candidates interleaved, MPI's own came out 40%
 * slower than it runs on the emulated cluster at 64 KiB, and lost to
 * Rabenseifner, 24% slower than it there).  Timed from the last arrival, a
 * trial leaves out the waits for late ranks, which no candidate changes:
 * with the others' delays drawn every call on 8 hosts they varied more from
 * call to call than the ring and RELAY differ, and the trials of either
 * (two counted calls, the fastest of them or their mean) took the ring or
 * RELAY from launch to launch, where RELAY's mean over the calls is
 * 0.94-0.98x the ring's.  What is left is what the candidate costs once
 * every rank is in, RELAY's the least where the others reduced while a late
 * rank was out.  The mean of it, not the fastest: a candidate's cost on
 * average is what a run pays.  After the last trial the ranks add their
 * means up in integer nanoseconds (exact, so the same sums on every rank)
 * and every rank takes the same candidate from the same sums:
 * a schedule of libpat's only where its sum is below PAT_ARED_CHOICE_MARGIN
 * of MPI's own, the faster of the two schedules where both are.  The choice
 * then holds for the class until its re-check: after PAT_ARED_CHOICE_RECHECK
 * blocking calls of the class, then twice as many each time, the trials run
 * again (the choice so far stays for non-blocking calls meanwhile), so that
 * a choice made while the job warmed up, or under other arrivals, does not
 * hold for good, and re-checks cost less and less of a long run.
 *
 * The blocks run RELAY first (HRELAY where ranks share nodes), then the
 * ring (HRING there), MPI's own and Rabenseifner (pat_ared_choice_turns), so
 * that the others are measured against the arrival-aware one: where one rank
 * comes last call after call it is the fastest (0.78x the ring on 8 hosts,
 * 0.87x HRING on 4 x 2), and the ring and MPI's own, compared with it, are
 * cut after one or two calls (below) instead of running their blocks, which
 * cost auto 8-13% over 24 calls when the ring came first.  Where the ranks
 * arrive together RELAY's block costs what it is slower than the ring
 * (1.02x on 8 hosts, 1.14x HRING on 4 x 2): three calls of it.
 *
 * A candidate the runtime knows to lose from the communicator's shape is
 * skipped (pat_ared_choice_init's mask): its block is passed over and it is
 * never chosen (Rabenseifner where ranks share nodes).  One measured 1.1
 * times slower or more than the fastest candidate before it, at its first
 * counted trial, or 1.25 times at its block's first call (every rank adds
 * each up: one more all-reduce of PAT_ARED_CHOICE_N integers), has the rest
 * of its block dropped: calls of it saved where a trial costs most.  A cut
 * loses at most what that one measurement was wrong by, since the one taken
 * instead measured faster; the first call's bar is higher because it may
 * carry the block before it (MPI's own came out 40% slower so at 64 KiB).
 * MPI's own on nodes (2.3x HRING on 3 + 3 + 2 ranks, 2.5x on 4 x 2 round
 * robin) costs one call, not three.
 *
 * Rabenseifner moves what the ring moves (2 (P - 1) / P of the vector through
 * every rank's port) in fewer steps: it can gain over the ring at most the
 * latency of the steps it saves (the runtime's bound, pat_ared_choice_init's).
 * Where the ring's summed trial less that bound is no more than
 * PAT_ARED_CHOICE_NEGLIGIBLE below the fastest so far (the ring's, or
 * RELAY's where a rank comes late), its block is passed over in this
 * exploration (the same on every rank: decided at MPI's own's comparison,
 * from the summed trials; never where MPI's own was as fast as the ring, its
 * algorithm unknown); it was never the fastest at 128 KiB and more where
 * measured, and each of its three trial calls cost 40-100 ms more than the
 * fastest's at 1M floats on 8 hosts.
 *
 * What exploring costs, at most: BLOCK calls of each schedule per class,
 * and one all-reduce of PAT_ARED_CHOICE_N integers.  Measured on the
 * emulated cluster (P = 8, 500 Mbit/s, a core per rank) libpat's ring and
 * Rabenseifner took 0.97-1.02x MPI's own from 16 KiB to 128 KiB and ring
 * 0.77-0.80x from 256 KiB, but 3-8x below 2 KiB (a latency per step); the
 * trials at 64 KiB (on 2 cores, where MPI's own stayed faster) cost OSU's
 * 33 calls of that size 23% more: hence the smallest size, 128 KiB, below
 * which auto never tries them.  Recursive doubling
 * (1.4-2.1x from 64 KiB there) is not a candidate.
 */
#ifndef PAT_DECIDE_ALLREDUCE_CHOICE_H
#define PAT_DECIDE_ALLREDUCE_CHOICE_H

#include <stdint.h>

#define PAT_ARED_CHOICE_MIN_BYTES ((int64_t)128 * 1024)
#define PAT_ARED_CHOICE_BLOCK 3
#define PAT_ARED_CHOICE_MARGIN 0.95
#define PAT_ARED_CHOICE_CUT 1.1 /* a trial this much slower than a candidate before it ends its block */
#define PAT_ARED_CHOICE_CUT_FIRST 1.25 /* ... a block's first call, which may carry the block before it */
#define PAT_ARED_CHOICE_CLASSES 48 /* vectors up to 2^48 bytes */
#define PAT_ARED_CHOICE_N 4
#define PAT_ARED_CHOICE_RECHECK 64
#define PAT_ARED_CHOICE_NEGLIGIBLE 0.02 /* a gain this small a part of the fastest is not worth a trial */

/* What each candidate index runs: PAT_ARED_NATIVE (MPI's own), else an
 * all-reduce id (algorithms/allreduce.h).  Index 0 is MPI's own. */
#define PAT_ARED_NATIVE (-1)
#define PAT_ARED_CHOICE_RABENSEIFNER_INDEX 2 /* Rabenseifner's index among the candidates */
#define PAT_ARED_CHOICE_RELAY_INDEX 3        /* RELAY's index among the candidates */
extern const int pat_ared_choice_candidates[PAT_ARED_CHOICE_N];
/* The order the candidates' blocks run in: candidate indices, RELAY first. */
extern const int pat_ared_choice_turns[PAT_ARED_CHOICE_N];

typedef struct pat_ared_class {
  unsigned skip; /* bit i: candidate i is not tried here (its block passed over, never chosen) */
  unsigned passed; /* bit i: ... nor in this exploration (it cannot gain enough: see above) */
  int64_t rabenseifner_gain_ns; /* the most Rabenseifner can gain over the ring per call, summed over ranks */
  int trials;    /* trials of the current exploration so far */
  int exploring; /* trials run (at first, and in each re-check) */
  int decided;   /* a choice was made (it holds while a re-check runs) */
  int choice;    /* candidate index, once decided */
  int64_t calls_since; /* blocking calls since the last choice */
  int64_t recheck_at;  /* ... at which the next re-check starts */
  int64_t trial_ns[PAT_ARED_CHOICE_N]; /* this rank's counted trials of each, added up */
  int trial_calls[PAT_ARED_CHOICE_N];  /* ... how many (0: none yet) */
} pat_ared_class;

typedef struct pat_ared_choice {
  pat_ared_class cls[PAT_ARED_CHOICE_CLASSES];
} pat_ared_choice;

/* A choice with every class unexplored; candidates of `skip` (bit i:
 * candidate i) are never tried nor chosen (the runtime's, from the
 * communicator's shape: Rabenseifner where ranks share nodes; never bit 0).
 * rabenseifner_gain_ns: the most Rabenseifner can gain over the ring in one
 * call, summed over the ranks as the trials are (the steps it saves times the
 * latency, times P; INT64_MAX: unknown, always tried). */
void pat_ared_choice_init(pat_ared_choice *c, unsigned skip, int64_t rabenseifner_gain_ns);

/* The class of a vector of `bytes`, or -1: too small to try libpat's
 * schedules (MPI's own runs, untimed). */
int pat_ared_choice_class(int64_t bytes);

/* A blocking call of the class: the candidate index it runs; *timed = 1
 * when it is a trial (time it and pat_ared_choice_note it).  Counts the call
 * towards the next re-check. */
int pat_ared_choice_blocking(pat_ared_class *c, int *timed);

/* Calls a class's trials take. */
#define PAT_ARED_CHOICE_TRIALS (PAT_ARED_CHOICE_N * PAT_ARED_CHOICE_BLOCK)

/* A trial of candidate `cand` took elapsed_ns on this rank.  Returns
 * PAT_ARED_NOTE_DECIDE: that was the last trial: add every rank's
 * pat_ared_choice_partial up and call pat_ared_choice_decide now;
 * PAT_ARED_NOTE_COMPARE: the first or the second call of a candidate's block
 * after the first turn: add them up and call pat_ared_choice_compare (which may end the
 * candidate's block); PAT_ARED_NOTE_NONE otherwise (and outside trials). */
#define PAT_ARED_NOTE_NONE 0
#define PAT_ARED_NOTE_DECIDE 1
#define PAT_ARED_NOTE_COMPARE 2
int pat_ared_choice_note(pat_ared_class *c, int cand, int64_t elapsed_ns);

/* This rank's mean trial of each candidate so far (in turn, the block's
 * first call until its next), 0 where none is timed yet (or it is skipped or
 * passed over): what the ranks add up. */
void pat_ared_choice_partial(const pat_ared_class *c, int64_t *out);

/* After PAT_ARED_NOTE_COMPARE, with the ranks' summed partials: a candidate
 * whose block's first call took PAT_ARED_CHOICE_CUT_FIRST times, or whose
 * first counted trial took PAT_ARED_CHOICE_CUT times, the fastest
 * candidate's (by its mean) of the turns before it or more has the rest of its block dropped (it will
 * not be chosen: MPI's own or a faster one wins the margin); Rabenseifner's
 * block, not run yet, is passed over where it cannot gain enough (above).
 * Returns 1 when that ended the trials: call pat_ared_choice_decide with the
 * same sums. */
int pat_ared_choice_compare(pat_ared_class *c, int cand, const int64_t *sum_ns);

/* The choice from the ranks' summed mean trials (sum_ns[PAT_ARED_CHOICE_N],
 * the same on every rank); returns the candidate index taken. */
int pat_ared_choice_decide(pat_ared_class *c, const int64_t *sum_ns);

#endif
