/* The all-reduce schedules: each algorithm's schedule of every rank at
 * P = 1..17 (powers of two, one either side of them, and the folds between)
 * proves every rank ends with every contribution exactly once in every byte,
 * in rank order where the registry says the algorithm keeps it (and the
 * checker refuses the order of those that do not, from P = 2 on); each
 * rank's own build is exactly its slice of the whole; the step counts are
 * the cost formulas'.  RELAY, a data flow, also with a predicted last rank
 * and with pieces: that rank owns nothing (no contribution comes to it).
 * HRING on node maps: nodes of k ranks placed by slot and round robin
 * (checked, 2 (k - 1) + 2 (H - 1) steps, a node's link carrying 2 (H - 1) / H
 * of the vector each way), and unequal nodes, where it is the ring.  HRELAY
 * on the same maps, with every node late in turn and with pieces: checked,
 * the late node's ranks combine nothing from another node, and a node's
 * link carries the vector out (the late node) or (2H - 3) / (H - 1) of it
 * (the others); without a node map it is RELAY's shape, 2 steps.  SLT
 * with a predicted order: checked, its chain in that order, with pieces. */
#include <string.h>

#include "algorithms/allreduce.h"
#include "testutil.h"

static int log2_floor(int P) {
  int k = 0;
  while ((2 << k) <= P) k++;
  return k;
}

static int expected_steps(int id, int P) {
  int L = log2_floor(P), fold = (P & (P - 1)) ? 2 : 0;
  if (P == 1) return 0;
  switch (id) {
  case PAT_ARED_RDB: return L + fold;
  case PAT_ARED_RING:
  case PAT_ARED_HRING: return 2 * (P - 1); /* without a node map: every rank a node */
  case PAT_ARED_RELAY:
  case PAT_ARED_HRELAY: return 2; /* one piece: the vector's size unknown */
  case PAT_ARED_SLT: return 2 * (P - 1); /* up the chain and down, one piece */
  default: return 2 * L + fold;
  }
}

/* The segments sent off each node (out[node id]) by every rank of s, pieces in fractions. */
static void segments_off_nodes(const pat_sched *s, int P, const int *node, double *out) {
  for (int r = 0; r < P; r++) {
    size_t n;
    const pat_op *ops = pat_sched_rank_ops(s, r, &n);
    for (size_t i = 0; i < n; i++)
      if (ops[i].kind == PAT_OP_SEND && node[ops[i].peer] != node[r])
        for (int j = 0; j < ops[i].nspans; j++)
          out[node[r]] += ops[i].span[j].count * ((double)ops[i].span[j].hi - ops[i].span[j].lo) / PAT_FRAC_ONE;
  }
}

/* The first rank whose own build of `id` (a, self = r) differs from its slice of s (its ops, the
 * schedule's flags and algorithm), or -1. */
static int own_build_differs(int id, const pat_sched *s, const pat_build_args *a) {
  for (int r = 0; r < a->P; r++) {
    pat_build_args one = *a;
    one.self = r;
    pat_sched mine;
    size_t n1 = 0, n2;
    int ok = pat_build_allreduce(id, &mine, &one) == PAT_OK;
    const pat_op *o1 = ok ? pat_sched_rank_ops(&mine, r, &n1) : NULL, *o2 = pat_sched_rank_ops(s, r, &n2);
    int same = ok && n1 == n2 && (n1 == 0 || memcmp(o1, o2, n1 * sizeof *o1) == 0) && mine.flags == s->flags &&
               mine.alg == s->alg;
    if (ok) pat_sched_free(&mine);
    if (!same) return r;
  }
  return -1;
}

int main(void) {
  char err[256];
  CHECK(pat_allreduce_by_name("RDB") == PAT_ARED_RDB && pat_allreduce_by_name("ring") == PAT_ARED_RING &&
            pat_allreduce_by_name("rabenseifner") == PAT_ARED_RABENSEIFNER &&
            pat_allreduce_by_name("relay") == PAT_ARED_RELAY && pat_allreduce_by_name("direct") == PAT_ALG_UNKNOWN,
        "names");
  for (int id = 0; id < PAT_ARED_COUNT; id++) {
    const pat_allreduce_info *info = &pat_allreduce_algorithms[id];
    int ordered = (info->flags & PAT_AREDF_ORDERED) != 0, flow = (info->flags & PAT_AREDF_ARRIVAL) != 0;
    for (int P = 1; P <= 17; P++) {
      pat_build_args a = {.P = P, .self = PAT_ALL_RANKS};
      pat_sched s;
      int rc = pat_build_allreduce(id, &s, &a);
      CHECK(rc == PAT_OK, "%s P=%d: build failed (%d)", info->name, P, rc);
      if (rc) continue;
      CHECK(s.flags & PAT_SCHED_REDUCE, "%s P=%d: not marked a reduction", info->name, P);
      CHECK(s.alg == PAT_ARED_ALG_BASE + id, "%s P=%d: alg %d", info->name, P, s.alg);
      CHECK((s.send_window == 0) == !flow, "%s P=%d: send window %d", info->name, P, s.send_window);
      CHECK(pat_sched_check(&s, flow ? 0 : PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND, err, sizeof err) == 0,
            "%s P=%d commutative: %s", info->name, P, err);
      int in_order = pat_sched_check(&s, PAT_CHECK_RANK_ORDER, err, sizeof err) == 0;
      if (ordered || id == PAT_ARED_SLT) /* SLT's chain is in rank order without a prediction */
        CHECK(in_order, "%s P=%d non-commutative: %s", info->name, P, err);
      else if (P > 1)
        CHECK(!in_order && strstr(err, "rank order"), "%s P=%d: passes as ordered (%s)", info->name, P, err);
      CHECK(s.nsteps == expected_steps(id, P), "%s P=%d: %d steps, expected %d", info->name, P, s.nsteps,
            expected_steps(id, P));
      CHECK(own_build_differs(id, &s, &a) < 0, "%s P=%d: a rank's own build differs from its slice", info->name, P);
      pat_sched_free(&s);
    }
  }
  /* RELAY with a predicted last rank and pieces: checked, and the last rank receives no contribution */
  for (int P = 2; P <= 9; P++)
    for (int late = 0; late < P; late += P - 1 > 1 ? P / 2 : 1) {
      int64_t arrival[9] = {0};
      arrival[late] = 100;
      pat_build_args a = {.P = P, .self = PAT_ALL_RANKS, .arrival = arrival, .block_bytes = 3 * PAT_ARED_RELAY_PIECE};
      pat_sched s;
      if (pat_build_allreduce(PAT_ARED_RELAY, &s, &a)) {
        CHECK(0, "relay P=%d late %d: build failed", P, late);
        continue;
      }
      /* a share's pieces: none over PAT_ARED_RELAY_PIECE */
      int k = (int)((3 * PAT_ARED_RELAY_PIECE * P / (P - 1) + PAT_ARED_RELAY_PIECE - 1) / PAT_ARED_RELAY_PIECE);
      CHECK(s.nsteps == 2 * k, "relay P=%d: %d steps, expected %d pieces' worth", P, s.nsteps, 2 * k);
      CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "relay P=%d late %d: %s", P, late, err);
      size_t n;
      const pat_op *ops = pat_sched_rank_ops(&s, late, &n);
      int reduces = 0;
      for (size_t i = 0; i < n; i++) reduces += ops[i].kind == PAT_OP_RECV && (ops[i].flags & PAT_OPF_REDUCE);
      CHECK(reduces == 0, "relay P=%d: the late rank %d combines %d contributions", P, late, reduces);
      pat_sched lock = s;
      lock.send_window = 0; /* the same ops in lockstep: two contributions to one byte in a step */
      CHECK(P < 3 || pat_sched_check(&lock, 0, err, sizeof err) != 0, "relay P=%d in lockstep passes", P);
      pat_sched_free(&s);
    }
  /* HRING on nodes: H nodes of k ranks, by slot (node r / k) and round robin (node r mod H); 3 + 3 + 2 */
  for (int H = 1; H <= 5; H++)
    for (int k = 1; k <= 4; k++)
      for (int robin = 0; robin < 2; robin++) {
        int P = H * k, node[20];
        for (int r = 0; r < P; r++) node[r] = robin ? r % H : r / k;
        pat_build_args a = {.P = P, .self = PAT_ALL_RANKS, .node = node};
        pat_sched s;
        if (pat_build_allreduce(PAT_ARED_HRING, &s, &a)) {
          CHECK(0, "hring H=%d k=%d: build failed", H, k);
          continue;
        }
        CHECK(pat_sched_check(&s, PAT_CHECK_ONE_RECV | PAT_CHECK_ONE_SEND, err, sizeof err) == 0,
              "hring H=%d k=%d robin %d: %s", H, k, robin, err);
        CHECK(P == 1 || s.nsteps == 2 * (k - 1) + 2 * (H - 1), "hring H=%d k=%d: %d steps", H, k, s.nsteps);
        double out[5] = {0}; /* segments sent off each node */
        segments_off_nodes(&s, P, node, out);
        for (int h = 0; h < H; h++)
          CHECK(out[h] == 2.0 * (H - 1) * k, "hring H=%d k=%d robin %d: node %d sends %g segments off it", H, k,
                robin, h, out[h]);
        int differs = own_build_differs(PAT_ARED_HRING, &s, &a);
        CHECK(differs < 0, "hring H=%d k=%d rank %d: its own build differs from its slice", H, k, differs);
        pat_sched_free(&s);
      }
  /* HRING on nodes of unequal sizes: the smallest node's k members a node run the rings, the others
   * (extras) add their vector into member (position mod k) first and get the result from it last, one
   * extra a member per step: 2 E + 2 (k - 1) + 2 (H - 1) steps, E = ceil((largest - k) / k); placed by
   * slot and cyclically (rank r on the next node with room) */
  static const int shapes[][5] = {{3, 3, 2}, {1, 3}, {4, 1, 2}, {5, 2}, {2, 2, 3, 3}, {7, 1, 1}};
  for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
    for (int robin = 0; robin < 2; robin++) {
      int size[5] = {0}, H = 0, P = 0, k = 64, most = 0, node[20], left[5];
      for (int h = 0; h < 5 && shapes[sh][h]; h++, H++) {
        size[h] = left[h] = shapes[sh][h];
        P += size[h];
        k = size[h] < k ? size[h] : k;
        most = size[h] > most ? size[h] : most;
      }
      for (int r = 0, h = 0; r < P; r++) {
        if (robin) {
          while (!left[h % H]) h++;
          node[r] = h % H;
          left[h % H]--;
          h++;
        } else {
          while (!left[h]) h++;
          node[r] = h;
          left[h]--;
        }
      }
      const int E = (most - k + k - 1) / k;
      pat_build_args a = {.P = P, .self = PAT_ALL_RANKS, .node = node};
      pat_sched s;
      if (pat_build_allreduce(PAT_ARED_HRING, &s, &a)) {
        CHECK(0, "hring shape %zu: build failed", sh);
        continue;
      }
      CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "hring shape %zu robin %d: %s", sh, robin, err);
      CHECK(s.nsteps == 2 * E + 2 * (k - 1) + 2 * (H - 1), "hring shape %zu: %d steps, want %d", sh, s.nsteps,
            2 * E + 2 * (k - 1) + 2 * (H - 1));
      double out[5] = {0}; /* segments sent off each node: its k rings' share of 2 (H - 1) / H, P segments */
      segments_off_nodes(&s, P, node, out);
      for (int h = 0; h < H; h++)
        CHECK(out[h] <= 2.0 * (H - 1) * ((P + k * H - 1) / (k * H)) * k, "hring shape %zu: node %d sends %g "
              "segments off it", sh, h, out[h]);
      int differs = own_build_differs(PAT_ARED_HRING, &s, &a);
      CHECK(differs < 0, "hring shape %zu rank %d: its own build differs from its slice", sh, differs);
      pat_sched_free(&s);
    }
  /* HRELAY on nodes, every node late in turn (its last rank predicted last), 3 pieces a share */
  for (int H = 1; H <= 5; H++)
    for (int k = 1; k <= 3; k++)
      for (int robin = 0; robin < 2; robin++)
        for (int late_node = 0; late_node < H; late_node++) {
          int P = H * k, node[15], late = -1;
          int64_t arrival[15] = {0};
          for (int r = 0; r < P; r++) node[r] = robin ? r % H : r / k;
          for (int r = 0; r < P; r++) late = node[r] == late_node ? r : late;
          arrival[late] = 100;
          const int64_t share = 3 * PAT_ARED_RELAY_PIECE, q = H > 1 ? 3 : 1;
          pat_build_args a = {.P = P, .self = PAT_ALL_RANKS, .node = node, .arrival = arrival,
                              .block_bytes = H > 1 ? (share * (H - 1) + H - 1) / H : 0};
          pat_sched s;
          if (pat_build_allreduce(PAT_ARED_HRELAY, &s, &a)) {
            CHECK(0, "hrelay H=%d k=%d: build failed", H, k);
            continue;
          }
          CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "hrelay H=%d k=%d robin %d late %d: %s", H, k, robin,
                late, err);
          CHECK(P == 1 || s.nsteps == 2 * (k - 1) + 2 * (H > 1) * q, "hrelay H=%d k=%d: %d steps", H, k, s.nsteps);
          int foreign = 0; /* contributions from another node combined in the late node */
          for (int r = 0; r < P; r++) {
            size_t n;
            const pat_op *ops = pat_sched_rank_ops(&s, r, &n);
            for (size_t i = 0; i < n && node[r] == late_node; i++)
              foreign += ops[i].kind == PAT_OP_RECV && (ops[i].flags & PAT_OPF_REDUCE) && node[ops[i].peer] != node[r];
          }
          CHECK(foreign == 0, "hrelay H=%d k=%d: the late node combines %d contributions", H, k, foreign);
          double out[5] = {0};
          segments_off_nodes(&s, P, node, out);
          for (int h = 0; h < H && H > 1; h++) {
            double want = h == late_node ? P : P * (2.0 * H - 3) / (H - 1);
            CHECK(out[h] > want - 0.01 && out[h] < want + 0.01, "hrelay H=%d k=%d robin %d: node %d sends %g "
                  "segments off it, want %g", H, k, robin, h, out[h], want);
          }
          int differs = own_build_differs(PAT_ARED_HRELAY, &s, &a);
          CHECK(differs < 0, "hrelay H=%d k=%d rank %d: its own build differs from its slice", H, k, differs);
          pat_sched_free(&s);
        }
  /* SLT with a predicted order of arrival (a permutation) and pieces, from whole segments cut in 3 to groups
   * of 4 segments: checked, the chain follows the order, ties putting the higher rank later (the last rank
   * takes its partial sums from the next-to-last only, the first rank none), 2 (P - 1) n steps for n pieces,
   * and out of rank order */
  for (int P = 2; P <= 9; P++)
    for (int sizes = 0; sizes < 2; sizes++) {
      int64_t arrival[9];
      for (int r = 0; r < P; r++) arrival[r] = (r * 5 + 3) % P; /* 5 is prime to every P here but 5 */
      if (P == 5) arrival[0] = 7, arrival[4] = 0;
      const int64_t block = sizes ? 3 * PAT_ARED_RELAY_PIECE : PAT_ARED_RELAY_PIECE / 4;
      const int n = sizes ? 3 * P : (P + 3) / 4;
      pat_build_args a = {.P = P, .self = PAT_ALL_RANKS, .arrival = arrival, .block_bytes = block};
      pat_sched s;
      if (pat_build_allreduce(PAT_ARED_SLT, &s, &a)) {
        CHECK(0, "slt P=%d: build failed", P);
        continue;
      }
      CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "slt P=%d sizes %d: %s", P, sizes, err);
      CHECK(s.nsteps == 2 * (P - 1) * n, "slt P=%d sizes %d: %d steps, want %d", P, sizes, s.nsteps, 2 * (P - 1) * n);
      int first = 0, last = 0, second = 0;
      for (int r = 0; r < P; r++) {
        first = arrival[r] < arrival[first] ? r : first;
        last = arrival[r] >= arrival[last] ? r : last;
      }
      for (int r = 0; r < P; r++)
        if (r != last && (second == last || arrival[r] >= arrival[second])) second = r;
      for (int r = 0; r < P; r++) {
        size_t k;
        const pat_op *ops = pat_sched_rank_ops(&s, r, &k);
        int sums = 0, wrong = 0;
        for (size_t i = 0; i < k; i++)
          if (ops[i].kind == PAT_OP_RECV && (ops[i].flags & PAT_OPF_REDUCE)) {
            sums++;
            wrong += r == last && ops[i].peer != second;
          }
        CHECK(r == first ? sums == 0 : sums == n, "slt P=%d: rank %d combines %d pieces", P, r, sums);
        CHECK(!wrong, "slt P=%d: the last rank %d combines pieces from another than %d", P, r, second);
      }
      CHECK(P < 3 || pat_sched_check(&s, PAT_CHECK_RANK_ORDER, err, sizeof err) != 0, "slt P=%d: in rank order", P);
      int differs = own_build_differs(PAT_ARED_SLT, &s, &a);
      CHECK(differs < 0, "slt P=%d rank %d: its own build differs from its slice", P, differs);
      pat_sched_free(&s);
    }
  /* HRELAY on unequal nodes, the last rank late */
  for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
    int P = 0, node[20];
    for (int h = 0; h < 5 && shapes[sh][h]; h++)
      for (int i = 0; i < shapes[sh][h]; i++) node[P++] = h;
    int64_t arrival[20] = {0};
    arrival[P - 1] = 100;
    pat_build_args a = {.P = P, .self = PAT_ALL_RANKS, .node = node, .arrival = arrival, .block_bytes = 100000};
    pat_sched s;
    if (pat_build_allreduce(PAT_ARED_HRELAY, &s, &a)) {
      CHECK(0, "hrelay shape %zu: build failed", sh);
      continue;
    }
    CHECK(pat_sched_check(&s, 0, err, sizeof err) == 0, "hrelay shape %zu: %s", sh, err);
    int differs = own_build_differs(PAT_ARED_HRELAY, &s, &a);
    CHECK(differs < 0, "hrelay shape %zu rank %d: its own build differs from its slice", sh, differs);
    pat_sched_free(&s);
  }
  pat_build_args bad = {.P = 4, .self = 4};
  pat_sched s;
  CHECK(pat_build_allreduce(PAT_ARED_RDB, &s, &bad) == PAT_EINVAL, "self out of range accepted");
  CHECK(pat_build_allreduce(PAT_ARED_COUNT, &s, &(pat_build_args){.P = 4, .self = PAT_ALL_RANKS}) == PAT_EINVAL,
        "unknown id accepted");
  return TEST_RESULT();
}
