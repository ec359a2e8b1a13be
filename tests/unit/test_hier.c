/* The hierarchical algorithms (HRING, HRELAY) and the node map they read:
 * for P = 1..64 and node sizes 1..16, nodes of consecutive ranks (mapped by
 * slot), of ranks dealt round-robin (mapped by node) and of uneven sizes,
 * balanced and random PAPs, block sizes from unknown to 4 MiB:
 *  - the schedule is valid and every per-rank build is its slice;
 *  - every block enters every other node exactly once (one block's worth of
 *    bytes crosses into the node, whoever carries it) and never comes back
 *    into its own node: the inter-node traffic of a two-level algorithm;
 *  - a block leaves its own node once (HRING always; HRELAY when it cuts
 *    pieces: the scatter), so a late node's block is relayed by others;
 *  - the ports rotate: a node takes its messages from other nodes in
 *    through as many of its ranks as it can (one each, up to its size);
 *  - nodes are numbered by their lowest rank, members in rank order. */
#include <stdint.h>
#include <stdlib.h>

#include "algorithms/algorithms.h"
#include "paputil.h"
#include "schedtest.h"
#include "testutil.h"

/* node ids of P ranks, k a node: 0 by slot, 1 round-robin, 2 uneven (sizes k, 1, k, 1 ...), ids scrambled */
static void make_map(int P, int k, int how, int *node) {
  int H = (P + k - 1) / k;
  for (int r = 0, h = 0, used = 0; r < P; r++) {
    if (how == 0) node[r] = r / k;
    else if (how == 1) node[r] = r % H;
    else {
      const int size = h % 2 ? 1 : k;
      node[r] = h;
      if (++used == size) h++, used = 0;
    }
    node[r] = node[r] * 7919 + 13; /* any ids: only equality matters */
  }
}

/* Bytes (in 1/PAT_FRAC_ONE units) of block b received across a node boundary into each node, and
 * sent out of b's own node; at most 64 nodes of ranks. */
static int check_traffic(const pat_sched *s, const pat_nodes *n, int alg, char *err, size_t errlen) {
  const int P = s->P;
  uint64_t *in = calloc((size_t)P * (size_t)n->H, sizeof *in), *out = calloc((size_t)P, sizeof *out);
  int *takers = calloc((size_t)n->P, sizeof *takers), *entries = calloc((size_t)n->H, sizeof *entries), bad = 0;
  for (int r = 0; r < P && !bad; r++) {
    size_t cnt;
    const pat_op *o = pat_sched_rank_ops(s, r, &cnt);
    for (size_t i = 0; i < cnt; i++) {
      if (n->of[o[i].peer] == n->of[r]) continue;
      if (o[i].kind == PAT_OP_RECV) entries[n->of[r]]++;
      for (int j = 0; j < o[i].nspans; j++) {
        const pat_span *sp = &o[i].span[j];
        for (int c = 0; c < sp->count; c++) {
          const int b = (sp->first + c) % P;
          const uint64_t bytes = sp->hi - sp->lo;
          if (o[i].kind == PAT_OP_RECV) in[(size_t)b * n->H + n->of[r]] += bytes, takers[r] = 1;
          if (o[i].kind == PAT_OP_SEND && n->of[r] == n->of[b]) out[b] += bytes;
        }
      }
    }
  }
  for (int b = 0; b < P && !bad; b++) {
    for (int h = 0; h < n->H && !bad; h++) {
      const uint64_t want = h == n->of[b] ? 0 : PAT_FRAC_ONE;
      if (in[(size_t)b * n->H + h] != want) {
        snprintf(err, errlen, "block %d enters node %d with %llu/%u of a block, not %llu", b, h,
                 (unsigned long long)in[(size_t)b * n->H + h], PAT_FRAC_ONE, (unsigned long long)want);
        bad = 1;
      }
    }
    const int pieces = s->flags & PAT_SCHED_PIECES;
    if (!bad && n->H > 1 && (alg == PAT_ALG_HRING || pieces) && out[b] != PAT_FRAC_ONE) {
      snprintf(err, errlen, "block %d leaves its node with %llu/%u of a block", b, (unsigned long long)out[b],
               PAT_FRAC_ONE);
      bad = 1;
    }
  }
  for (int h = 0; h < n->H && !bad; h++) {
    int count = 0;
    for (int i = n->start[h]; i < n->start[h + 1]; i++) count += takers[n->member[i]];
    const int want = pat_nodes_size(n, h) < entries[h] ? pat_nodes_size(n, h) : entries[h];
    if (count < want) {
      snprintf(err, errlen, "node %d (%d ranks) takes %d messages in through %d rank(s)", h, pat_nodes_size(n, h),
               entries[h], count);
      bad = 1;
    }
  }
  free(in);
  free(out);
  free(takers);
  free(entries);
  return bad;
}

static int check_nodes(int P, const int *node, const pat_nodes *n) {
  int bad = 0;
  for (int h = 0; h < n->H; h++) {
    const int first = n->member[n->start[h]];
    if (h > 0 && first <= n->member[n->start[h - 1]]) bad = 1; /* numbered by lowest rank */
    for (int i = n->start[h]; i < n->start[h + 1]; i++) {
      if (i > n->start[h] && n->member[i] <= n->member[i - 1]) bad = 1; /* rank order */
      if (node[n->member[i]] != node[first] || n->of[n->member[i]] != h) bad = 1;
    }
  }
  for (int r = 0; r < P; r++)
    for (int q = 0; q < P; q++)
      if ((node[r] == node[q]) != (n->of[r] == n->of[q])) bad = 1;
  return bad;
}

int main(void) {
  const int64_t sizes[] = {0, 4096, 65536, 1 << 20, 4 << 20};
  int node[64], cases = 0;
  int64_t arrival[64];
  char err[256];
  for (int P = 1; P <= 64; P += P < 20 ? 1 : 5)
    for (int k = 1; k <= 16; k++)
      for (int how = 0; how < 3; how++) {
        if (k > P || (k == 1 && how > 0)) continue;
        make_map(P, k, how, node);
        pat_nodes n;
        CHECK(pat_nodes_make(P, node, &n) == PAT_OK, "nodes P=%d", P);
        CHECK(check_nodes(P, node, &n) == 0, "node map P=%d k=%d how=%d", P, k, how);
        for (int alg = PAT_ALG_HRING; alg <= PAT_ALG_HRELAY; alg++)
          for (int v = 0; v < 3; v++) {
            int64_t tau = 1000;
            const char *shape = v == 0 ? "balanced" : pap_random(P, arrival, &tau);
            pat_build_args a = {.P = P, .arrival = v ? arrival : NULL, .tau = tau, .node = node,
                                .block_bytes = sizes[pap_below(5)]};
            pat_sched all;
            const int slices = P <= 12;
            if (sched_build_checked2(alg, a, 0, slices, 0, P - 1, &all, err, sizeof err)) {
              CHECK(0, "%s P=%d k=%d map %d %s: %s", pat_algorithms[alg].name, P, k, how, shape, err);
              continue;
            }
            CHECK(all.send_window > 0, "%s runs as a data flow", pat_algorithms[alg].name);
            CHECK(check_traffic(&all, &n, alg, err, sizeof err) == 0, "%s P=%d k=%d map %d %s bytes %lld: %s",
                  pat_algorithms[alg].name, P, k, how, shape, (long long)a.block_bytes, err);
            pat_sched_free(&all);
            cases++;
          }
        pat_nodes_free(&n);
      }
  /* no node map: every rank a node of its own, still valid */
  for (int P = 1; P <= 12; P++)
    for (int alg = PAT_ALG_HRING; alg <= PAT_ALG_HRELAY; alg++) {
      pat_build_args a = {.P = P, .tau = 1000, .block_bytes = 1 << 20};
      pat_sched all;
      CHECK(sched_build_checked(alg, a, 0, 1, &all, err, sizeof err) == 0, "%s P=%d flat: %s",
            pat_algorithms[alg].name, P, err);
      if (!test_failures) pat_sched_free(&all);
    }
  printf("%d hierarchical schedules checked\n", cases);
  return TEST_RESULT();
}
