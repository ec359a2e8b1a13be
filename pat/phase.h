/*
 * The compute phase as the application marks it (PAT_ProcessingStart,
 * PAT_Edge, PAT_ProcessingEnd): when it started, and whether it already gave
 * its one prediction of the next arrival -- at the first edge (linear
 * extrapolation, predict.h) or, without an edge, at its end.  The public
 * functions (runtime/instrument.c) check the library state, then ask this
 * tracker what to predict.  Pure: times are passed in.
 */
#ifndef PAT_PHASE_H
#define PAT_PHASE_H

#include <stdint.h>

typedef struct pat_phase {
  int instrumented; /* a phase was ever started: the application is instrumented */
  int active;       /* between start and end */
  int predicted;    /* this phase already gave its prediction */
  int64_t start_ns;
} pat_phase;

enum pat_phase_status {
  PAT_PHASE_PREDICT = 1, /* *arrival_ns holds this phase's prediction */
  PAT_PHASE_NOTHING = 0, /* valid, nothing to predict */
  PAT_PHASE_NO_PHASE = -1, /* edge or end outside a phase */
  PAT_PHASE_BAD_PERCENT = -2 /* percent not in (0, 100) */
};

void pat_phase_start(pat_phase *ph, int64_t now_ns);
int pat_phase_edge(pat_phase *ph, int64_t now_ns, double percent, int64_t *arrival_ns);
int pat_phase_end(pat_phase *ph, int64_t now_ns, int64_t *arrival_ns);

#endif
