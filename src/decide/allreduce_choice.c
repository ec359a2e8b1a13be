/* auto's all-reduce choice (see allreduce_choice.h). */
#include "decide/allreduce_choice.h"

#include "algorithms/allreduce.h"
#include "decide/explore.h"

const int pat_ared_choice_candidates[PAT_ARED_CHOICE_N] = {PAT_ARED_NATIVE, PAT_ARED_RING, PAT_ARED_RABENSEIFNER,
                                                           PAT_ARED_RELAY};

const int pat_ared_choice_turns[PAT_ARED_CHOICE_N] = {3, 1, 0, 2};

static int skipped(const pat_ared_class *c, int cand) { return ((c->skip | c->passed) >> cand) & 1u; }

/* The candidate whose block the trials are in. */
static int in_turn(const pat_ared_class *c) { return pat_ared_choice_turns[c->trials / PAT_ARED_CHOICE_BLOCK]; }

/* A fresh exploration: no trial yet, the skipped candidates' blocks passed over. */
static void restart(pat_ared_class *c) {
  c->exploring = 1;
  c->trials = 0;
  c->passed = 0;
  for (int i = 0; i < PAT_ARED_CHOICE_N; i++) {
    c->trial_ns[i] = 0;
    c->trial_calls[i] = 0;
  }
}

/* Past the blocks of skipped candidates. */
static void pass_skipped(pat_ared_class *c) {
  while (c->trials < PAT_ARED_CHOICE_TRIALS && skipped(c, in_turn(c)))
    c->trials += PAT_ARED_CHOICE_BLOCK;
}

void pat_ared_choice_init(pat_ared_choice *c, unsigned skip, int64_t rabenseifner_gain_ns) {
  for (int k = 0; k < PAT_ARED_CHOICE_CLASSES; k++) {
    pat_ared_class *cl = &c->cls[k];
    cl->skip = skip & ~1u; /* MPI's own is always measured */
    cl->rabenseifner_gain_ns = rabenseifner_gain_ns;
    cl->decided = cl->choice = 0;
    cl->calls_since = cl->recheck_at = 0;
    restart(cl);
  }
}

int pat_ared_choice_class(int64_t bytes) {
  return bytes < PAT_ARED_CHOICE_MIN_BYTES ? -1 : pat_size_class(bytes, PAT_ARED_CHOICE_CLASSES);
}

int pat_ared_choice_blocking(pat_ared_class *c, int *timed) {
  if (!c->exploring && ++c->calls_since >= c->recheck_at) restart(c); /* a re-check: the trials again */
  if (c->exploring) pass_skipped(c);
  *timed = c->exploring;
  return c->exploring ? in_turn(c) : c->choice;
}

int pat_ared_choice_note(pat_ared_class *c, int cand, int64_t elapsed_ns) {
  if (!c->exploring || cand < 0 || cand >= PAT_ARED_CHOICE_N) return 0;
  if (elapsed_ns < 0) elapsed_ns = 0;
  const int in_block = c->trials % PAT_ARED_CHOICE_BLOCK, later = c->trials >= PAT_ARED_CHOICE_BLOCK;
  /* a block's first call stands only until the block's next (only a block cut at its first call keeps it) */
  if (in_block <= 1) {
    c->trial_ns[cand] = elapsed_ns;
    c->trial_calls[cand] = 1;
  } else {
    c->trial_ns[cand] += elapsed_ns;
    c->trial_calls[cand]++;
  }
  ++c->trials;
  pass_skipped(c);
  if (c->trials >= PAT_ARED_CHOICE_TRIALS) return PAT_ARED_NOTE_DECIDE;
  return in_block <= 1 && later ? PAT_ARED_NOTE_COMPARE : PAT_ARED_NOTE_NONE;
}

void pat_ared_choice_partial(const pat_ared_class *c, int64_t *out) {
  for (int i = 0; i < PAT_ARED_CHOICE_N; i++)
    out[i] = skipped(c, i) || c->trial_calls[i] == 0 ? 0 : c->trial_ns[i] / c->trial_calls[i];
}

/* Rabenseifner's turn: where it comes. */
static int rabenseifner_turn(void) {
  int t = 0;
  while (t < PAT_ARED_CHOICE_N && pat_ared_choice_turns[t] != PAT_ARED_CHOICE_RABENSEIFNER_INDEX) t++;
  return t;
}

/* At the turn before Rabenseifner's: its block is passed over if, gaining
 * over the ring at most the latency of the steps it saves, it cannot come
 * within a negligible part of the fastest so far (allreduce_choice.h).
 * Tried wherever MPI's own was as fast as the ring: its algorithm is unknown,
 * and the ring's time then is no floor for Rabenseifner's. */
static void pass_unpromising(pat_ared_class *c, int turn, const int64_t *sum_ns) {
  const int rab = PAT_ARED_CHOICE_RABENSEIFNER_INDEX, ring = 1;
  if (skipped(c, rab) || skipped(c, ring) || sum_ns[ring] <= 0 || c->rabenseifner_gain_ns == INT64_MAX) return;
  if (turn + 1 != rabenseifner_turn()) return;
  int64_t best = sum_ns[ring];
  for (int t = 0; t <= turn; t++) {
    const int i = pat_ared_choice_turns[t];
    if (skipped(c, i) || sum_ns[i] <= 0) continue;
    if (i == 0 && sum_ns[i] <= sum_ns[ring]) return; /* MPI's own as fast as the ring */
    if (sum_ns[i] < best) best = sum_ns[i];
  }
  if ((double)(sum_ns[ring] - c->rabenseifner_gain_ns) >= (1.0 - PAT_ARED_CHOICE_NEGLIGIBLE) * (double)best) {
    c->passed |= 1u << rab; /* sums as 0, like a skipped candidate's */
  }
}

int pat_ared_choice_compare(pat_ared_class *c, int cand, const int64_t *sum_ns) {
  const int turn = c->trials / PAT_ARED_CHOICE_BLOCK, at_first = c->trials % PAT_ARED_CHOICE_BLOCK == 1;
  if (!c->exploring || turn <= 0 || turn >= PAT_ARED_CHOICE_N || in_turn(c) != cand) return 0;
  int64_t best = 0;
  for (int t = 0; t < turn; t++) {
    const int i = pat_ared_choice_turns[t];
    if (!skipped(c, i) && sum_ns[i] > 0 && (best == 0 || sum_ns[i] < best)) best = sum_ns[i];
  }
  const double bar = at_first ? PAT_ARED_CHOICE_CUT_FIRST : PAT_ARED_CHOICE_CUT;
  const int cut = best > 0 && (double)sum_ns[cand] >= bar * (double)best;
  /* from a counted trial, or a first call that ends its block: a first call may carry the block before it */
  if (!at_first || cut) pass_unpromising(c, turn, sum_ns);
  if (!cut) return 0;
  c->trials = (turn + 1) * PAT_ARED_CHOICE_BLOCK; /* the rest of its block is not run */
  pass_skipped(c);
  return c->trials >= PAT_ARED_CHOICE_TRIALS;
}

int pat_ared_choice_decide(pat_ared_class *c, const int64_t *sum_ns) {
  int best = 0; /* MPI's own unless a schedule is clearly faster */
  for (int i = 1; i < PAT_ARED_CHOICE_N; i++)
    if (!skipped(c, i) && (double)sum_ns[i] < PAT_ARED_CHOICE_MARGIN * (double)sum_ns[0] &&
        (best == 0 || sum_ns[i] < sum_ns[best]))
      best = i;
  c->choice = best;
  c->recheck_at = c->decided ? 2 * c->recheck_at : PAT_ARED_CHOICE_RECHECK;
  c->decided = 1;
  c->exploring = 0;
  c->calls_since = 0;
  return best;
}
