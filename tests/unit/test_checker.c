/* The checker catches each kind of broken schedule (so a passing algorithm
 * test means something). */
#include <string.h>

#include "algorithms/sched/schedule.h"
#include "testutil.h"

static int check(pat_sched *s, unsigned rules, const char *expect) {
  char err[256];
  pat_sched_finalize(s);
  int bad = pat_sched_check(s, rules, err, sizeof err);
  int ok = expect ? (bad && strstr(err, expect) != NULL) : !bad;
  if (!ok) fprintf(stderr, "  expected %s, got '%s'\n", expect ? expect : "valid", err);
  pat_sched_free(s);
  return ok;
}

int main(void) {
  pat_sched s;
  pat_span b0 = pat_blocks(3, 0, 1), b1 = pat_blocks(3, 1, 1), b2 = pat_blocks(3, 2, 1);

  /* a valid 2-rank exchange */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_span c0 = pat_blocks(2, 0, 1), c1 = pat_blocks(2, 1, 1);
  pat_sched_transfer(&s, 0, 0, 1, 1, &c0, 0);
  pat_sched_transfer(&s, 0, 1, 0, 1, &c1, 0);
  CHECK(check(&s, PAT_CHECK_ONE_RECV, NULL), "valid exchange rejected");

  /* send without a receive */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &c0, 0);
  pat_sched_transfer(&s, 1, 1, 0, 1, &c1, 0);
  CHECK(check(&s, 0, "no matching receive"), "unmatched send accepted");

  /* receive in a different step than the send */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &c0, 0);
  pat_sched_add(&s, 1, 1, PAT_OP_RECV, 0, 1, &c0, 0);
  pat_sched_transfer(&s, 2, 1, 0, 1, &c1, 0);
  CHECK(check(&s, 0, "no matching"), "step mismatch accepted");

  /* forwarding a block before holding it */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  pat_sched_transfer(&s, 0, 1, 2, 1, &b0, 0); /* rank 1 does not hold block 0 yet */
  pat_sched_transfer(&s, 0, 0, 1, 1, &b0, 0);
  CHECK(check(&s, 0, "before holding"), "send before held accepted");

  /* the same block received twice */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  pat_sched_transfer(&s, 0, 0, 1, 1, &b0, 0);
  pat_sched_transfer(&s, 1, 0, 1, 1, &b0, 0);
  CHECK(check(&s, 0, "already has"), "duplicate receive accepted");

  /* incomplete */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  pat_sched_transfer(&s, 0, 0, 1, 1, &b0, 0);
  CHECK(check(&s, 0, "ends without"), "incomplete schedule accepted");

  /* two receives in one step when the rule forbids it */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  pat_sched_transfer(&s, 0, 1, 0, 1, &b1, 0);
  pat_sched_transfer(&s, 0, 2, 0, 1, &b2, 0);
  CHECK(check(&s, PAT_CHECK_ONE_RECV, "more than one block message"), "two receives accepted");

  /* pieces: two halves make a block; an overlapping piece is a duplicate */
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_span h0 = pat_piece(0, 0, PAT_FRAC_ONE / 2), h1 = pat_piece(0, PAT_FRAC_ONE / 2, PAT_FRAC_ONE);
  pat_sched_transfer(&s, 0, 0, 1, 1, &h0, 0);
  pat_sched_transfer(&s, 1, 0, 1, 1, &h1, 0);
  pat_sched_transfer(&s, 0, 1, 0, 1, &c1, 0);
  CHECK(check(&s, 0, NULL), "two halves rejected");
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_span overlap = pat_piece(0, PAT_FRAC_ONE / 4, PAT_FRAC_ONE);
  pat_sched_transfer(&s, 0, 0, 1, 1, &h0, 0);
  pat_sched_transfer(&s, 1, 0, 1, 1, &overlap, 0);
  pat_sched_transfer(&s, 0, 1, 0, 1, &c1, 0);
  CHECK(check(&s, 0, "already has"), "overlapping pieces accepted");

  /* a receive naming other data than its send */
  pat_sched_init(&s, 3, PAT_ALL_RANKS);
  pat_sched_add(&s, 0, 0, PAT_OP_SEND, 1, 1, &b0, 0);
  pat_sched_add(&s, 1, 0, PAT_OP_RECV, 0, 1, &b2, 0);
  CHECK(check(&s, 0, "different data"), "mismatched spans accepted");
  return TEST_RESULT();
}
