/* RELAY: for P = 1..64, balanced and random PAPs and block sizes, the
 * schedule is valid and every per-rank build is its slice; it runs as a data
 * flow; pieces are never below PAT_RELAY_MIN_PIECE and, once a block has
 * P - 1 of them, never above PAT_RELAY_MAX_PIECE (eager); every block leaves its
 * owner's send port exactly once (its pieces add up to one block) and is
 * scattered in the step of its owner's arrival position, earliest first;
 * balanced arrivals keep the pieces where there are at least P - 1 (whole
 * blocks below two pieces, and near balanced below P - 1).  Blocks of
 * different sizes (block_sizes): the counts of pat_relay_pieces_v, which
 * are pat_relay_pieces's for equal sizes, grow with the size (a big block
 * gets more pieces, not bigger ones), stay within pat_relay_max_sends(P) per
 * rank where P - 1 pieces of each block fit, and are eager where the budget
 * allows; the scatter steps hold block by block. */
#include <stdint.h>
#include <stdlib.h>

#include "algorithms/algorithms.h"
#include "paputil.h"
#include "schedtest.h"
#include "testutil.h"

/* Each owner sends its own block only in the scatter steps of its arrival
 * position: [2 m pos, 2 m pos + m), m pieces per relay. */
static int check_owner_sends(const pat_sched *s, const int *pos, int64_t block_bytes, char *err, size_t errlen) {
  int k = pat_relay_pieces(s->P, block_bytes), m = s->P > 2 && k > s->P - 1 ? k / (s->P - 1) : 1;
  for (int r = 0; r < s->P; r++) {
    size_t n;
    const pat_op *o = pat_sched_rank_ops(s, r, &n);
    uint64_t own = 0;
    int whole = 1;
    for (size_t i = 0; i < n; i++)
      if (o[i].kind == PAT_OP_SEND && o[i].span[0].hi - o[i].span[0].lo < PAT_FRAC_ONE) whole = 0;
    if (!whole && pat_relay_pieces(s->P, block_bytes) == 1) {
      snprintf(err, errlen, "rank %d: pieces where the block is too small for two", r);
      return 1;
    }
    int pieces = pat_relay_pieces(s->P, block_bytes);
    if (whole && pieces > 1 && pieces >= s->P - 1) { /* balanced arrivals too */
      snprintf(err, errlen, "rank %d: whole blocks where %d pieces fit", r, pieces);
      return 1;
    }
    for (size_t i = 0; i < n; i++) {
      if (o[i].kind != PAT_OP_SEND || o[i].span[0].first != r) continue;
      if (whole) m = 1; /* too small for two pieces, or near balanced with fewer pieces than relays */
      if (o[i].step < 2 * m * pos[r] || o[i].step >= 2 * m * pos[r] + m) {
        snprintf(err, errlen, "rank %d sends its block in step %d, not in [%d, %d)", r, o[i].step, 2 * m * pos[r],
                 2 * m * pos[r] + m);
        return 1;
      }
      own += o[i].span[0].hi - o[i].span[0].lo;
    }
    /* k pieces add up to one block; whole blocks (too small for two pieces,
     * or near balanced with k < P - 1) go to every rank */
    uint64_t want = s->P < 2 ? 0 : whole ? (uint64_t)(s->P - 1) * PAT_FRAC_ONE : PAT_FRAC_ONE;
    if (own != want) {
      snprintf(err, errlen, "rank %d sends %llu/65536 of its block, not %llu", r, (unsigned long long)own,
               (unsigned long long)want);
      return 1;
    }
  }
  return 0;
}

/* Every piece between the smallest and (but for the largest blocks, whose
 * pieces per relay are capped) the largest size; a byte of rounding each way. */
static int piece_sizes_ok(const pat_sched *s, int64_t block_bytes, char *err, size_t errlen) {
  if (block_bytes <= 0) return 0;
  /* the send budget cuts the count: then pieces may exceed the eager size */
  int k = pat_relay_pieces(s->P, block_bytes), next = k + (k >= s->P - 1 ? s->P - 1 : 1);
  const int budget = pat_relay_max_sends(s->P);
  int capped = (int64_t)next * (s->P - 1) > budget;
  if (k > 1 && (int64_t)k * (s->P - 1) > budget) {
    snprintf(err, errlen, "%d pieces at P = %d: over %d sends per rank", k, s->P, budget);
    return 1;
  }
  for (size_t i = 0; i < s->nops; i++)
    for (int k = 0; k < s->ops[i].nspans; k++) {
      const pat_span *sp = &s->ops[i].span[k];
      if (sp->hi - sp->lo == PAT_FRAC_ONE) continue;
      uint64_t bytes = (uint64_t)block_bytes * (sp->hi - sp->lo) / PAT_FRAC_ONE;
      if (bytes + 1 < PAT_RELAY_MIN_PIECE || (!capped && bytes > PAT_RELAY_MAX_PIECE + 1)) {
        snprintf(err, errlen, "a piece of %llu bytes (block %lld, %d pieces)", (unsigned long long)bytes,
                 (long long)block_bytes, pat_relay_pieces(s->P, block_bytes));
        return 1;
      }
    }
  return 0;
}

static int one_case(int P, const int64_t *arrival, int64_t tau, int64_t block_bytes, int slices, char *err,
                    size_t errlen) {
  pat_build_args args = {P, PAT_ALL_RANKS, arrival, tau, 0, 0, block_bytes, NULL, NULL, NULL};
  pat_sched all;
  if (sched_build_checked2(PAT_ALG_RELAY, args, 0, slices, P - 1, 0, &all, err, errlen)) return 1;
  int *order = malloc((size_t)P * sizeof *order), *pos = malloc((size_t)P * sizeof *pos);
  pat_arrival_order(P, arrival, 0, order);
  for (int t = 0; t < P; t++) pos[order[t]] = t;
  int bad = 0;
  if (P > 1 && all.send_window <= 0) {
    snprintf(err, errlen, "send_window %d: not a data flow", all.send_window);
    bad = 1;
  }
  if (!bad) bad = piece_sizes_ok(&all, block_bytes, err, errlen);
  if (!bad) bad = check_owner_sends(&all, pos, block_bytes, err, errlen);
  free(order);
  free(pos);
  pat_sched_free(&all);
  return bad;
}

/* Predicted arrivals within two tau of each other, or none (the builder's rule). */
static int near_balanced(int P, const int64_t *arrival, int64_t tau) {
  if (!arrival || tau <= 0) return 1;
  int64_t lo = arrival[0], hi = arrival[0];
  for (int r = 1; r < P; r++) {
    lo = arrival[r] < lo ? arrival[r] : lo;
    hi = arrival[r] > hi ? arrival[r] : hi;
  }
  return hi - lo < 2 * tau;
}

/* The counts of pat_relay_pieces_v for `size`: a bigger block never has
 * fewer pieces (blocks of P - 1 pieces or more), empty blocks are whole, and
 * equal sizes give pat_relay_pieces's count. */
static int pieces_v_ok(int P, const int64_t *size, int *k, char *err, size_t errlen) {
  if (pat_relay_pieces_v(P, size, k) != PAT_OK) {
    snprintf(err, errlen, "pat_relay_pieces_v failed");
    return 1;
  }
  int equal = 1;
  for (int i = 0; i < P; i++) {
    equal &= size[i] == size[0];
    if (size[i] <= 0 && k[i] != 1) {
      snprintf(err, errlen, "empty block %d in %d pieces", i, k[i]);
      return 1;
    }
    for (int j = 0; j < P; j++)
      if (size[i] > size[j] && k[j] >= P - 1 && k[i] < k[j]) {
        snprintf(err, errlen, "block %d (%lld B) in %d pieces, block %d (%lld B) in %d", i, (long long)size[i], k[i],
                 j, (long long)size[j], k[j]);
        return 1;
      }
  }
  if (equal && P > 0 && size[0] > 0 && k[0] != pat_relay_pieces(P, size[0])) {
    snprintf(err, errlen, "equal blocks of %lld B: %d pieces, not %d", (long long)size[0], k[0],
             pat_relay_pieces(P, size[0]));
    return 1;
  }
  return 0;
}

/* Blocks of `size` bytes (P entries): block j leaves its owner in the
 * pieces of pat_relay_pieces_v (pieces_v_ok), adding up to it (whole blocks
 * to every rank where that is 1, or fewer than P - 1 near balanced), of at
 * least PAT_RELAY_MIN_PIECE bytes, in the scatter steps of its arrival
 * position, after the steps of the blocks before it.  Where P - 1 pieces
 * of each block fit the budget (P <= 13), no rank sends more than
 * pat_relay_max_sends(P) messages. */
static int unequal_case(int P, const int64_t *arrival, int64_t tau, const int64_t *size, char *err, size_t errlen) {
  int64_t mean = 0;
  for (int r = 0; r < P; r++) mean += size[r] / P;
  pat_build_args args = {P, PAT_ALL_RANKS, arrival, tau, 0, 0, mean, size, NULL, NULL};
  int pieces[64], order[64], bad = 0, base = 0, any_pieces = 0, most_sends = 0;
  if (pieces_v_ok(P, size, pieces, err, errlen)) return 1;
  pat_sched all;
  if (sched_build_checked2(PAT_ALG_RELAY, args, 0, P <= 12, P - 1, 0, &all, err, errlen)) return 1;
  pat_arrival_order(P, arrival, 0, order);
  for (int r = 0; r < P; r++) {
    size_t n;
    const pat_op *op = pat_sched_rank_ops(&all, r, &n);
    int sends = 0;
    for (size_t i = 0; i < n; i++) sends += op[i].kind == PAT_OP_SEND;
    most_sends = sends > most_sends ? sends : most_sends;
  }
  if (P <= 13 && most_sends > pat_relay_max_sends(P)) {
    snprintf(err, errlen, "a rank sends %d messages, over %d", most_sends, pat_relay_max_sends(P));
    bad = 1;
  }
  for (int t = 0; t < P && !bad && P > 1; t++) {
    const int o = order[t];
    int k = pieces[o];
    if (k < P - 1 && near_balanced(P, arrival, tau)) k = 1;
    const int m = k > P - 1 ? k / (P - 1) : 1;
    const int capped = 1; /* the eager size: the concrete cases in main */
    size_t n;
    const pat_op *op = pat_sched_rank_ops(&all, o, &n);
    uint64_t own = 0;
    int sends = 0;
    for (size_t i = 0; i < n && !bad; i++) {
      if (op[i].kind != PAT_OP_SEND || op[i].span[0].first != o) continue;
      const uint64_t frac = op[i].span[0].hi - op[i].span[0].lo;
      const uint64_t bytes = (uint64_t)size[o] * frac / PAT_FRAC_ONE;
      own += frac;
      sends++;
      if (op[i].step < base || op[i].step >= base + m) {
        snprintf(err, errlen, "block %d (%lld B) leaves in step %d, not in [%d, %d)", o, (long long)size[o],
                 op[i].step, base, base + m);
        bad = 1;
      } else if (k > 1 && (bytes + 1 < PAT_RELAY_MIN_PIECE ||
                           (k >= P - 1 && !capped && bytes > PAT_RELAY_MAX_PIECE + 1))) {
        snprintf(err, errlen, "block %d (%lld B, %d pieces): a piece of %llu B", o, (long long)size[o], k,
                 (unsigned long long)bytes);
        bad = 1;
      }
    }
    const uint64_t want = k == 1 ? (uint64_t)(P - 1) * PAT_FRAC_ONE : PAT_FRAC_ONE;
    if (!bad && (sends != (k == 1 ? P - 1 : k) || own != want)) {
      snprintf(err, errlen, "block %d (%lld B): %d sends of %llu/65536 in all, not %d pieces", o, (long long)size[o],
               sends, (unsigned long long)own, k);
      bad = 1;
    }
    base += 2 * m;
    any_pieces |= k > 1;
  }
  if (!bad && P > 1 && !!(all.flags & PAT_SCHED_PIECES) != any_pieces) {
    snprintf(err, errlen, "PIECES flag %d where pieces %d", !!(all.flags & PAT_SCHED_PIECES), any_pieces);
    bad = 1;
  }
  pat_sched_free(&all);
  return bad;
}

int main(void) {
  char err[256];
  int64_t arrival[64];
  for (int P = 1; P <= 64; P++) {
    const int64_t sizes[] = {0, 1000, PAT_RELAY_MIN_PIECE, 3 * PAT_RELAY_MIN_PIECE + 5, 100 * PAT_RELAY_MIN_PIECE,
                             100 * PAT_RELAY_MAX_PIECE + 3};
    for (int k = 0; k < 6; k++)
      CHECK(!one_case(P, NULL, 1000, sizes[k], P <= 16, err, sizeof err), "balanced P=%d: %s", P, err);
  }
  for (int n = 0; n < 400; n++) {
    int P = 1 + n % 64;
    int64_t tau;
    const char *shape = pap_random(P, arrival, &tau);
    int64_t block_bytes = n % 4 == 0 ? 0 : (int64_t)pap_below(3 * PAT_RELAY_MAX_PIECE * (int64_t)P);
    CHECK(!one_case(P, arrival, tau, block_bytes, n % 16 == 0 && P <= 24, err, sizeof err), "PAP %d (%s, P=%d, %lld B): %s", n,
          shape, P, (long long)block_bytes, err);
  }
  /* blocks of different sizes: one rank 4x, a ramp, empty blocks, random */
  int64_t size[64];
  for (int n = 0; n < 300; n++) {
    int P = 1 + n % 64;
    int64_t tau;
    const char *shape = n % 3 ? pap_random(P, arrival, &tau) : (tau = 1000, "balanced");
    const int64_t unit = 1 + pap_below(4 * PAT_RELAY_MAX_PIECE * (int64_t)(n % 5 == 0 ? P : 1));
    for (int r = 0; r < P; r++) {
      int kind = n % 4;
      size[r] = kind == 0 ? (r == n % P ? 4 * unit : unit) : kind == 1 ? unit * (r + 1) / P
                : kind == 2 ? (r % 3 == 0 ? 0 : unit) : pap_below(unit + 1);
    }
    CHECK(!unequal_case(P, n % 3 ? arrival : NULL, tau, size, err, sizeof err), "unequal %d (%s, P=%d): %s", n, shape,
          P, err);
  }
  /* P = 8, 1M floats, one rank 4x: the big block (1.5 MB) in 98 fine pieces (15 KiB: pat_relay_piece_max)
   * besides 14 of the small ones (27 KiB), not 21 of 73 KiB; 4M: the small blocks in 35 (43 KiB), the big one
   * in 105 (57 KiB): the budget binds, and every piece stays eager (the small blocks' fine cut, 42 each, would
   * leave the big one 63 of 95 KiB) */
  {
    int k[8];
    int64_t one_big[8];
    for (int r = 0; r < 8; r++) one_big[r] = r == 7 ? (4LL << 22) / 11 : (1LL << 22) / 11;
    CHECK(pat_relay_pieces_v(8, one_big, k) == PAT_OK && k[0] == 14 && k[6] == 14 && k[7] == 98, "1M one big: %d, %d",
          k[0], k[7]);
    for (int r = 0; r < 8; r++) one_big[r] *= 4;
    CHECK(pat_relay_pieces_v(8, one_big, k) == PAT_OK && k[0] == 35 && k[7] == 105, "4M one big: %d, %d", k[0], k[7]);
  }
  /* the smallest block of two pieces; P - 1 pieces up to P - 1 relays' worth
   * of the largest piece, then multiples of P - 1 (at P = 8: 511 KiB in 14
   * pieces of 37 KiB, 512 KiB in 35 fine pieces of 15 KiB), within
   * pat_relay_max_sends(P) sends per rank: 320 up
   * to P = 8 (42 pieces at most there), 2560 / P above, 160 from P = 16 on
   * (10 pieces at P = 16; beyond P = 81 whole blocks) */
  CHECK(pat_relay_max_sends(3) == 320 && pat_relay_max_sends(8) == 320 && pat_relay_max_sends(10) == 256 &&
            pat_relay_max_sends(12) == 213 && pat_relay_max_sends(16) == 160 && pat_relay_max_sends(1000) == 160,
        "send budgets");
  CHECK(pat_relay_pieces(8, 2 * PAT_RELAY_MIN_PIECE - 1) == 1 && pat_relay_pieces(8, 2 * PAT_RELAY_MIN_PIECE) == 2 &&
            pat_relay_pieces(8, 0) == 7 && pat_relay_pieces(8, 7 * PAT_RELAY_MAX_PIECE) == 7 &&
            pat_relay_pieces(8, 7 * PAT_RELAY_MAX_PIECE + 1) == 14 && pat_relay_pieces(8, (512 << 10) - 1) == 14 &&
            pat_relay_pieces(8, 512 << 10) == 35 && pat_relay_pieces(8, 1 << 20) == 42 && pat_relay_pieces(8, 100LL << 30) == 42 &&
            pat_relay_pieces(16, 256 << 10) == 10 && pat_relay_pieces(16, 1 << 20) == 10 &&
            pat_relay_pieces(16, 0) == 10 && pat_relay_pieces(81, 1 << 20) == 2 && pat_relay_pieces(82, 1 << 20) == 1 &&
            pat_relay_pieces(2, 0) == 1 && pat_relay_pieces(2, 1 << 20) == 1,
        "piece counts");
  return TEST_RESULT();
}
