/* RELAY: for P = 1..64, balanced and random PAPs and block sizes, the
 * schedule is valid and every per-rank build is its slice; it runs as a data
 * flow; pieces are never below PAT_RELAY_MIN_PIECE and, once a block has
 * P - 1 of them, never above PAT_RELAY_MAX_PIECE (eager); every block leaves its
 * owner's send port exactly once (its pieces add up to one block) and is
 * scattered in the step of its owner's arrival position, earliest first;
 * balanced arrivals keep the pieces where there are at least P - 1 (whole
 * blocks below two pieces, and near balanced below P - 1). */
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
  int capped = (int64_t)next * (s->P - 1) > PAT_RELAY_MAX_SENDS;
  if (k > 1 && (int64_t)k * (s->P - 1) > PAT_RELAY_MAX_SENDS) {
    snprintf(err, errlen, "%d pieces at P = %d: over %d sends per rank", k, s->P, PAT_RELAY_MAX_SENDS);
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
  pat_build_args args = {P, PAT_ALL_RANKS, arrival, tau, 0, 0, block_bytes};
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
  /* the smallest block of two pieces; P - 1 pieces up to P - 1 relays' worth
   * of the largest piece, then multiples of P - 1 (at P = 8: 512 KiB in 14
   * pieces of 37 KiB), within 160 sends per rank (at P = 8, 21 pieces at
   * most; at P = 16, 10; beyond P = 81 whole blocks) */
  CHECK(pat_relay_pieces(8, 2 * PAT_RELAY_MIN_PIECE - 1) == 1 && pat_relay_pieces(8, 2 * PAT_RELAY_MIN_PIECE) == 2 &&
            pat_relay_pieces(8, 0) == 7 && pat_relay_pieces(8, 7 * PAT_RELAY_MAX_PIECE) == 7 &&
            pat_relay_pieces(8, 7 * PAT_RELAY_MAX_PIECE + 1) == 14 && pat_relay_pieces(8, 512 << 10) == 14 &&
            pat_relay_pieces(8, 1 << 20) == 21 && pat_relay_pieces(8, 100LL << 30) == 21 &&
            pat_relay_pieces(16, 256 << 10) == 10 && pat_relay_pieces(16, 1 << 20) == 10 &&
            pat_relay_pieces(16, 0) == 10 && pat_relay_pieces(81, 1 << 20) == 2 && pat_relay_pieces(82, 1 << 20) == 1 &&
            pat_relay_pieces(2, 0) == 1 && pat_relay_pieces(2, 1 << 20) == 1,
        "piece counts");
  return TEST_RESULT();
}
