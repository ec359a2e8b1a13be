/*
 * auto's choice for the non-blocking all-gathers and persistent starts that
 * run libpat's schedules (blocks of PAT_NBC_AUTO_MIN_BLOCK bytes or more on
 * a communicator of one rank a node, runtime/nbc.c), by measurement: RELAY,
 * started ahead of its call, against DIRECT (whole blocks from every rank at
 * its post, as MPI's own non-blocking all-gather moves them).  Pure: the
 * runtime (runtime/nbc_queue.c) times each call from the last rank's post
 * to its completion on every rank (runtime/nbc_stamps.h says why), hands
 * each rank's time to the others with the next call's messages, and adds
 * every call's mean over the ranks here, in the communicator's call order;
 * so every rank holds the same samples and takes the same choice.  MPI's
 * own call is not a candidate: the choice is made once the samples are in,
 * after the post, and MPI's own call cannot be posted then (docs/design.md
 * §5).
 *
 * Why both: on the emulated cluster (P = 8, 500 Mbit/s, nothing to overlap)
 * with balanced posts RELAY took 0.96x MPI's own at 1M floats but 1.08x at
 * 4M, where its pieces from 7 peers at once contend at each receive port,
 * and DIRECT 1.00x at both; with posts spread over 100 ms RELAY took 0.88x
 * at 4M, DIRECT 1.00x.
 *
 * The rule, in call order: RELAY (the arrival-aware candidate, what these
 * calls ran before there was a choice) until it has run PAT_NBC_FIRST_RUNS
 * times; then DIRECT once, a second time only if its first sample came
 * within PAT_NBC_SECOND_TRY of RELAY's median; afterwards DIRECT where the
 * median of its last PAT_ARM_SAMPLES samples is under PAT_NBC_MARGIN of
 * RELAY's, else RELAY, and the other measured again once every
 * PAT_NBC_RECHECK calls (every PAT_NBC_RECHECK_SLOW where its median is
 * PAT_EXPLORE_DROP times the other's or more), so that a change of the
 * arrivals is seen.  A candidate run but not measured yet (its sample comes
 * with the next call) is not run again for exploring meanwhile.  RELAY
 * keeps the ties: a stalled call among its first samples (a median of
 * three) or DIRECT a few percent ahead does not make it lose.
 */
#ifndef PAT_DECIDE_NBC_CHOICE_H
#define PAT_DECIDE_NBC_CHOICE_H

#include "decide/explore.h"

#define PAT_NBC_FIRST_RUNS 3    /* runs of the arrival-aware candidate before the other is tried */
#define PAT_NBC_MARGIN 0.97     /* the other is kept only where its median is under this share of the first's */
#define PAT_NBC_SECOND_TRY 1.10 /* the other's first sample within this of the first's median: tried again */
#define PAT_NBC_RECHECK 32      /* calls between two measurements of the candidate not run */
#define PAT_NBC_RECHECK_SLOW 128 /* ... where it measured PAT_EXPLORE_DROP times the one run or more */

enum { PAT_NBC_AWARE = 0, PAT_NBC_PLAIN = 1, PAT_NBC_CANDIDATES = 2 };

/* A communicator keeps a choice per size class, the power of two of a call's bytes (every rank's
 * blocks together): RELAY's contention is a matter of size (above), and a program that moves
 * several sizes on one communicator (a benchmark's sweep) must not compare one size's samples with
 * another's. */
#define PAT_NBC_CLASSES 48 /* pat_size_class(bytes, PAT_NBC_CLASSES) */

typedef struct pat_nbc_choice {
  double cost[PAT_NBC_CANDIDATES][PAT_ARM_SAMPLES]; /* the last samples (s), a ring */
  int samples[PAT_NBC_CANDIDATES];                  /* samples ever added */
  int runs[PAT_NBC_CANDIDATES];                     /* calls that ran it */
  long long last_run[PAT_NBC_CANDIDATES];           /* the call that ran it last */
  long long calls;                                  /* calls chosen so far */
} pat_nbc_choice;

void pat_nbc_choice_init(pat_nbc_choice *c);
/* The candidate the next call runs (PAT_NBC_AWARE or PAT_NBC_PLAIN), not
 * counted as run; pat_nbc_choice_take counts it. */
int pat_nbc_choice_peek(const pat_nbc_choice *c);
int pat_nbc_choice_take(pat_nbc_choice *c);
/* A call of candidate cand took cost (s): the mean over its ranks. */
void pat_nbc_choice_add(pat_nbc_choice *c, int cand, double cost);

#endif
