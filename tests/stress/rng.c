/* splitmix64 streams (see rng.h). */
#include "rng.h"

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

rng rng_make(uint64_t seed, int64_t case_index, int rank, int purpose) {
  uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull);
  h = mix64(h ^ (uint64_t)case_index);
  h = mix64(h ^ ((uint64_t)(int64_t)rank << 8));
  h = mix64(h ^ (uint64_t)purpose);
  return (rng){h};
}

uint64_t rng_next(rng *r) {
  r->s += 0x9e3779b97f4a7c15ull;
  return mix64(r->s);
}

uint64_t rng_below(rng *r, uint64_t n) { return rng_next(r) % n; }

int64_t rng_range(rng *r, int64_t lo, int64_t hi) { return lo + (int64_t)rng_below(r, (uint64_t)(hi - lo + 1)); }

int rng_chance(rng *r, unsigned num, unsigned den) { return rng_below(r, den) < num; }

double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

void rng_shuffle(rng *r, int *v, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)rng_below(r, (uint64_t)i + 1), t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}
