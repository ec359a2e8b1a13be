/* The checker of reductions (pat_sched_check_contributions) catches each
 * kind of broken schedule, and accepts the good ones: a contribution counted
 * twice, one missing, combinations out of rank order (only where the op is
 * non-commutative), receives that would race in the executor. */
#include <string.h>

#include "algorithms/sched/schedule.h"
#include "testutil.h"

static int check(pat_sched *s, unsigned rules, const char *expect) {
  char err[256];
  pat_sched_finalize(s);
  int bad = pat_sched_check(s, rules, err, sizeof err);
  int ok = expect ? (bad && strstr(err, expect) != NULL) : !bad;
  if (!ok) fprintf(stderr, "  expected %s, got '%s'\n", expect ? expect : "valid", bad ? err : "valid");
  pat_sched_free(s);
  return ok;
}

static void start(pat_sched *s, int P) {
  pat_sched_init(s, P, PAT_ALL_RANKS);
  s->flags |= PAT_SCHED_REDUCE;
}

/* Ranks 0 and 1 swap the whole vector and combine, rank 0's contribution on the left unless `wrong`. */
static void swap2(pat_sched *s, int wrong) {
  pat_span all = pat_blocks(2, 0, 2);
  start(s, 2);
  pat_sched_reduce(s, 0, 1, 0, 1, &all, !wrong);
  pat_sched_reduce(s, 0, 0, 1, 1, &all, 0);
}

int main(void) {
  pat_sched s;
  pat_span all3 = pat_blocks(3, 0, 3);

  swap2(&s, 0);
  CHECK(check(&s, PAT_CHECK_RANK_ORDER, NULL), "an ordered swap rejected");
  swap2(&s, 1);
  CHECK(check(&s, 0, NULL), "a swap of a commutative op rejected");
  swap2(&s, 1);
  CHECK(check(&s, PAT_CHECK_RANK_ORDER, "not in rank order"), "rank 1 before rank 0 accepted");

  /* a chain 0 -> 1 -> 2, the result handed back: in order, every contribution once */
  start(&s, 3);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all3, 0);
  pat_sched_reduce(&s, 1, 1, 2, 1, &all3, 0);
  pat_sched_transfer(&s, 2, 2, 1, 1, &all3, 0);
  pat_sched_transfer(&s, 3, 1, 0, 1, &all3, 0);
  CHECK(check(&s, PAT_CHECK_RANK_ORDER, NULL), "a chain rejected");

  /* double contribution: rank 0's reaches rank 2 by two ways */
  start(&s, 3);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all3, 0);
  pat_sched_reduce(&s, 1, 1, 2, 1, &all3, 0);
  pat_sched_reduce(&s, 2, 0, 2, 1, &all3, 0);
  CHECK(check(&s, 0, "counted twice"), "a double contribution accepted");

  /* ... in one byte range only: a piece of segment 1 */
  start(&s, 3);
  pat_span piece = pat_piece(1, PAT_FRAC_ONE / 4, PAT_FRAC_ONE / 2);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all3, 0);
  pat_sched_reduce(&s, 1, 1, 2, 1, &all3, 0);
  pat_sched_reduce(&s, 2, 0, 2, 1, &piece, 0);
  CHECK(check(&s, 0, "counted twice"), "a piece counted twice accepted");

  /* missing contribution: rank 2's never reaches ranks 0 and 1 */
  start(&s, 3);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all3, 0);
  pat_sched_transfer(&s, 1, 1, 0, 1, &all3, 0);
  pat_sched_transfer(&s, 1, 1, 2, 1, &all3, 0);
  CHECK(check(&s, 0, "ends with"), "a missing contribution accepted");

  /* ... or a rank's result overwritten by a partial one */
  start(&s, 3);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all3, 0);
  pat_sched_reduce(&s, 1, 1, 2, 1, &all3, 0);
  pat_sched_transfer(&s, 2, 1, 0, 1, &all3, 0); /* ranks 0-1 only */
  pat_sched_transfer(&s, 3, 2, 1, 1, &all3, 0);
  CHECK(check(&s, 0, "ends with block 0 [0,65536) combining ranks 0-1"), "a partial result accepted");

  /* a gap under a non-commutative op: ranks 0 and 2 joined before 1 */
  start(&s, 3);
  pat_sched_reduce(&s, 0, 0, 2, 1, &all3, 0);
  pat_sched_reduce(&s, 1, 1, 2, 1, &all3, 0);
  pat_sched_transfer(&s, 2, 2, 0, 1, &all3, 0);
  pat_sched_transfer(&s, 2, 2, 1, 1, &all3, 0);
  pat_sched_finalize(&s);
  char err[256];
  CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "commutative: any order is fine (%s)", err);
  CHECK(pat_sched_check(&s, PAT_CHECK_RANK_ORDER, err, sizeof err) && strstr(err, "not in rank order"),
        "ranks 0 and 2 joined around 1 accepted as ordered");
  pat_sched_free(&s);

  /* a ring's wrapped runs: fine for a commutative op only */
  start(&s, 3);
  for (int t = 0; t < 2; t++)
    for (int r = 0; r < 3; r++) {
      pat_span seg = pat_blocks(3, r - t, 1);
      pat_sched_reduce(&s, t, r, (r + 1) % 3, 1, &seg, 0);
    }
  for (int t = 0; t < 2; t++)
    for (int r = 0; r < 3; r++) {
      pat_span seg = pat_blocks(3, r + 1 - t, 1);
      pat_sched_transfer(&s, 2 + t, r, (r + 1) % 3, 1, &seg, 0);
    }
  pat_sched_finalize(&s);
  CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "a commutative ring rejected (%s)", err);
  CHECK(pat_sched_check(&s, PAT_CHECK_RANK_ORDER, err, sizeof err) && strstr(err, "not in rank order"),
        "a ring accepted as ordered");
  pat_sched_free(&s);

  /* pieces: segment 0 combined in two halves, in two steps */
  start(&s, 2);
  pat_span lo = pat_piece(0, 0, PAT_FRAC_ONE / 2), hi = pat_piece(0, PAT_FRAC_ONE / 2, PAT_FRAC_ONE);
  pat_span first[2] = {lo, pat_blocks(2, 1, 1)};
  pat_sched_reduce(&s, 0, 1, 0, 2, first, 1);
  pat_sched_reduce(&s, 0, 0, 1, 2, first, 0);
  pat_sched_reduce(&s, 1, 1, 0, 1, &hi, 1);
  pat_sched_reduce(&s, 1, 0, 1, 1, &hi, 0);
  CHECK(check(&s, PAT_CHECK_RANK_ORDER, NULL), "two halves rejected");
  start(&s, 2);
  pat_sched_reduce(&s, 0, 1, 0, 2, first, 1);
  pat_sched_reduce(&s, 0, 0, 1, 2, first, 0);
  pat_sched_reduce(&s, 1, 1, 0, 1, &lo, 1);
  pat_sched_reduce(&s, 1, 0, 1, 1, &lo, 0);
  CHECK(check(&s, 0, "counted twice"), "a half combined twice accepted");

  /* races in the executor: a step's receives share its memory, a replacing receive writes what the step sends */
  start(&s, 3);
  pat_sched_reduce(&s, 0, 0, 2, 1, &all3, 0);
  pat_sched_reduce(&s, 0, 1, 2, 1, &all3, 0);
  CHECK(check(&s, 0, "twice in one step"), "two receives of the same bytes in one step accepted");
  start(&s, 2);
  pat_span all2 = pat_blocks(2, 0, 2);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all2, 0);
  pat_sched_transfer(&s, 1, 1, 0, 1, &all2, 0);
  pat_sched_transfer(&s, 1, 0, 1, 1, &all2, 0);
  CHECK(check(&s, 0, "sends in the same step"), "a replacing receive of bytes sent in the step accepted");

  /* a reducing receive where no reduction is declared, or on a send */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_sched_reduce(&s, 0, 1, 0, 1, &all2, 1);
  pat_sched_reduce(&s, 0, 0, 1, 1, &all2, 0);
  CHECK(check(&s, 0, "reducing op"), "a reducing receive in an all-gather accepted");
  start(&s, 2);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &all2, PAT_OPF_REDUCE);
  pat_sched_add(&s, 1, 0, PAT_OP_RECV, 0, 1, &all2, PAT_OPF_REDUCE);
  CHECK(check(&s, 0, "reducing op"), "a reducing send accepted");

  /* a data flow is checked as lockstep (its executor keeps lockstep's order for every byte) */
  swap2(&s, 0);
  s.send_window = 2;
  CHECK(check(&s, 0, NULL), "a reduction as a data flow rejected");

  /* one rank: nothing to do, and valid */
  start(&s, 1);
  CHECK(check(&s, PAT_CHECK_RANK_ORDER, NULL), "P = 1 rejected");
  return TEST_RESULT();
}
