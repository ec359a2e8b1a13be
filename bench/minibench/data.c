/*
 * Reproducible random data and delays.
 *
 * Every value is a pure function of (seed, iteration, owner rank, index), so
 * every rank can regenerate every other rank's block and check the gathered
 * vector element by element, and every algorithm of a launch sees the same
 * data and the same per-rank delays.  Values are multiples of 2^-24 in
 * [0, 1), exact in a float; the check compares bit patterns.
 */
#include <string.h>

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

long long mb_check(const float *all, long long count, int P, unsigned long long seed, long long iter) {
  long long wrong = 0;
  for (int b = 0; b < P; b++) {
    uint64_t s = key(seed, iter, b, 0xDA7A) | 1u;
    const float *blk = all + (long long)b * count;
    for (long long j = 0; j < count; j++) {
      float want = next_value(&s);
      uint32_t x, y;
      memcpy(&x, &blk[j], sizeof x);
      memcpy(&y, &want, sizeof y);
      wrong += x != y;
    }
  }
  return wrong;
}

double mb_uniform(unsigned long long seed, int rank, long long iter) {
  uint64_t h = key(seed, iter, rank, 0xDE1A);
  return (double)(h >> 11) * (1.0 / 9007199254740991.0); /* 53 bits, [0, 1] */
}
