/* pat/: call sites predict the next call (its site, arrival and size),
 * follow alternating sites, replace the least recently used one when full,
 * keep an all-gatherv's blocks under its shape key; the phase tracker gives
 * one prediction per compute phase and never overflows. */
#include <stdint.h>

#include "pat/phase.h"
#include "pat/shape.h"
#include "pat/sites.h"
#include "testutil.h"

#define MS 1000000LL

static int test_alternating_sites(void) {
  pat_sites t;
  pat_sites_init(&t);
  int site, fresh;
  int64_t arrival, bytes;
  CHECK(!pat_sites_predict(&t, &site, &arrival, &bytes), "no prediction before any call");
  /* calls alternate: A (10 elements of 4 bytes) after 5 ms of compute, B (1000 x 8) after 20 ms */
  int64_t now = 0;
  for (int k = 0; k < 20; k++) {
    int is_a = k % 2 == 0;
    now += is_a ? 5 * MS : 20 * MS;
    int i = pat_sites_find(&t, is_a ? 10 : 1000, is_a ? 40 : 8000, &fresh);
    CHECK(fresh == (k < 2), "call %d: fresh %d", k, fresh);
    pat_sites_record(&t, i, now, now + MS);
    now += MS;
  }
  CHECK(t.n == 2, "two sites, got %d", t.n);
  /* the same block size in another count (another datatype) is the same site */
  int as_ints = pat_sites_find(&t, 10, 40, &fresh), as_bytes = pat_sites_find(&t, 40, 40, &fresh);
  CHECK(as_ints == as_bytes && !fresh, "a site is its block size, whatever the count");
  /* the last call was B: next is A, 5 ms after the last exit */
  CHECK(pat_sites_predict(&t, &site, &arrival, &bytes), "prediction");
  CHECK(t.site[site].count == 10 && bytes == 40, "next site is A (count %d, bytes %lld)", t.site[site].count,
        (long long)bytes);
  CHECK(arrival == t.last_exit_ns + 5 * MS, "A comes 5 ms after the exit: %lld", (long long)(arrival - t.last_exit_ns));
  return 0;
}

static int test_replacement(void) {
  pat_sites t;
  pat_sites_init(&t);
  int fresh, first = -1;
  for (int k = 0; k < PAT_SITES_MAX; k++) {
    int i = pat_sites_find(&t, k + 1, 4 * (k + 1), &fresh);
    if (k == 0) first = i;
    CHECK(fresh == 1, "site %d: fresh %d while there was room", k, fresh);
    pat_sites_record(&t, i, k * MS, k * MS + 1);
  }
  /* touch the first again: the least recently used is now the second */
  int again = pat_sites_find(&t, 1, 4, &fresh);
  CHECK(again == first && !fresh, "an existing site is found");
  pat_sites_record(&t, again, 100 * MS, 100 * MS + 1);
  int i = pat_sites_find(&t, 999, 4 * 999, &fresh);
  CHECK(fresh == 2, "a new site when full replaces one");
  CHECK(i != first, "the recently used site survives");
  CHECK(t.site[i].count == 999 && t.site[i].gaps.n == 0, "the new site starts empty");
  for (int k = 0; k < t.n; k++) CHECK(t.site[k].successor != i, "nobody is followed by the replaced site");
  return 0;
}

static int test_phase(void) {
  pat_phase ph = {0};
  int64_t a;
  CHECK(pat_phase_edge(&ph, 0, 50, &a) == PAT_PHASE_NO_PHASE, "edge outside a phase");
  CHECK(pat_phase_end(&ph, 0, &a) == PAT_PHASE_NO_PHASE, "end outside a phase");
  pat_phase_start(&ph, 1000 * MS);
  CHECK(pat_phase_edge(&ph, 1010 * MS, 0, &a) == PAT_PHASE_BAD_PERCENT, "percent 0");
  CHECK(pat_phase_edge(&ph, 1010 * MS, 100, &a) == PAT_PHASE_BAD_PERCENT, "percent 100");
  CHECK(pat_phase_edge(&ph, 1010 * MS, 25, &a) == PAT_PHASE_PREDICT && a == 1040 * MS, "25%% after 10 ms: ends at 40 ms");
  CHECK(pat_phase_edge(&ph, 1020 * MS, 50, &a) == PAT_PHASE_NOTHING, "one prediction per phase");
  CHECK(pat_phase_end(&ph, 1041 * MS, &a) == PAT_PHASE_NOTHING, "the end after an edge predicts nothing");
  pat_phase_start(&ph, 2000 * MS);
  CHECK(pat_phase_end(&ph, 2030 * MS, &a) == PAT_PHASE_PREDICT && a == 2030 * MS, "without an edge, the end is the arrival");
  pat_phase_start(&ph, 3000 * MS);
  CHECK(pat_phase_edge(&ph, 3000 * MS + 5 * MS, 1e-12, &a) == PAT_PHASE_PREDICT, "tiny percent");
  CHECK(a > 3000 * MS && a <= 3000 * MS + 86400LL * 1000 * MS, "a tiny percent predicts at most a day: %lld", (long long)a);
  return 0;
}

/* A shape key is never a block size nor "unknown"; its site keeps the last
 * blocks, predicts the key, and gives the model their mean; replacing the
 * site forgets them. */
static int test_shape_sites(void) {
  int64_t ramp[4] = {1, 2, 3, 5}, drift[4] = {1, 2, 4, 4}, empty[4] = {0, 0, 0, 1};
  int64_t key = pat_shape_key(0x123456789abcdefull);
  CHECK(pat_key_is_shape(key) && key > 0 && !pat_key_is_shape((int64_t)INT32_MAX * INT32_MAX),
        "a shape key is positive and above every int count of a datatype");
  CHECK(pat_shape_mean(4, ramp) == 3 && pat_shape_mean(4, empty) == 1, "the mean is rounded up: %lld, %lld",
        (long long)pat_shape_mean(4, ramp), (long long)pat_shape_mean(4, empty));
  CHECK(pat_shape_hash(4, ramp) != pat_shape_hash(4, drift) && pat_shape_hash(4, ramp) != 0, "hashes tell blocks apart");
  pat_sites t;
  pat_sites_init(&t);
  int fresh, i = pat_sites_find(&t, 3, key, &fresh);
  CHECK(pat_sites_set_shape(&t, i, 4, ramp) == 0 && t.site[i].shape_hash == pat_shape_hash(4, ramp), "shape kept");
  CHECK(pat_sites_block_bytes(&t, i) == 3, "the model sees the mean");
  pat_sites_record(&t, i, 0, MS);
  pat_sites_record(&t, i, 2 * MS, 3 * MS);
  int site;
  int64_t arrival, bytes;
  CHECK(pat_sites_predict(&t, &site, &arrival, &bytes) && site == i && bytes == key, "the key is predicted");
  CHECK(pat_sites_set_shape(&t, i, 4, drift) == 0 && t.site[i].shape[2] == 4 &&
            t.site[i].shape_hash == pat_shape_hash(4, drift),
        "the last call's blocks replace the old ones");
  for (int k = 0; k < PAT_SITES_MAX; k++) { /* fill the table: the shape site goes first */
    int j = pat_sites_find(&t, 1, 100 + k, &fresh);
    pat_sites_record(&t, j, 0, MS);
  }
  CHECK(pat_sites_lookup(&t, key) < 0 && t.site[i].shape == NULL && t.site[i].shape_hash == 0,
        "a replaced site forgets its blocks");
  pat_sites_free(&t);
  return 0;
}

int main(void) {
  if (test_alternating_sites() || test_replacement() || test_phase() || test_shape_sites()) return 1;
  return TEST_RESULT();
}
