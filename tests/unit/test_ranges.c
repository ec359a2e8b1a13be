/* The packed view's byte ranges and their MPI-sized chunks (exec/ranges.h),
 * at sizes near and over INT_MAX: arithmetic only, nothing is allocated. */
#include <limits.h>
#include <stdint.h>

#include "exec/ranges.h"
#include "testutil.h"

#define GIB ((size_t)1 << 30)

static size_t chunk_bytes(const pat_chunk *c, size_t limit) {
  return c->in_units ? (size_t)c->count * pat_chunk_unit(limit) : (size_t)c->count;
}

/* The chunks of ranges r cover exactly their bytes, in order, each with a
 * count MPI takes; a range up to the limit stays one count of bytes. */
static int chunks_cover(const pat_range *r, int n, size_t limit) {
  pat_chunk c[16];
  int k = pat_ranges_chunks(r, n, limit, c), at = 0;
  int too_long = 0;
  for (int i = 0; i < n; i++) too_long |= r[i].len > limit && r[i].len / pat_chunk_unit(limit) > INT_MAX;
  if (too_long) {
    CHECK(k == -1, "a range of more than INT_MAX units gave %d chunks", k);
    return 0;
  }
  CHECK(k >= 0 && k <= PAT_CHUNKS_PER_RANGE * n, "%d chunks for %d ranges", k, n);
  for (int i = 0; i < n; i++) {
    size_t next = r[i].displ, end = r[i].displ + r[i].len;
    int first = at;
    while (at < k && next < end) {
      CHECK(c[at].displ == next, "range %d: chunk at %zu, expected %zu", i, c[at].displ, next);
      CHECK(c[at].count >= 1 && c[at].count <= INT_MAX, "count %d", c[at].count);
      next += chunk_bytes(&c[at], limit);
      at++;
    }
    CHECK(next == end, "range %d of %zu bytes: chunks end at %zu, not %zu", i, r[i].len, next, end);
    if (r[i].len > 0 && r[i].len <= limit)
      CHECK(at == first + 1 && !c[first].in_units, "a range of %zu bytes is not one count of bytes", r[i].len);
    if (r[i].len > limit) CHECK(c[first].in_units, "a range of %zu bytes does not start with units", r[i].len);
  }
  CHECK(at == k, "%d chunks left over", k - at);
  return 0;
}

static int test_chunks_near_int_max(void) {
  const size_t lens[] = {0,       1,           INT_MAX - 1,         INT_MAX,        (size_t)INT_MAX + 1,
                         2 * GIB, 4 * GIB + 7, 3 * GIB + 5,         5 * GIB,        (size_t)1 << 40,
                         GIB,     GIB + 1,     (size_t)INT_MAX * 2, 2 * GIB - 1 + GIB};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    pat_range r = {3 * GIB + 11, lens[i]}; /* displacements past INT_MAX too */
    if (chunks_cover(&r, 1, INT_MAX)) return 1;
    if (chunks_cover(&r, 1, 100)) return 1; /* the limit tests lower */
  }
  CHECK(pat_chunk_unit(INT_MAX) == GIB, "the unit for INT_MAX is %zu, not 1 GiB", pat_chunk_unit(INT_MAX));
  CHECK(pat_chunk_unit(1) == 1, "a limit of 1 byte has unit %zu", pat_chunk_unit(1));
  return 0;
}

static int test_exact_split(void) {
  pat_chunk c[4];
  pat_range r = {0, (size_t)INT_MAX + 1}; /* 2 GiB: two units, nothing left */
  int k = pat_ranges_chunks(&r, 1, INT_MAX, c);
  CHECK(k == 1 && c[0].in_units && c[0].count == 2, "2 GiB: %d chunks, first %d %s", k, c[0].count,
        c[0].in_units ? "units" : "bytes");
  r.len = 2 * GIB + 5;
  k = pat_ranges_chunks(&r, 1, INT_MAX, c);
  CHECK(k == 2 && c[0].count == 2 && c[1].displ == 2 * GIB && c[1].count == 5 && !c[1].in_units,
        "2 GiB + 5: %d chunks", k);
  return 0;
}

static int test_several_ranges(void) {
  pat_range r[4] = {{8 * GIB, 3 * GIB}, {0, 0}, {100, INT_MAX}, {11 * GIB, 1}};
  if (chunks_cover(r, 4, INT_MAX)) return 1;
  if (chunks_cover(r, 4, 1000)) return 1;
  pat_chunk c[8];
  CHECK(pat_ranges_chunks(r + 1, 1, INT_MAX, c) == 0, "an empty range gives chunks");
  return 0;
}

/* A count of units that itself overflows is refused, never wrapped. */
static int test_too_long(void) {
  pat_chunk c[2];
  size_t limit = 100, unit = pat_chunk_unit(limit);
  pat_range r = {0, unit * ((size_t)INT_MAX + 1)};
  CHECK(pat_ranges_chunks(&r, 1, limit, c) == -1, "%zu units accepted", (size_t)INT_MAX + 1);
  r.len = unit * (size_t)INT_MAX;
  CHECK(pat_ranges_chunks(&r, 1, limit, c) == 1 && c[0].count == INT_MAX, "INT_MAX units refused");
  return 0;
}

static int test_span_ranges(void) {
  pat_range r[2];
  size_t B = 3 * GIB / 2; /* 1.5 GiB blocks */
  /* a run of 3 blocks from block 3 of 4 wraps: block 3, then blocks 0-1 */
  pat_span sp = pat_blocks(4, 3, 3);
  int n = pat_span_ranges(4, &sp, B, NULL, r);
  CHECK(n == 2 && r[0].displ == 3 * B && r[0].len == B && r[1].displ == 0 && r[1].len == 2 * B,
        "wrapping run: %d ranges", n);
  if (chunks_cover(r, n, INT_MAX)) return 1;
  /* BSLB's broadcast: P-1 blocks in one message, 63 x 40 MiB = 2.46 GiB */
  sp = pat_blocks(64, 1, 63);
  n = pat_span_ranges(64, &sp, 40 << 20, NULL, r);
  CHECK(n == 1 && r[0].displ == 40 << 20 && r[0].len == (size_t)63 * (40 << 20), "P-1 blocks: %d ranges", n);
  if (chunks_cover(r, n, INT_MAX)) return 1;
  /* a piece of a block over 2 GiB, past INT_MAX both in offset and length */
  size_t big = 5 * GIB + 3;
  sp = pat_piece(2, 1, PAT_FRAC_ONE - 1);
  n = pat_span_ranges(3, &sp, big, NULL, r);
  size_t lo = big / PAT_FRAC_ONE, hi = (size_t)((unsigned long long)big * (PAT_FRAC_ONE - 1) / PAT_FRAC_ONE);
  CHECK(n == 1 && r[0].displ == 2 * big + lo && r[0].len == hi - lo, "piece: %d ranges, %zu bytes at %zu", n,
        r[0].len, r[0].displ);
  if (chunks_cover(r, n, INT_MAX)) return 1;
  /* pieces that meet leave no byte out and count none twice */
  pat_span a = pat_piece(0, 0, 21845), b = pat_piece(0, 21845, PAT_FRAC_ONE);
  pat_range ra, rb;
  pat_span_ranges(1, &a, big, NULL, &ra);
  pat_span_ranges(1, &b, big, NULL, &rb);
  CHECK(ra.displ == 0 && ra.displ + ra.len == rb.displ && rb.displ + rb.len == big, "pieces do not tile the block");
  return 0;
}

/* Unequal blocks (an all-gatherv's stage): runs, wrapping runs and pieces
 * follow the offsets, a piece is a fraction of its own block, an empty block
 * gives an empty range, and pieces of one block tile it exactly. */
static int test_unequal_blocks(void) {
  /* blocks of 10, 0, 3 GiB and 7 bytes */
  size_t off[5] = {0, 10, 10, 10 + 3 * GIB, 17 + 3 * GIB};
  pat_range r[2];
  pat_span sp = pat_blocks(4, 1, 1);
  int n = pat_span_ranges(4, &sp, 0, off, r);
  CHECK(n == 1 && r[0].displ == 10 && r[0].len == 0, "empty block: %d ranges, %zu bytes", n, r[0].len);
  sp = pat_blocks(4, 0, 3);
  n = pat_span_ranges(4, &sp, 0, off, r);
  CHECK(n == 1 && r[0].displ == 0 && r[0].len == 10 + 3 * GIB, "run of three: %zu bytes", r[0].len);
  if (chunks_cover(r, n, INT_MAX)) return 1;
  sp = pat_blocks(4, 3, 2); /* block 3, then block 0 */
  n = pat_span_ranges(4, &sp, 0, off, r);
  CHECK(n == 2 && r[0].displ == off[3] && r[0].len == 7 && r[1].displ == 0 && r[1].len == 10,
        "wrapping run over unequal blocks: %d ranges", n);
  sp = pat_piece(2, PAT_FRAC_ONE / 2, PAT_FRAC_ONE);
  n = pat_span_ranges(4, &sp, 0, off, r);
  CHECK(n == 1 && r[0].displ == 10 + 3 * GIB / 2 && r[0].len == 3 * GIB / 2, "second half of the big block: %zu at %zu",
        r[0].len, r[0].displ);
  size_t covered = 0;
  for (uint32_t lo = 0; lo < PAT_FRAC_ONE; lo += 9000) {
    uint32_t hi = lo + 9000 > PAT_FRAC_ONE ? PAT_FRAC_ONE : lo + 9000;
    sp = pat_piece(3, lo, hi);
    pat_span_ranges(4, &sp, 0, off, r);
    CHECK(r[0].displ == off[3] + covered, "piece [%u, %u) of the 7-byte block starts at %zu", lo, hi, r[0].displ);
    covered += r[0].len;
  }
  CHECK(covered == 7, "the pieces of the 7-byte block cover %zu bytes", covered);
  return 0;
}

int main(void) {
  test_chunks_near_int_max();
  test_exact_split();
  test_several_ranges();
  test_too_long();
  test_span_ranges();
  test_unequal_blocks();
  return TEST_RESULT();
}
