/* pat/: call sites predict the next call (its site, arrival and size),
 * follow alternating sites, replace the least recently used one when full;
 * the phase tracker gives one prediction per compute phase and never
 * overflows. */
#include <stdint.h>

#include "pat/phase.h"
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

int main(void) {
  if (test_alternating_sites() || test_replacement() || test_phase()) return 1;
  return TEST_RESULT();
}
