/* Byte ranges and MPI-sized chunks (see ranges.h). */
#include "exec/ranges.h"

#include <limits.h>

/* Byte offset of piece position `frac` (in 1/PAT_FRAC_ONE of a block);
 * exact for blocks up to 2^48 bytes. */
static size_t piece_offset(size_t block_bytes, uint32_t frac) {
  return (size_t)((unsigned long long)block_bytes * frac / PAT_FRAC_ONE);
}

/* Where block b starts in the stage (b may be P: the end). */
static size_t block_start(int b, size_t block_bytes, const size_t *offsets) {
  return offsets ? offsets[b] : (size_t)b * block_bytes;
}

int pat_span_ranges(int P, const pat_span *sp, size_t block_bytes, const size_t *offsets, pat_range *out) {
  size_t start = block_start(sp->first, block_bytes, offsets);
  if (sp->lo != 0 || sp->hi != PAT_FRAC_ONE) { /* a piece of one block */
    size_t own = block_start(sp->first + 1, block_bytes, offsets) - start;
    size_t lo = piece_offset(own, sp->lo), hi = piece_offset(own, sp->hi);
    out[0] = (pat_range){start + lo, hi - lo};
    return 1;
  }
  int end = sp->first + sp->count;
  if (end <= P) {
    out[0] = (pat_range){start, block_start(end, block_bytes, offsets) - start};
    return 1;
  }
  out[0] = (pat_range){start, block_start(P, block_bytes, offsets) - start};
  out[1] = (pat_range){0, block_start(end - P, block_bytes, offsets)};
  return 2;
}

size_t pat_chunk_unit(size_t limit) { return limit / 2 + 1; }

int pat_ranges_chunks(const pat_range *r, int n, size_t limit, pat_chunk *out) {
  size_t unit = pat_chunk_unit(limit);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (r[i].len == 0) continue;
    if (r[i].len <= limit) {
      out[k++] = (pat_chunk){r[i].displ, (int)r[i].len, 0};
      continue;
    }
    size_t units = r[i].len / unit, rest = r[i].len % unit;
    if (units > INT_MAX) return -1;
    out[k++] = (pat_chunk){r[i].displ, (int)units, 1};
    if (rest > 0) out[k++] = (pat_chunk){r[i].displ + units * unit, (int)rest, 0};
  }
  return k;
}
