/*
 * Byte ranges of the packed view, and how to hand them to MPI, whose counts
 * are ints.  A range up to the count limit (INT_MAX bytes) is one count of
 * bytes; a longer one (a block over 2 GiB, or several blocks in one message,
 * as BSLB's broadcast sends) is a count of units of `unit` bytes and a
 * remainder of bytes.  Every rank computes the same pieces from the same
 * schedule and block size, so no rank can refuse a size another accepts.
 *
 * Pure arithmetic, no MPI: the sizes near and over INT_MAX are unit-tested
 * without moving gigabytes.
 */
#ifndef PAT_RANGES_H
#define PAT_RANGES_H

#include <stddef.h>

#include "algorithms/sched/schedule.h"

typedef struct pat_range {
  size_t displ; /* bytes from the start of the buffer */
  size_t len;   /* bytes */
} pat_range;

/* The bytes of span sp in a stage of P blocks, block b at offsets[b] with
 * offsets[b + 1] - offsets[b] bytes (an all-gatherv's unequal blocks), or,
 * with offsets NULL, of block_bytes bytes each at b * block_bytes: one range
 * for a piece or a run of blocks that does not wrap, two for a run that
 * wraps past block P-1.  A piece of a block is the same fraction of its own
 * bytes.  Returns the number of ranges. */
int pat_span_ranges(int P, const pat_span *sp, size_t block_bytes, const size_t *offsets, pat_range *out);

typedef struct pat_chunk {
  size_t displ; /* bytes from the start of the buffer */
  int count;    /* units of `unit` bytes if in_units, else bytes */
  int in_units;
} pat_chunk;

/* At most this many chunks come from one range. */
#define PAT_CHUNKS_PER_RANGE 2

/* The unit that goes with a count limit: just over half of it, so a long
 * range is at least one unit, and INT_MAX gives 1 GiB. */
size_t pat_chunk_unit(size_t limit);

/* Split n ranges, in order, into chunks: a range of at most `limit` bytes
 * (limit <= INT_MAX) is one chunk of bytes; a longer one is len / unit units
 * of pat_chunk_unit(limit) bytes, then the remainder in bytes if any.  Empty
 * ranges give no chunk.  Returns the number of chunks, or -1 if a range is
 * too long to count even in units. */
int pat_ranges_chunks(const pat_range *r, int n, size_t limit, pat_chunk *out);

#endif
