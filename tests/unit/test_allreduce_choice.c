/* auto's all-reduce choice (decide/allreduce_choice.h): the size classes,
 * the candidates' blocks (RELAY's first, then the ring's), the mean of a
 * block's trials but its first kept, re-checks, the decision only after the
 * last trial, MPI's own kept unless a schedule is clearly faster, and the
 * choice a function of the summed trials alone (the same sums give the same
 * choice: what makes every rank take the same one; mpi.test_allreduce.auto
 * checks it across ranks). */
#include <stdint.h>

#include "algorithms/allreduce.h"
#include "decide/allreduce_choice.h"
#include "testutil.h"

/* This rank's mean trial of candidate i so far, as the ranks add them up. */
static int64_t mean_of(const pat_ared_class *c, int i) {
  int64_t out[PAT_ARED_CHOICE_N];
  pat_ared_choice_partial(c, out);
  return out[i];
}

static int test_classes(void) {
  CHECK(pat_ared_choice_class(0) == -1 && pat_ared_choice_class(PAT_ARED_CHOICE_MIN_BYTES - 1) == -1,
        "below the smallest size: never timed");
  CHECK(pat_ared_choice_class(131072) == 17 && pat_ared_choice_class(200000) == 17, "128 KiB up to 256 KiB: class 17");
  CHECK(pat_ared_choice_class(262144) == 18 && pat_ared_choice_class(4 << 20) == 22, "one class per power of two");
  CHECK(pat_ared_choice_class(INT64_MAX) == PAT_ARED_CHOICE_CLASSES - 1, "the largest vectors share the last class");
  CHECK(pat_ared_choice_candidates[0] == PAT_ARED_NATIVE &&
            pat_ared_choice_candidates[PAT_ARED_CHOICE_RELAY_INDEX] == PAT_ARED_RELAY,
        "candidate 0 is MPI's own, PAT_ARED_CHOICE_RELAY_INDEX RELAY");
  CHECK(pat_ared_choice_candidates[PAT_ARED_CHOICE_RABENSEIFNER_INDEX] == PAT_ARED_RABENSEIFNER,
        "PAT_ARED_CHOICE_RABENSEIFNER_INDEX is Rabenseifner");
  return 0;
}

/* Trials of the three candidates, as one rank sees them: a block's first
 * call fastest (it must not count), then t[cand] - i. */
static int run_trials(pat_ared_class *c, const int64_t *t) {
  int last = 0;
  for (int i = 0; i < PAT_ARED_CHOICE_TRIALS; i++) {
    int timed = 0, cand = pat_ared_choice_blocking(c, &timed), want = pat_ared_choice_turns[i / PAT_ARED_CHOICE_BLOCK];
    CHECK(cand == want && timed, "trial %d runs candidate %d's block, timed (got %d, %d)", i, want, cand, timed);
    CHECK(!last, "a trial after the last one");
    last = pat_ared_choice_note(c, cand, i % PAT_ARED_CHOICE_BLOCK == 0 ? 1 : t[cand] - i) == PAT_ARED_NOTE_DECIDE;
  }
  CHECK(last, "the last trial asks for the agreement");
  return 0;
}

static int test_trials(void) {
  pat_ared_choice ch;
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  pat_ared_class *c = &ch.cls[20];
  const int64_t t[PAT_ARED_CHOICE_N] = {1000000, 800000, 990000, 850000};
  run_trials(c, t);
  CHECK(PAT_ARED_CHOICE_BLOCK == 3 && PAT_ARED_CHOICE_N == 4, "the blocks below are of 3 calls, 4 candidates");
  CHECK(pat_ared_choice_turns[0] == PAT_ARED_CHOICE_RELAY_INDEX && pat_ared_choice_turns[1] == 1 &&
            pat_ared_choice_turns[2] == 0 && pat_ared_choice_turns[3] == PAT_ARED_CHOICE_RABENSEIFNER_INDEX,
        "RELAY's block first, then the ring's, MPI's own, Rabenseifner's");
  /* turn k's block: its first call 1, then t - (3k + 1) and t - (3k + 2), whose mean is kept */
  CHECK(mean_of(c, 3) == (2 * 850000 - 3) / 2 && mean_of(c, 1) == (2 * 800000 - 9) / 2 &&
            mean_of(c, 0) == (2 * 1000000 - 15) / 2 && mean_of(c, 2) == (2 * 990000 - 21) / 2,
        "the mean of each block's trials but its first is kept");
  CHECK(!c->decided && ch.cls[19].trials == 0, "undecided until the sums come; other classes untouched");
  int64_t sums[PAT_ARED_CHOICE_N] = {4000000, 3000000, 3900000, 3400000};
  CHECK(pat_ared_choice_decide(c, sums) == 1 && c->decided, "ring, 25%% faster than MPI's own, is taken");
  int timed = 1;
  CHECK(pat_ared_choice_blocking(c, &timed) == 1 && !timed && !pat_ared_choice_note(c, 1, 5),
        "a decided class runs its choice, untimed");
  return 0;
}

/* After PAT_ARED_CHOICE_RECHECK calls of a decided class the trials run
 * again, the old choice holding until the new one; then twice as long. */
static int test_recheck(void) {
  pat_ared_choice ch;
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  pat_ared_class *c = &ch.cls[18];
  const int64_t t[PAT_ARED_CHOICE_N] = {1000, 800, 990, 850};
  run_trials(c, t);
  int64_t ring_wins[PAT_ARED_CHOICE_N] = {4000, 3000, 3900, 3400}, native_wins[PAT_ARED_CHOICE_N] = {3000, 3500, 3900, 3100};
  pat_ared_choice_decide(c, ring_wins);
  int timed = 0, calls = 0;
  while (pat_ared_choice_blocking(c, &timed) == 1 && !timed) calls++;
  CHECK(calls == PAT_ARED_CHOICE_RECHECK - 1 && timed, "the re-check starts at call %d of the choice (after %d)",
        PAT_ARED_CHOICE_RECHECK, calls);
  CHECK(c->decided && c->choice == 1 && mean_of(c, 0) == 0 && c->trial_calls[0] == 0, "the old choice holds, the trials start afresh");
  for (int i = 1; i < PAT_ARED_CHOICE_TRIALS; i++) {
    pat_ared_choice_note(c, pat_ared_choice_blocking(c, &timed), 100);
    CHECK(timed, "re-check trial %d timed", i);
  }
  CHECK(pat_ared_choice_note(c, pat_ared_choice_turns[PAT_ARED_CHOICE_N - 1], 100) == PAT_ARED_NOTE_DECIDE,
        "the re-check's last trial asks for the agreement");
  CHECK(pat_ared_choice_decide(c, native_wins) == 0, "the re-check can change the choice");
  calls = 0;
  while (pat_ared_choice_blocking(c, &timed) == 0 && !timed) calls++;
  CHECK(calls == 2 * PAT_ARED_CHOICE_RECHECK - 1, "the next re-check comes twice as late (after %d)", calls);
  return 0;
}

static int test_margin(void) {
  pat_ared_class c = {0};
  int64_t close[PAT_ARED_CHOICE_N] = {1000, 960, 970, 990};
  CHECK(pat_ared_choice_decide(&c, close) == 0, "4%% faster is within noise: MPI's own stays");
  int64_t both[PAT_ARED_CHOICE_N] = {1000, 900, 800, 850};
  CHECK(pat_ared_choice_decide(&c, both) == 2, "both clearly faster: the faster schedule");
  int64_t slower[PAT_ARED_CHOICE_N] = {1000, 2000, 1500, 1100};
  CHECK(pat_ared_choice_decide(&c, slower) == 0, "schedules slower: MPI's own");
  int64_t tie[PAT_ARED_CHOICE_N] = {1000, 900, 900, 950};
  CHECK(pat_ared_choice_decide(&c, tie) == 1, "a tie between schedules: the first");
  /* the same sums, the same choice, however the classes got there */
  pat_ared_class a = {.trials = 12}, b = {.trials = 12, .trial_ns = {1, 2, 3, 4}, .trial_calls = {1, 1, 1, 1}};
  int64_t s[PAT_ARED_CHOICE_N] = {5000, 4000, 4700, 4300};
  CHECK(pat_ared_choice_decide(&a, s) == pat_ared_choice_decide(&b, s), "the choice depends on the sums alone");
  return 0;
}

/* The candidate of trial n where the candidates of `skip` are passed over. */
static int in_turn_skipping(unsigned skip, int n) {
  for (int t = 0; t < PAT_ARED_CHOICE_N; t++) {
    if ((skip >> pat_ared_choice_turns[t]) & 1u) continue;
    if (n < PAT_ARED_CHOICE_BLOCK) return pat_ared_choice_turns[t];
    n -= PAT_ARED_CHOICE_BLOCK;
  }
  return -1;
}

/* A skipped candidate (the communicator's shape rules it out, as Rabenseifner
 * where ranks share nodes; here the first turn's, RELAY's): its block is passed
 * over, in the first exploration and in re-checks; its sum, 0 (nothing timed),
 * never wins; the others as without it. */
static int test_skip(void) {
  pat_ared_choice ch;
  pat_ared_choice_init(&ch, 1u << PAT_ARED_CHOICE_RELAY_INDEX | 1u, INT64_MAX); /* MPI's own cannot be skipped */
  pat_ared_class *c = &ch.cls[20];
  for (int round = 0; round < 2; round++) {
    int last = 0, n = 0;
    while (!last) {
      int timed = 0, cand = pat_ared_choice_blocking(c, &timed);
      const int want = in_turn_skipping(1u << PAT_ARED_CHOICE_RELAY_INDEX, n);
      CHECK(timed && cand == want, "call %d runs candidate %d (got %d)", n, want, cand);
      last = pat_ared_choice_note(c, cand, 1000 - n) == PAT_ARED_NOTE_DECIDE;
      n++;
    }
    CHECK(n == PAT_ARED_CHOICE_TRIALS - PAT_ARED_CHOICE_BLOCK, "%d trials, one block less", n);
    CHECK(mean_of(c, PAT_ARED_CHOICE_RELAY_INDEX) == 0, "the skipped candidate's trial sums as 0");
    int64_t sums[PAT_ARED_CHOICE_N] = {1000, 900, 800, 0};
    CHECK(pat_ared_choice_decide(c, sums) == 2, "the fastest tried candidate, not the skipped one's 0");
    for (int64_t i = 0; i < c->recheck_at; i++) { /* until the re-check */
      int timed = 1;
      pat_ared_choice_blocking(c, &timed);
      if (timed) break; /* the re-check's first trial: blocking() does not count a call as a trial */
    }
    CHECK(c->exploring && c->trials == PAT_ARED_CHOICE_BLOCK, "the re-check starts, past RELAY's block (trial %d)",
          c->trials);
  }
  return 0;
}

/* Trials with one rank's times per call, took[cand], the compare answered from its own partials (one
 * rank: its partials are the sums): the calls they took, the compares asked, the decision. */
static int cut_run(pat_ared_class *c, const int64_t *took, int *asked) {
  int64_t sums[PAT_ARED_CHOICE_N];
  int calls = 0, decided = -1;
  *asked = 0;
  while (decided < 0 && calls < 20) {
    int timed = 0, cand = pat_ared_choice_blocking(c, &timed);
    CHECK(timed, "call %d not a trial", calls);
    int what = pat_ared_choice_note(c, cand, took[cand]);
    calls++;
    if (what == PAT_ARED_NOTE_NONE) continue;
    pat_ared_choice_partial(c, sums);
    if (what == PAT_ARED_NOTE_COMPARE) {
      (*asked)++;
      CHECK(c->trials >= PAT_ARED_CHOICE_BLOCK && c->trials % PAT_ARED_CHOICE_BLOCK != 0,
            "compare asked at candidate %d, trial %d", cand, c->trials);
      if (!pat_ared_choice_compare(c, cand, sums)) continue;
    }
    decided = pat_ared_choice_decide(c, sums);
  }
  return calls * 100 + decided;
}

/* The cut: a candidate of a later turn whose block's first call, summed over ranks, is 1.25x the fastest
 * of the turns before it or more, or whose first counted trial is 1.1x or more, has the rest of its block
 * dropped; one just under it runs its block; the last one cut ends the trials (the decision then, from
 * the same sums); the comparison is asked for at each later turn's first two calls only. */
static int test_cut(void) {
  pat_ared_choice ch;
  pat_ared_class *c = &ch.cls[19];
  int asked;
  /* per call, MPI's own, ring, Rabenseifner, RELAY: RELAY first, the ring 1.09x (under the cut) runs its
   * block, MPI's own (faster) too, Rabenseifner 3x cut after its first call, and the decision */
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  const int64_t took[PAT_ARED_CHOICE_N] = {1000, 1090, 3000, 1050};
  int r = cut_run(c, took, &asked);
  CHECK(r / 100 == 3 + 3 + 3 + 1 && asked == 2 + 2 + 1, "%d calls of trials, %d compares", r / 100, asked);
  CHECK(r % 100 == 0, "MPI's own stays (got %d)", r % 100);
  CHECK(mean_of(c, 2) == 3000, "a candidate cut at its first call keeps that call's time");
  /* 1.24x: under the first call's 1.25x, cut at its first counted trial; 1.25x at the first call */
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  const int64_t counted[PAT_ARED_CHOICE_N] = {1000, 1090, 1240, 1050};
  r = cut_run(c, counted, &asked);
  CHECK(r / 100 == 3 + 3 + 3 + 2 && asked == 6, "1.24x: %d calls, %d compares", r / 100, asked);
  CHECK(mean_of(c, 2) == 1240, "a candidate cut at its first counted trial keeps it");
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  const int64_t first[PAT_ARED_CHOICE_N] = {1000, 1090, 1250, 1050};
  r = cut_run(c, first, &asked);
  CHECK(r / 100 == 3 + 3 + 3 + 1 && asked == 5, "1.25x: %d calls, %d compares", r / 100, asked);
  /* the ring 1.1x RELAY is cut after its first counted trial, 1.099x is not */
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  const int64_t ring_cut[PAT_ARED_CHOICE_N] = {1000, 1100, 1400, 1000};
  r = cut_run(c, ring_cut, &asked);
  CHECK(r / 100 == 3 + 2 + 3 + 1, "the ring at 1.1x: %d calls", r / 100);
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  const int64_t ring_runs[PAT_ARED_CHOICE_N] = {1000, 1099, 1400, 1000};
  r = cut_run(c, ring_runs, &asked);
  CHECK(r / 100 == 3 + 3 + 3 + 1, "the ring at 1.099x: %d calls", r / 100);
  /* one rank 100 ms late on 8 hosts, as measured (ms): the ring 1.24x RELAY cut after two calls, MPI's
   * own 1.57x after one, Rabenseifner passed over (it cannot gain enough on the ring), RELAY taken */
  pat_ared_choice_init(&ch, 0, 19);
  const int64_t late[PAT_ARED_CHOICE_N] = {553, 436, 500, 353};
  r = cut_run(c, late, &asked);
  CHECK(r / 100 == 3 + 2 + 1 && asked == 3, "one rank late: %d calls of trials, %d compares", r / 100, asked);
  CHECK(r % 100 == PAT_ARED_CHOICE_RELAY_INDEX, "one rank late: RELAY taken (got %d)", r % 100);
  /* on nodes (Rabenseifner skipped), balanced: HRING runs its block after HRELAY's, MPI's own 2.3x
   * HRING is cut after one call */
  pat_ared_choice_init(&ch, 1u << PAT_ARED_CHOICE_RABENSEIFNER_INDEX, INT64_MAX);
  const int64_t nodes[PAT_ARED_CHOICE_N] = {673, 294, 0, 340};
  r = cut_run(c, nodes, &asked);
  CHECK(r / 100 == 3 + 3 + 1 && asked == 3, "on nodes: %d calls of trials, %d compares", r / 100, asked);
  CHECK(r % 100 == 1, "on nodes: the ring's candidate taken (got %d)", r % 100);
  CHECK(mean_of(c, 0) == 673, "MPI's own cut at its first call keeps that call's time, which decides");
  int64_t unset[PAT_ARED_CHOICE_N];
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  pat_ared_choice_partial(&ch.cls[19], unset);
  CHECK(unset[0] == 0 && unset[3] == 0, "nothing timed sums as 0, not INT64_MAX");
  return 0;
}

/* Rabenseifner's block is passed over where the ring's trial less the latency of the steps it saves is
 * within PAT_ARED_CHOICE_NEGLIGIBLE of the fastest so far: it is never taken, its sum 0; with a larger
 * bound, with MPI's own as fast as the ring (its algorithm unknown), or with no bound, it is tried;
 * passed in one exploration only. */
static int test_pass(void) {
  pat_ared_choice ch;
  pat_ared_class *c = &ch.cls[19];
  int asked;
  /* the ring the fastest (RELAY 1.1x, MPI's own 1.2x cut at its counted trial): 19 < 2% of its 1000 */
  const int64_t ring[PAT_ARED_CHOICE_N] = {1200, 1000, 1050, 1100}; /* MPI's own, ring, Rabenseifner, RELAY */
  pat_ared_choice_init(&ch, 0, 19);
  int r = cut_run(c, ring, &asked);
  CHECK(r / 100 == 3 + 3 + 2 && asked == 4, "passed: %d calls of trials, %d compares", r / 100, asked);
  CHECK(r % 100 == 1, "passed: the ring, the fastest tried, taken (got %d)", r % 100);
  CHECK(mean_of(c, PAT_ARED_CHOICE_RABENSEIFNER_INDEX) == 0, "the passed candidate's trial sums as 0");
  int64_t sums[PAT_ARED_CHOICE_N] = {1200, 1000, 0, 1150};
  CHECK(pat_ared_choice_decide(c, sums) == 1, "a passed candidate's 0 never wins");
  int timed = 0;
  for (int64_t i = 0; i <= c->recheck_at && !timed; i++) pat_ared_choice_blocking(c, &timed);
  CHECK(timed && c->passed == 0, "the re-check tries it again unless its comparison passes it over");
  pat_ared_choice_init(&ch, 0, 21);
  r = cut_run(c, ring, &asked);
  CHECK(r / 100 == 3 + 3 + 2 + 3 && asked == 6, "a gain of 2.1%%: tried (%d calls)", r / 100);
  /* RELAY the fastest: the ring less the bound is still 1.09x it */
  const int64_t relay[PAT_ARED_CHOICE_N] = {1200, 1000, 1100, 900};
  pat_ared_choice_init(&ch, 0, 19);
  r = cut_run(c, relay, &asked);
  CHECK(r / 100 == 3 + 2 + 1 && r % 100 == PAT_ARED_CHOICE_RELAY_INDEX, "RELAY the fastest: %d calls, took %d",
        r / 100, r % 100);
  pat_ared_choice_init(&ch, 0, 200); /* the ring less it, 800, under RELAY's 900 */
  r = cut_run(c, relay, &asked);
  CHECK(r / 100 == 3 + 2 + 1 + 2, "a bound that could beat RELAY: tried (%d calls)", r / 100);
  const int64_t tie[PAT_ARED_CHOICE_N] = {1000, 1000, 1100, 1100};
  pat_ared_choice_init(&ch, 0, 0);
  r = cut_run(c, tie, &asked);
  CHECK(r / 100 == 3 + 3 + 3 + 2, "MPI's own as fast as the ring: tried (%d calls)", r / 100);
  pat_ared_choice_init(&ch, 0, INT64_MAX);
  r = cut_run(c, relay, &asked);
  CHECK(r / 100 == 3 + 2 + 1 + 2, "no bound known: tried (%d calls)", r / 100);
  return 0;
}

/* The mean, not the fastest: RELAY's counted trials 1000 and 1400 against the ring's 900 and 1600 (the
 * others' delays drawn every call: the ring's best call is the better, its mean the worse) take RELAY;
 * MPI's own 2000 is cut at its first call. */
static int test_mean(void) {
  pat_ared_choice ch;
  pat_ared_choice_init(&ch, 1u << PAT_ARED_CHOICE_RABENSEIFNER_INDEX, INT64_MAX);
  pat_ared_class *c = &ch.cls[19];
  const int64_t calls[][2] = {{3, 5000}, {3, 1000}, {3, 1400}, {1, 1300}, {1, 900}, {1, 1600}, {0, 2000}};
  int64_t sums[PAT_ARED_CHOICE_N];
  int decided = -1;
  for (size_t k = 0; k < sizeof calls / sizeof calls[0] && decided < 0; k++) {
    int timed = 0, cand = pat_ared_choice_blocking(c, &timed);
    CHECK(timed && cand == calls[k][0], "call %zu runs candidate %d (got %d)", k, (int)calls[k][0], cand);
    int what = pat_ared_choice_note(c, cand, calls[k][1]);
    pat_ared_choice_partial(c, sums);
    if (what == PAT_ARED_NOTE_COMPARE && !pat_ared_choice_compare(c, cand, sums)) continue;
    if (what != PAT_ARED_NOTE_NONE) decided = pat_ared_choice_decide(c, sums);
  }
  CHECK(sums[3] == 1200 && sums[1] == 1250, "the means of the counted trials: RELAY %lld, ring %lld",
        (long long)sums[3], (long long)sums[1]);
  CHECK(decided == PAT_ARED_CHOICE_RELAY_INDEX, "RELAY, the lower mean, taken (got %d)", decided);
  return 0;
}

int main(void) {
  test_mean();
  test_pass();
  test_cut();
  test_skip();
  test_classes();
  test_trials();
  test_margin();
  test_recheck();
  return TEST_RESULT();
}
