/*
 * The shape of an all-gatherv: the bytes of each rank's block.  Equal blocks
 * are an all-gather and keep their block size as their key everywhere (call
 * sites, exchange records, plans); unequal ones get a shape key instead,
 * made from a signature of the blocks (decide/vchoice.h's pat_vsig: the
 * total and the largest block against the mean, each to a quarter octave,
 * and whether a block is empty), so that counts that drift a little from
 * call to call keep their call site and its history.  A shape key has bit
 * 62 set and is therefore never a block size (an int count of a datatype
 * of at most 2^31 bytes is below 2^62) and never 0 (0 means "unknown" in a
 * record).  Blocks with one key may still differ: what was made for one
 * vector (a plan, its stage) is checked against the call's by the exact
 * hash before it is used.  Pure: no MPI.
 */
#ifndef PAT_SHAPE_H
#define PAT_SHAPE_H

#include <stdint.h>

#define PAT_SHAPE_KEY_BIT (INT64_C(1) << 62)

/* The shape key of a signature. */
static inline int64_t pat_shape_key(uint64_t sig) { return PAT_SHAPE_KEY_BIT | (int64_t)(sig & (PAT_SHAPE_KEY_BIT - 1)); }

static inline int pat_key_is_shape(int64_t key) { return (key & PAT_SHAPE_KEY_BIT) != 0; }

/* An exact hash of the blocks (never 0). */
uint64_t pat_shape_hash(int P, const int64_t *bytes);

/* Their mean, rounded up: at least 1 when some block is not empty. */
int64_t pat_shape_mean(int P, const int64_t *bytes);

#endif
