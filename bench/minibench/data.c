/*
 * Reproducible random data and delays.
 *
 * Every value is a pure function of (seed, iteration, owner rank, index), so
 * every rank can regenerate every other rank's block and check the gathered
 * vector element by element, and every algorithm of a launch sees the same
 * data and the same per-rank delays.  Values are multiples of 2^-24 in
 * [0, 1), exact in a float; the check compares bit patterns.
 *
 * With --counts the blocks differ in size: rank r's count follows from
 * (distribution, seed, P, mean) alone, in integer arithmetic, so every rank
 * computes the same vector; block b's values are the first counts[b] of
 * the same stream, wherever the block lies.
 *
 * With --coll allreduce each rank's contribution is whole numbers, so that
 * the sum the check expects is exact whatever order an algorithm adds in
 * (libpat's ring and MPI's own add in different orders, docs/usage.md), and
 * the comparison stays bit for bit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mb.h"

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static uint64_t key(unsigned long long seed, long long iter, int owner, uint64_t domain) {
  uint64_t h = splitmix64((uint64_t)seed ^ domain);
  h = splitmix64(h ^ (uint64_t)iter);
  return splitmix64(h ^ (uint64_t)(uint32_t)owner);
}

/* xorshift64* stream: one state per block, advanced per element */
static inline float next_value(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return (float)((x * 0x2545F4914F6CDD1DULL) >> 40) * (1.0f / 16777216.0f);
}

void mb_fill(float *buf, long long count, unsigned long long seed, long long iter, int owner) {
  uint64_t s = key(seed, iter, owner, 0xDA7A) | 1u;
  for (long long j = 0; j < count; j++) buf[j] = next_value(&s);
}

/* Elements of owner's block at blk[0..count) that differ (bitwise) from the expected ones. */
static long long check_block(const float *blk, long long count, unsigned long long seed, long long iter, int owner) {
  long long wrong = 0;
  uint64_t s = key(seed, iter, owner, 0xDA7A) | 1u;
  for (long long j = 0; j < count; j++) {
    float want = next_value(&s);
    uint32_t x, y;
    memcpy(&x, &blk[j], sizeof x);
    memcpy(&y, &want, sizeof y);
    wrong += x != y;
  }
  return wrong;
}

long long mb_check(const float *all, long long count, int P, unsigned long long seed, long long iter) {
  long long wrong = 0;
  for (int b = 0; b < P; b++) wrong += check_block(all + (long long)b * count, count, seed, iter, b);
  return wrong;
}

long long mb_check_v(const float *all, const int *counts, const int *displs, int P, unsigned long long seed,
                     long long iter) {
  long long wrong = 0;
  for (int b = 0; b < P; b++) wrong += check_block(all + displs[b], counts[b], seed, iter, b);
  return wrong;
}

double mb_uniform(unsigned long long seed, int rank, long long iter) {
  uint64_t h = key(seed, iter, rank, 0xDE1A);
  return (double)(h >> 11) * (1.0 / 9007199254740991.0); /* 53 bits, [0, 1] */
}

void mb_counts_name(int dist, unsigned long long seed, char *out, size_t len) {
  const char *const *names = mb_counts_names;
  if (dist == MB_COUNTS_RANDOM) snprintf(out, len, "random:%llu", seed);
  else snprintf(out, len, "%s", dist >= 0 && dist < MB_COUNTS_KINDS ? names[dist] : "?");
}

const char *const mb_counts_names[MB_COUNTS_KINDS] = {"equal", "onebig", "ramp", "random", "equalv"};

/* random weights: integers in [0.25, 1.75] * 2^20 */
#define W_ONE (1u << 20)

static uint64_t weight(int dist, unsigned long long seed, int P, int r) {
  switch (dist) {
    case MB_COUNTS_ONEBIG: return r == P - 1 ? 4 : 1;
    case MB_COUNTS_RAMP: return (uint64_t)r + 1;
    case MB_COUNTS_RANDOM: return W_ONE / 4 + key(seed, 0, r, 0xC0DE) % (3 * W_ONE / 2 + 1);
    default: return 1;
  }
}

typedef struct remainder {
  uint64_t rem;
  int rank;
} remainder;

static int by_remainder(const void *x, const void *y) {
  const remainder *a = x, *b = y;
  if (a->rem != b->rem) return a->rem < b->rem ? 1 : -1; /* larger first */
  return (a->rank > b->rank) - (a->rank < b->rank);      /* then the lower rank */
}

void mb_block_counts(int dist, unsigned long long seed, int P, long long mean, long long *counts) {
  uint64_t W = 0, total = (uint64_t)P * (uint64_t)mean, given = 0;
  remainder *rm = malloc(sizeof *rm * (size_t)P);
  for (int r = 0; r < P; r++) W += weight(dist, seed, P, r);
  /* counts[r] = floor(total * w_r / W) without overflow: total = q W + t */
  uint64_t q = total / W, t = total % W;
  for (int r = 0; r < P; r++) {
    uint64_t w = weight(dist, seed, P, r), tw = t * w;
    counts[r] = (long long)(q * w + tw / W);
    given += (uint64_t)counts[r];
    if (rm) rm[r] = (remainder){tw % W, r};
  }
  if (rm) {
    qsort(rm, (size_t)P, sizeof *rm, by_remainder);
    for (int k = 0; given < total && k < P; k++, given++) counts[rm[k].rank]++;
    free(rm);
  } else {
    for (int r = 0; given < total; r = (r + 1) % P, given++) counts[r]++; /* out of memory: still exact */
  }
}

/* a separate domain of the key: a contribution is not an all-gather block */
#define SUM_DOMAIN 0x5D3Du

long long mb_sum_span(int P) {
  /* every partial sum of P values stays below 2^24, where floats hold every integer */
  long long span = P > 0 ? (1LL << 24) / P : 1;
  return span > 1024 ? 1024 : span > 1 ? span : 1;
}

static float sum_value(uint64_t *s, long long span) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return (float)(1 + (long long)(((x * 0x2545F4914F6CDD1DULL) >> 11) % (uint64_t)span));
}

void mb_fill_sum(float *buf, long long n, int P, unsigned long long seed, long long iter, int owner) {
  uint64_t s = key(seed, iter, owner, SUM_DOMAIN) | 1u;
  long long span = mb_sum_span(P);
  for (long long j = 0; j < n; j++) buf[j] = sum_value(&s, span);
}

long long mb_check_sum(const float *sum, long long n, int P, unsigned long long seed, long long iter) {
  uint64_t *s = malloc(sizeof *s * (size_t)(P > 0 ? P : 1));
  if (!s) return n; /* unchecked counts as wrong: a check that cannot run must not pass */
  long long span = mb_sum_span(P), wrong = 0;
  for (int r = 0; r < P; r++) s[r] = key(seed, iter, r, SUM_DOMAIN) | 1u;
  for (long long j = 0; j < n; j++) {
    long long want = 0;
    for (int r = 0; r < P; r++) want += (long long)sum_value(&s[r], span);
    float w = (float)want;
    uint32_t x, y;
    memcpy(&x, &sum[j], sizeof x);
    memcpy(&y, &w, sizeof y);
    wrong += x != y;
  }
  free(s);
  return wrong;
}

const char *mb_allreduce_name(const char *name) {
  static const char *const names[] = {"auto", "native", "rdb", "ring", "rabenseifner"};
  for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(name, names[i]) == 0) return names[i];
  return NULL;
}
