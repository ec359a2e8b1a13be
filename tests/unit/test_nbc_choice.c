/* auto's choice for libpat's non-blocking all-gathers (decide/nbc_choice.h),
 * fed as the runtime feeds it: a call's sample comes in when the next call
 * completes.  Planted costs: the cheaper candidate is found and kept, the
 * other measured again only now and then (rarely where it is far slower),
 * and a change of costs is followed.  That every rank chooses alike is
 * checked under MPI (mpi.test_iallgather_ahead.auto). */
#include "decide/nbc_choice.h"
#include "testutil.h"

#define CALLS 200

typedef double (*cost_fn)(int cand, int call);

/* Runs calls [0, CALLS) on a fresh choice and writes what each ran. */
static void simulate(cost_fn cost, int *ran) {
  pat_nbc_choice c;
  pat_nbc_choice_init(&c);
  int prev = -1;
  double prev_cost = 0;
  for (int k = 0; k < CALLS; k++) {
    ran[k] = pat_nbc_choice_take(&c);
    if (prev >= 0) pat_nbc_choice_add(&c, prev, prev_cost); /* the stamps of call k bring call k - 1's times */
    prev = ran[k];
    prev_cost = cost(ran[k], k);
  }
}

static int count(const int *ran, int from, int to, int cand) {
  int n = 0;
  for (int k = from; k < to; k++) n += ran[k] == cand;
  return n;
}

static double plain_cheaper(int cand, int call) { return (void)call, cand == PAT_NBC_AWARE ? 1.08 : 1.00; }
static double aware_cheaper(int cand, int call) { return (void)call, cand == PAT_NBC_AWARE ? 0.96 : 1.00; }
static double plain_far_slower(int cand, int call) { return (void)call, cand == PAT_NBC_AWARE ? 0.60 : 1.20; }
static double plain_a_little_cheaper(int cand, int call) { return (void)call, cand == PAT_NBC_AWARE ? 1.00 : 0.98; }
/* RELAY 0.9 but for one stalled call (its second); DIRECT 1.0 */
static double aware_with_a_stall(int cand, int call) {
  return cand == PAT_NBC_PLAIN ? 1.00 : call == 1 ? 2.50 : 0.90;
}
static double costs_change(int cand, int call) {
  return call < 100 ? aware_cheaper(cand, call) : plain_cheaper(cand, call);
}

static int test_finds_the_cheaper(void) {
  int ran[CALLS];
  simulate(plain_cheaper, ran);
  CHECK(count(ran, 0, 3, PAT_NBC_AWARE) == 3, "RELAY first, as before there was a choice");
  CHECK(count(ran, 0, 8, PAT_NBC_PLAIN) >= 2, "DIRECT tried twice early (%d of 8)", count(ran, 0, 8, PAT_NBC_PLAIN));
  int aware = count(ran, 10, CALLS, PAT_NBC_AWARE);
  CHECK(aware >= 4 && aware <= 7, "DIRECT kept; RELAY measured again every 32 calls (%d of 190)", aware);
  simulate(aware_cheaper, ran);
  int plain = count(ran, 10, CALLS, PAT_NBC_PLAIN);
  CHECK(plain >= 4 && plain <= 7, "RELAY kept; DIRECT measured again every 32 calls (%d of 190)", plain);
  CHECK(count(ran, 0, 10, PAT_NBC_PLAIN) == 2, "DIRECT, close, tried twice (%d)", count(ran, 0, 10, PAT_NBC_PLAIN));
  return 0;
}

/* The arrival-aware candidate stays unless the other is clearly cheaper, and one stalled call does not
 * make it lose. */
static int test_keeps_relay_unless_clearly_slower(void) {
  int ran[CALLS];
  simulate(plain_a_little_cheaper, ran);
  int aware = count(ran, 10, CALLS, PAT_NBC_AWARE);
  CHECK(aware >= 180, "DIRECT 2%% cheaper: RELAY kept (%d of 190)", aware);
  simulate(aware_with_a_stall, ran);
  aware = count(ran, 0, 32, PAT_NBC_AWARE);
  CHECK(aware >= 31, "a stall among RELAY's first samples: DIRECT tried once only (RELAY %d of 32)", aware);
  return 0;
}

static int test_far_slower_rarely(void) {
  int ran[CALLS];
  simulate(plain_far_slower, ran);
  int plain = count(ran, 0, CALLS, PAT_NBC_PLAIN);
  CHECK(plain >= 2 && plain <= 3, "DIRECT at 2x: tried once, then once every 128 calls (%d of 200)", plain);
  return 0;
}

static int test_follows_a_change(void) {
  int ran[CALLS];
  simulate(costs_change, ran);
  CHECK(count(ran, 60, 100, PAT_NBC_AWARE) >= 38, "RELAY while it is cheaper (%d of 40)", count(ran, 60, 100, 0));
  CHECK(count(ran, 150, CALLS, PAT_NBC_PLAIN) >= 45, "DIRECT once it became cheaper (%d of 50)",
        count(ran, 150, CALLS, PAT_NBC_PLAIN));
  return 0;
}

static int nbc_class(long long bytes) { return pat_size_class(bytes, PAT_NBC_CLASSES); }

static int test_size_classes(void) {
  CHECK(nbc_class(1 << 19) == 19 && nbc_class((1 << 20) - 1) == 19,
        "512 KiB up to 1 MiB: one class");
  CHECK(nbc_class(1 << 20) == 20, "1 MiB: the next class");
  CHECK(nbc_class(0) == 0 && nbc_class(1LL << 62) == PAT_NBC_CLASSES - 1, "the ends");
  return 0;
}

int main(void) {
  test_size_classes();
  test_finds_the_cheaper();
  test_keeps_relay_unless_clearly_slower();
  test_far_slower_rarely();
  test_follows_a_change();
  return TEST_RESULT();
}
