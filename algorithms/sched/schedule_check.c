/*
 * Schedule validity checker: the properties that make a schedule safe to run
 * (see pat_sched_check in schedule.h).  Used by the unit tests on every
 * algorithm and by debug builds; it never touches MPI.
 */
#include "algorithms/sched/schedule.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of one block a rank holds: sorted, disjoint [lo, hi) intervals. */
typedef struct held {
  uint32_t n, cap;
  uint32_t *iv; /* 2*n values */
} held;

static int held_covers(const held *h, uint32_t lo, uint32_t hi) {
  for (uint32_t i = 0; i < h->n; i++)
    if (h->iv[2 * i] <= lo && hi <= h->iv[2 * i + 1]) return 1;
  return 0;
}

static int held_overlaps(const held *h, uint32_t lo, uint32_t hi) {
  for (uint32_t i = 0; i < h->n; i++)
    if (lo < h->iv[2 * i + 1] && h->iv[2 * i] < hi) return 1;
  return 0;
}

/* Add a range that overlaps nothing held; merges touching neighbours. */
static int held_add(held *h, uint32_t lo, uint32_t hi) {
  if (h->n == h->cap) {
    uint32_t ncap = h->cap ? 2 * h->cap : 2;
    uint32_t *n = realloc(h->iv, 2 * (size_t)ncap * sizeof *n);
    if (!n) return -1;
    h->iv = n;
    h->cap = ncap;
  }
  uint32_t pos = 0;
  while (pos < h->n && h->iv[2 * pos] < lo) pos++;
  memmove(&h->iv[2 * pos + 2], &h->iv[2 * pos], 2 * (size_t)(h->n - pos) * sizeof *h->iv);
  h->iv[2 * pos] = lo;
  h->iv[2 * pos + 1] = hi;
  h->n++;
  /* merge with the next and previous intervals when they touch */
  if (pos + 1 < h->n && h->iv[2 * pos + 1] == h->iv[2 * pos + 2]) {
    h->iv[2 * pos + 1] = h->iv[2 * pos + 3];
    memmove(&h->iv[2 * pos + 2], &h->iv[2 * pos + 4], 2 * (size_t)(h->n - pos - 2) * sizeof *h->iv);
    h->n--;
  }
  if (pos > 0 && h->iv[2 * pos - 1] == h->iv[2 * pos]) {
    h->iv[2 * pos - 1] = h->iv[2 * pos + 1];
    memmove(&h->iv[2 * pos], &h->iv[2 * pos + 2], 2 * (size_t)(h->n - pos - 1) * sizeof *h->iv);
    h->n--;
  }
  return 0;
}

typedef struct msg {
  int32_t step, from, to;
  int32_t signal;
  size_t op;
} msg;

static int msg_order(const void *a, const void *b) {
  const msg *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  if (x->to != y->to) return x->to < y->to ? -1 : 1;
  return x->signal - y->signal;
}

/* Sort messages by (step, from, to, signal): an LSD radix sort (stable
 * counting passes), O(n + P + nsteps); qsort when the step range is much
 * larger than the message count or memory is short. */
static void msg_sort(msg *a, size_t n, int P, int nsteps) {
  if (n < 2) return;
  size_t range = (size_t)(nsteps > P ? nsteps : P) + 2;
  msg *tmp = range <= 4 * n + 4096 ? malloc(n * sizeof *tmp) : NULL;
  size_t *cnt = tmp ? malloc(range * sizeof *cnt) : NULL;
  if (!tmp || !cnt) {
    free(tmp);
    free(cnt);
    qsort(a, n, sizeof *a, msg_order);
    return;
  }
  msg *src = a, *dst = tmp;
  for (int pass = 0; pass < 4; pass++) { /* least significant key first */
    size_t keys = pass == 0 ? 2 : pass == 3 ? (size_t)nsteps : (size_t)P;
    memset(cnt, 0, (keys + 1) * sizeof *cnt);
#define KEY(m) ((size_t)(pass == 0 ? (m).signal : pass == 1 ? (m).to : pass == 2 ? (m).from : (m).step))
    for (size_t i = 0; i < n; i++) cnt[KEY(src[i]) + 1]++;
    for (size_t k = 1; k <= keys; k++) cnt[k] += cnt[k - 1];
    for (size_t i = 0; i < n; i++) dst[cnt[KEY(src[i])]++] = src[i];
#undef KEY
    msg *t = src;
    src = dst;
    dst = t;
  }
  /* four passes: the result is back in a */
  free(tmp);
  free(cnt);
}

int pat_sched_check_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return 1;
}

static int is_send(int kind) { return kind == PAT_OP_SEND || kind == PAT_OP_SIGNAL_SEND; }
static int is_signal(int kind) { return kind == PAT_OP_SIGNAL_SEND || kind == PAT_OP_SIGNAL_RECV; }

static int spans_equal(const pat_op *a, const pat_op *b) {
  if (a->nspans != b->nspans) return 0;
  for (int i = 0; i < a->nspans; i++)
    if (memcmp(&a->span[i], &b->span[i], sizeof a->span[i]) != 0) return 0;
  return 1;
}

static int check_shape(const pat_sched *s, char *err, size_t errlen) {
  for (size_t i = 0; i < s->nops; i++) {
    const pat_op *op = &s->ops[i];
    if (op->rank < 0 || op->rank >= s->P || op->peer < 0 || op->peer >= s->P)
      return pat_sched_check_fail(err, errlen, "op %zu: rank %d or peer %d out of range", i, op->rank, op->peer);
    if (op->peer == op->rank) return pat_sched_check_fail(err, errlen, "rank %d talks to itself in step %d", op->rank, op->step);
    if (op->kind < PAT_OP_SEND || op->kind > PAT_OP_SIGNAL_RECV)
      return pat_sched_check_fail(err, errlen, "op %zu: unknown kind %d", i, op->kind);
    if (is_signal(op->kind) != (op->nspans == 0))
      return pat_sched_check_fail(err, errlen, "rank %d step %d: a signal carries data or a transfer carries none", op->rank, op->step);
    if ((op->flags & (PAT_OPF_REDUCE | PAT_OPF_REDUCE_HIGH)) &&
        (op->kind != PAT_OP_RECV || !(op->flags & PAT_OPF_REDUCE) || !(s->flags & PAT_SCHED_REDUCE)))
      return pat_sched_check_fail(err, errlen, "rank %d step %d: a reducing op that is not a receive of a reduction", op->rank,
                  op->step);
    for (int k = 0; k < op->nspans; k++) {
      const pat_span *sp = &op->span[k];
      if (sp->first < 0 || sp->first >= s->P || sp->count < 1 || sp->count > s->P)
        return pat_sched_check_fail(err, errlen, "rank %d step %d: bad span first=%d count=%d", op->rank, op->step, sp->first, sp->count);
      if (sp->lo >= sp->hi || sp->hi > PAT_FRAC_ONE)
        return pat_sched_check_fail(err, errlen, "rank %d step %d: bad piece [%u,%u)", op->rank, op->step, sp->lo, sp->hi);
      if (sp->count > 1 && (sp->lo != 0 || sp->hi != PAT_FRAC_ONE))
        return pat_sched_check_fail(err, errlen, "rank %d step %d: a piece spans several blocks", op->rank, op->step);
    }
  }
  return 0;
}

/* Every send (signal) has exactly one receive of the same data in the same
 * step, and every receive its send: sends and recvs sorted alike. */
static int check_pairs(const pat_sched *s, const msg *sends, size_t ns, const msg *recvs, size_t nr, char *err,
                       size_t errlen) {
  size_t i = 0, j = 0;
  while (i < ns || j < nr) {
    int c = (i < ns && j < nr) ? msg_order(&sends[i], &recvs[j]) : (i < ns ? -1 : 1);
    if (c < 0)
      return pat_sched_check_fail(err, errlen, "step %d: %s from %d to %d has no matching receive", sends[i].step,
                  sends[i].signal ? "signal" : "send", sends[i].from, sends[i].to);
    if (c > 0)
      return pat_sched_check_fail(err, errlen, "step %d: receive by %d from %d has no matching send", recvs[j].step, recvs[j].to,
                  recvs[j].from);
    if (!spans_equal(&s->ops[sends[i].op], &s->ops[recvs[j].op]))
      return pat_sched_check_fail(err, errlen, "step %d: send %d->%d and its receive name different data", sends[i].step,
                  sends[i].from, sends[i].to);
    if ((i + 1 < ns && msg_order(&sends[i], &sends[i + 1]) == 0) ||
        (j + 1 < nr && msg_order(&recvs[j], &recvs[j + 1]) == 0))
      return pat_sched_check_fail(err, errlen, "step %d: more than one message %d->%d", sends[i].step, sends[i].from, sends[i].to);
    i++;
    j++;
  }
  return 0;
}

/* PAT_CHECK_ONE_SEND / _ONE_RECV unless the schedule's MULTI flags allow
 * more: at most one data message per rank per step in that direction.
 * Re-sorts the lists by (step, rank doing it). */
static int check_one_per_step(const pat_sched *s, unsigned rules, msg *sends, size_t ns, msg *recvs, size_t nr,
                              char *err, size_t errlen) {
  for (int pass = 0; pass < 2; pass++) {
    unsigned rule = pass == 0 ? PAT_CHECK_ONE_SEND : PAT_CHECK_ONE_RECV;
    unsigned allow = pass == 0 ? PAT_SCHED_MULTI_SEND : PAT_SCHED_MULTI_RECV;
    if (!(rules & rule) || (s->flags & allow)) continue;
    msg *list = pass == 0 ? sends : recvs;
    size_t n = pass == 0 ? ns : nr;
    /* re-sort by (step, rank doing it) */
    for (size_t k = 0; k < n; k++)
      if (pass == 1) {
        int32_t t = list[k].from;
        list[k].from = list[k].to;
        list[k].to = t;
      }
    msg_sort(list, n, s->P, s->nsteps);
    int32_t prev_step = -1, prev_rank = -1;
    for (size_t k = 0; k < n; k++) {
      if (list[k].signal) continue;
      if (list[k].step == prev_step && list[k].from == prev_rank)
        return pat_sched_check_fail(err, errlen, "step %d: rank %d %s more than one block message", list[k].step, list[k].from,
                    pass == 0 ? "sends" : "receives");
      prev_step = list[k].step;
      prev_rank = list[k].from;
    }
  }
  return 0;
}

static int check_matching(const pat_sched *s, unsigned rules, char *err, size_t errlen) {
  msg *sends = malloc((s->nops + 1) * sizeof *sends);
  msg *recvs = malloc((s->nops + 1) * sizeof *recvs);
  if (!sends || !recvs) {
    free(sends);
    free(recvs);
    return pat_sched_check_fail(err, errlen, "out of memory");
  }
  size_t ns = 0, nr = 0;
  for (size_t i = 0; i < s->nops; i++) {
    const pat_op *op = &s->ops[i];
    msg m = {op->step, 0, 0, is_signal(op->kind), i};
    if (is_send(op->kind)) {
      m.from = op->rank;
      m.to = op->peer;
      sends[ns++] = m;
    } else {
      m.from = op->peer;
      m.to = op->rank;
      recvs[nr++] = m;
    }
  }
  msg_sort(sends, ns, s->P, s->nsteps);
  msg_sort(recvs, nr, s->P, s->nsteps);
  int bad = check_pairs(s, sends, ns, recvs, nr, err, errlen);
  if (!bad) bad = check_one_per_step(s, rules, sends, ns, recvs, nr, err, errlen);
  free(sends);
  free(recvs);
  return bad;
}

/* The ops' indices grouped by step (counting sort): step t's are
 * by_step[step_start[t] .. step_start[t+1]).  Returns 0 or -1 (no memory). */
static int ops_by_step(const pat_sched *s, size_t *by_step, size_t *step_start) {
  for (size_t i = 0; i < s->nops; i++) step_start[s->ops[i].step + 1]++;
  for (int t = 0; t < s->nsteps; t++) step_start[t + 1] += step_start[t];
  size_t *fill = calloc((size_t)s->nsteps + 1, sizeof *fill);
  if (!fill) return -1;
  for (size_t i = 0; i < s->nops; i++) {
    int t = s->ops[i].step;
    by_step[step_start[t] + fill[t]++] = i;
  }
  free(fill);
  return 0;
}

/* Step t's sends name only what their senders held before the step began
 * (h[r*P + b]: what rank r holds of block b). */
static int check_sends_held(const pat_sched *s, const held *h, const size_t *by_step, const size_t *step_start, int t,
                            char *err, size_t errlen) {
  const int P = s->P;
  for (size_t k = step_start[t]; k < step_start[t + 1]; k++) {
    const pat_op *op = &s->ops[by_step[k]];
    if (op->kind != PAT_OP_SEND) continue;
    for (int q = 0; q < op->nspans; q++) {
      const pat_span *sp = &op->span[q];
      for (int c = 0; c < sp->count; c++) {
        int b = (sp->first + c) % P;
        if (!held_covers(&h[(size_t)op->rank * P + b], sp->lo, sp->hi))
          return pat_sched_check_fail(err, errlen, "step %d: rank %d sends block %d [%u,%u) before holding it", t, op->rank, b,
                      sp->lo, sp->hi);
      }
    }
  }
  return 0;
}

/* Step t's receives bring only bytes their receivers lack, and add them. */
static int take_receives(const pat_sched *s, held *h, const size_t *by_step, const size_t *step_start, int t,
                         char *err, size_t errlen) {
  const int P = s->P;
  for (size_t k = step_start[t]; k < step_start[t + 1]; k++) {
    const pat_op *op = &s->ops[by_step[k]];
    if (op->kind != PAT_OP_RECV) continue;
    for (int q = 0; q < op->nspans; q++) {
      const pat_span *sp = &op->span[q];
      for (int c = 0; c < sp->count; c++) {
        int b = (sp->first + c) % P;
        held *hb = &h[(size_t)op->rank * P + b];
        if (held_overlaps(hb, sp->lo, sp->hi))
          return pat_sched_check_fail(err, errlen, "step %d: rank %d receives block %d [%u,%u) it already has", t, op->rank, b,
                      sp->lo, sp->hi);
        if (held_add(hb, sp->lo, sp->hi)) return pat_sched_check_fail(err, errlen, "out of memory");
      }
    }
  }
  return 0;
}

/* Every rank starts with its own block, walks the steps (sends before
 * receives within a step) and ends with every byte of every block. */
static int check_holdings(const pat_sched *s, char *err, size_t errlen) {
  const int P = s->P;
  held *h = calloc((size_t)P * P, sizeof *h);
  size_t *by_step = malloc((s->nops + 1) * sizeof *by_step);
  size_t *step_start = calloc((size_t)s->nsteps + 2, sizeof *step_start);
  int bad = 0;
  if (!h || !by_step || !step_start) {
    bad = pat_sched_check_fail(err, errlen, "out of memory");
    goto out;
  }
  for (int r = 0; r < P && !bad; r++)
    if (held_add(&h[(size_t)r * P + r], 0, PAT_FRAC_ONE)) bad = pat_sched_check_fail(err, errlen, "out of memory");
  if (!bad && ops_by_step(s, by_step, step_start)) bad = pat_sched_check_fail(err, errlen, "out of memory");
  for (int t = 0; t < s->nsteps && !bad; t++) {
    bad = check_sends_held(s, h, by_step, step_start, t, err, errlen);
    if (!bad) bad = take_receives(s, h, by_step, step_start, t, err, errlen);
  }
  for (int r = 0; r < P && !bad; r++)
    for (int b = 0; b < P && !bad; b++)
      if (!held_covers(&h[(size_t)r * P + b], 0, PAT_FRAC_ONE))
        bad = pat_sched_check_fail(err, errlen, "rank %d ends without (all of) block %d", r, b);
out:
  if (h)
    for (size_t i = 0; i < (size_t)P * P; i++) free(h[i].iv);
  free(h);
  free(by_step);
  free(step_start);
  return bad;
}

int pat_sched_check(const pat_sched *s, unsigned rules, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (s->self != PAT_ALL_RANKS) return pat_sched_check_fail(err, errlen, "checker needs a schedule of every rank");
  if (!s->finalized) return pat_sched_check_fail(err, errlen, "schedule not finalized");
  if (s->P < 1) return pat_sched_check_fail(err, errlen, "P=%d", s->P);
  if (check_shape(s, err, errlen)) return 1;
  if (check_matching(s, rules, err, errlen)) return 1;
  if (s->flags & PAT_SCHED_REDUCE) return pat_sched_check_contributions(s, rules, err, errlen);
  return check_holdings(s, err, errlen);
}
