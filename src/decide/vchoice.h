/*
 * auto's choice for an all-gatherv (blocks of different sizes), made without
 * an exchange: the static choice of the count vector, cached per vector.
 *
 * The prediction of each candidate for block sizes b_0..b_{P-1} (bytes,
 * mean m) takes the measured balanced level at equal blocks of the same
 * total, and adds the schedule's response to the unequal sizes:
 *
 *     t(alg) = level(alg, m) + replay_v(alg, b) - replay(alg, m, ..., m)
 *
 * (the measurement sets the level, the replay the response, as the
 * all-gather's selection does for arrivals, model/select.h).  NATIVE has no
 * schedule: MPI's own all-gatherv is taken to respond like the best classic
 * schedule (the smallest response of RING, NEX, RDB, BRUCK, DIRECT), which is
 * what the MPI libraries run (ring, neighbour exchange, Bruck, recursive
 * doubling).  Open MPI's all-gatherv measures about as RING does on unequal
 * blocks, while the replay gives BRUCK the smallest response: the
 * assumption favours NATIVE.
 *
 * Candidates: NATIVE, the classic algorithms, and RELAY on its schedule for
 * balanced arrivals (the one PAT_Allgatherv runs, built for the largest
 * block); its level was measured with an exchange before every call, which
 * the all-gatherv does not make, so it too errs towards NATIVE.  An
 * alternative replaces NATIVE only if it is predicted PAT_STATIC_MARGIN
 * faster, and back to back too where the model file has back-to-back times
 * (the all-gather's static rule: pat_static_native_stays, static_rule.h).
 *
 * NATIVE without asking the replay: without a model file (no levels),
 * beyond PAT_VCHOICE_MAX_P ranks (the replays build every rank's schedule:
 * O(P^2) ops; a candidate estimated over PAT_SELECT_ARRIVAL_MAX_OPS ops is
 * left out below it, as in the all-gather's selection), and where NATIVE's level at the mean block is under
 * PAT_VCHOICE_MIN_S (latency-bound calls, where MPI's own is hard to beat and
 * a replay per new count vector would cost a visible share).
 *
 * Agreement: a correct program passes the same counts on every rank, the
 * model is broadcast, the best prediction is picked in integer nanoseconds
 * with ties to the lower algorithm id, and every rank runs the same
 * arithmetic on the same inputs, so every rank chooses
 * alike (tests/unit/test_vchoice.c).
 *
 * Signatures: the choice is kept per count vector signature, made for the
 * first vector seen with it and reused by every later one: the total bytes
 * and the largest block against the mean, each to a quarter octave (19%),
 * and whether some block is empty.  A code whose counts drift a little
 * from call to call (particles changing owner) then pays for one choice,
 * not one per call: at P = 8 on large blocks a choice costs a few ms of
 * replay (RELAY's pieces in the fluid model), about 1-3% of such a call.
 * PAT_VSITES signatures per communicator, the least recently used one
 * replaced.  Pure C, no MPI; one table per communicator, under its lock.
 */
#ifndef PAT_VCHOICE_H
#define PAT_VCHOICE_H

#include <stdint.h>

#include "algorithms/algorithms.h"
#include "model/model.h"

#define PAT_VSITES 8
#define PAT_VCHOICE_MAX_P 64
#define PAT_VCHOICE_MIN_S 500e-6

typedef struct pat_vsite {
  uint64_t sig;        /* the signature (pat_vsig); 0: an empty slot */
  int alg;             /* the choice */
  long long used;      /* when it was last used (the table's clock) */
  long long calls;
} pat_vsite;

typedef struct pat_vsites {
  long long clock;
  pat_vsite site[PAT_VSITES];
} pat_vsites;

void pat_vsites_init(pat_vsites *t);

/* The signature of blocks of bytes[0..P-1] (never 0). */
uint64_t pat_vsig(int P, const int64_t *bytes);
/* The slot holding signature sig, or -1. */
int pat_vsites_find(pat_vsites *t, uint64_t sig);
/* Keep `alg` as the choice for sig (in an empty slot or the least recently
 * used one); returns the slot. */
int pat_vsites_put(pat_vsites *t, uint64_t sig, int alg);

/* Every candidate's prediction (s) for blocks of bytes[0..P-1] into
 * ebar_s[PAT_ALG_COUNT], NAN where an algorithm is not predicted.  Returns
 * the number of algorithms predicted (0: no levels, P too large, or out of
 * memory). */
int pat_vchoice_predict(const pat_model_params *mp, int P, const int64_t *bytes, double *ebar_s);

/* The choice by the rules above: NATIVE, a classic algorithm or RELAY. */
int pat_vchoice(const pat_model_params *mp, int P, const int64_t *bytes);

#endif
