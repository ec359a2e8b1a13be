/* Deterministic random numbers for the stress tests: a stream is named by
 * (seed, case, rank, purpose), so every rank can derive any rank's choices
 * for any case without communication, and a case reruns alone. */
#ifndef STRESS_RNG_H
#define STRESS_RNG_H

#include <stdint.h>

typedef struct rng {
  uint64_t s;
} rng;

/* Purposes of streams (keep them apart so adding draws to one does not
 * shift another). */
enum {
  RNG_CASE = 1,  /* the shape every rank agrees on */
  RNG_RANK,      /* one rank's own part of a case */
  RNG_POOL,      /* which communicator slots a case replaces */
  RNG_COMM,      /* the new communicator of a slot */
  RNG_FREE,      /* one rank's order of frees */
  RNG_LAYOUT,    /* one rank's datatypes */
  RNG_FILL,      /* one rank's buffer contents (RNG_FILL + 1: its timing, stress_conformance.c) */
  RNG_UNITS = 16 /* one rank's units in an all-gatherv case (clear of RNG_FILL + 1 + 256 j) */
};

/* No rank: RNG_ANY. */
#define RNG_ANY (-1)

rng rng_make(uint64_t seed, int64_t case_index, int rank, int purpose);
uint64_t rng_next(rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t rng_below(rng *r, uint64_t n);
/* Uniform in [lo, hi]. */
int64_t rng_range(rng *r, int64_t lo, int64_t hi);
/* 1 with probability num/den. */
int rng_chance(rng *r, unsigned num, unsigned den);
/* Uniform in [0, 1). */
double rng_unit(rng *r);
/* A uniformly random permutation of v[0..n-1]. */
void rng_shuffle(rng *r, int *v, int n);

#endif
