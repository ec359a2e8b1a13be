/*
 * Data-flow execution (schedule.h, send_window > 0), four modes (argv[1]):
 *
 *   random    every algorithm's schedule (random predicted arrivals, block
 *             sizes with and without pieces) run by the executor as a data
 *             flow with windows 1, 2 and 5, on the packed view, while every
 *             rank completes its ops in a random order: it starts after a
 *             random delay, then progresses the schedule as the background
 *             thread does (own block not yet held) with random sleeps for a
 *             random while, then runs it to the end.  Many seeds; every
 *             byte of every block checked.  The timeline the executor
 *             records is checked too: every op posted once and completed
 *             after its post, no send posted before the receives that bring
 *             its bytes completed, none of the own block before the run.
 *   paced     random's cases with pacing on (pat_exec_set_pace): forwards
 *             held back until the link's estimated queue is short; every
 *             byte checked, and some send must have been held.  Then the
 *             same cases with every rank on one node (the buffers' node
 *             map): messages inside a node are never paced, none held.
 *   timeline  PAT_Allgather under PAT_TIMELINE (set by ctest): the file of
 *             this rank lists every op of the schedule the call ran (rebuilt
 *             here from the recorded header), each posted and completed, in
 *             an order the schedule allows (lockstep: a step's ops posted
 *             after every earlier step completed; data flow: as above).
 *   paced-node  PAT_Allgather under PAT_ALG=relay (set by ctest: a data
 *             flow of forwards) with PAT_PACE at 10 Mbit/s and every rank
 *             on one node (PAT_NODE_SIZE): its messages never leave the
 *             node, so no send is held (the runtime gives the executor the
 *             communicator's node map); every byte checked.
 *   paced-persistent  PAT_ALG=relay, every rank a node of its own and PAT_PACE
 *             at 10 Mbit/s (set by ctest): a blocking all-gather's forwards
 *             are held by pacing (the check that pacing is on), a persistent
 *             all-gather's rounds, RELAY where one rank starts 40 ms late,
 *             never (their runs are unpaced: nbc_queue.c); every byte
 *             checked.
 *   paced-reduce  PAT_ALLREDUCE=relay with PAT_PACE at 10 Mbit/s (set by
 *             ctest): a data-flow all-reduce's sends carry the rank's own
 *             contribution, yet are held by pacing where every rank is a
 *             node (PAT_NODE_SIZE=1), and never on one node; sums exact.
 *   ahead     PAT_ALG=relay (set by ctest) in an instrumented loop whose
 *             last rank computes 300 ms longer and reaches PAT_Edge only
 *             after the others are in the call: relay plans ahead
 *             (PAT_ALGF_PLAN_AHEAD), so the late rank's background thread
 *             must have taken blocks in before it arrived (PAT_Stats
 *             bg_steps > 0); without planning ahead the plan would wait for
 *             that edge.  Every byte checked.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/algorithms.h"
#include "exec/executor.h"
#include "mpitest.h"
#include "runtime/nbc_queue.h" /* pat_nbc_completed_by */
#include "pat.h"

static int rank, P;
static long failures, cases;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_us(unsigned us) {
  struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};
  nanosleep(&t, NULL);
}

static unsigned rng_state;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 1103515245u + 12345u;
  return n ? (rng_state >> 8) % n : 0;
}

static int is_recv(const pat_op *op) { return op->kind == PAT_OP_RECV || op->kind == PAT_OP_SIGNAL_RECV; }

/* Does span a share a byte with span b? */
static int overlap(const pat_span *a, const pat_span *b) {
  for (int i = 0; i < a->count; i++) {
    int blk = (a->first + i) % P;
    if (((blk - b->first) % P + P) % P < b->count && (a->lo > b->lo ? a->lo : b->lo) < (a->hi < b->hi ? a->hi : b->hi))
      return 1;
  }
  return 0;
}

/* The order rules of the contract on recorded times (see the top).  ops:
 * this rank's ops; own_from: when the own block was held. */
static void check_order(const char *what, const pat_op *ops, size_t n, int window, const int64_t *post,
                        const int64_t *done, int64_t own_from) {
  for (size_t i = 0; i < n; i++) {
    CHECK(post[i] > 0 && done[i] >= post[i], "%s: op %zu posted at %lld, done at %lld", what, i, (long long)post[i],
          (long long)done[i]);
    if (window == 0) {
      for (size_t j = 0; j < n; j++)
        if (ops[j].step < ops[i].step && done[j] > post[i]) {
          CHECK(0, "%s: op %zu (step %d) posted before op %zu of step %d completed", what, i, ops[i].step, j,
                ops[j].step);
          break;
        }
      continue;
    }
    if (is_recv(&ops[i])) continue;
    if (pat_spans_touch_block(P, ops[i].nspans, ops[i].span, rank))
      CHECK(post[i] >= own_from, "%s: op %zu sends the own block before it was held", what, i);
    for (size_t j = 0; j < n; j++)
      if (is_recv(&ops[j]) && ops[j].nspans && ops[i].nspans && overlap(&ops[i].span[0], &ops[j].span[0]) &&
          done[j] > post[i])
        CHECK(0, "%s: send op %zu posted before receive op %zu that brings its bytes completed", what, i, j);
  }
}

static int64_t clock_for_exec(void) { return now_ns(); }

static const int *node_map; /* the buffers' (NULL: every rank on its own node) */

static unsigned char byte_of(int block, size_t off) { return (unsigned char)(block * 37 + off * 11 + 1); }

static void random_case(int alg, int window, size_t block_bytes, const int64_t *arrival, unsigned seed) {
  pat_build_args args = {P, rank, arrival, 1000000, 0, 100000, (int64_t)block_bytes, NULL, NULL, NULL};
  pat_sched s;
  if (pat_build(alg, &s, &args) != PAT_OK) {
    CHECK(0, "%s: build failed", pat_algorithms[alg].name);
    return;
  }
  s.send_window = window;
  pat_buffers b;
  memset(&b, 0, sizeof b);
  b.P = P;
  b.self = rank;
  b.comm = MPI_COMM_WORLD;
  b.node = node_map;
  b.packed = 1;
  b.block_type = MPI_DATATYPE_NULL;
  b.block_bytes = block_bytes;
  b.stage = calloc((size_t)P * block_bytes + 1, 1);
  pat_exec e;
  int rc = pat_exec_init(&e, &s, rank, &b);
  if (rc == MPI_SUCCESS) rc = pat_exec_record(&e);
  e.tag_gen = 3;
  sleep_us(rnd(3) * rnd(2000));
  /* the background's part, in random slices, before the own block is there */
  for (int k = rnd(20), busy = 1; k > 0 && busy && rc == MPI_SUCCESS; k--) {
    rc = pat_exec_flow_progress(&e, &busy);
    sleep_us(rnd(400));
  }
  for (size_t off = 0; off < block_bytes; off++) b.stage[(size_t)rank * block_bytes + off] = (char)byte_of(rank, off);
  int64_t own_from = now_ns();
  if (rc == MPI_SUCCESS) rc = pat_exec_run(&e);
  char what[96];
  snprintf(what, sizeof what, "%s window %d bytes %zu seed %u", pat_algorithms[alg].name, window, block_bytes, seed);
  CHECK(rc == MPI_SUCCESS, "%s: run returned %d", what, rc);
  if (rc == MPI_SUCCESS) {
    long bad = -1;
    for (int blk = 0; blk < P && bad < 0; blk++)
      for (size_t off = 0; off < block_bytes; off++)
        if ((unsigned char)b.stage[(size_t)blk * block_bytes + off] != byte_of(blk, off)) {
          bad = (long)((size_t)blk * block_bytes + off);
          break;
        }
    CHECK(bad < 0, "%s: wrong byte at %ld", what, bad);
    check_order(what, e.ops, e.nops, window, e.t_post, e.t_done, own_from);
  }
  pat_exec_free(&e);
  free(b.stage);
  pat_sched_free(&s);
}

static void run_random(void) {
  pat_exec_set_clock(clock_for_exec);
  const int algs[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC, PAT_ALG_BDR,
                      PAT_ALG_BSLB, PAT_ALG_ARD, PAT_ALG_DIRECT, PAT_ALG_RELAY};
  const int windows[] = {1, 2, 5};
  const size_t sizes[] = {24, 3 * PAT_ARD_MIN_PIECE + 40, (size_t)P * PAT_ARD_MIN_PIECE};
  int64_t *arrival = malloc((size_t)P * sizeof *arrival);
  for (unsigned seed = 1; seed <= 6; seed++)
    for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++)
      for (int w = 0; w < 3; w++)
        for (int z = 0; z < 3; z++) {
          /* every rank agrees on the schedule: arrivals from the seed alone */
          rng_state = seed * 7919u + (unsigned)(a * 31 + (size_t)w * 7 + (size_t)z);
          for (int r = 0; r < P; r++) arrival[r] = (int64_t)rnd(20) * 1000000;
          rng_state = seed * 104729u + (unsigned)rank * 613u + (unsigned)a; /* then each rank its own delays */
          random_case(algs[a], windows[w], sizes[z], arrival, seed);
          MPI_Barrier(MPI_COMM_WORLD);
        }
  free(arrival);
}

/* ---- timeline ---- */

static void check_file(const char *path, int alg_want) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "no timeline file %s", path);
  if (!f) return;
  char line[1 << 16], alg[32];
  int calls = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "call ", 5) != 0) continue;
    long long seq, bytes, arrival, handover, exit_ns;
    int r, p, window;
    if (sscanf(line, "call %lld rank %d P %d alg %31s window %d bytes %lld arrival %lld handover %lld exit %lld", &seq,
               &r, &p, alg, &window, &bytes, &arrival, &handover, &exit_ns) != 9) {
      CHECK(0, "bad header: %s", line);
      break;
    }
    int id = pat_alg_by_name(alg);
    if (id != alg_want) continue;
    calls++;
    int64_t *pred = NULL;
    char *pp = strstr(line, "predicted ");
    if (pp) {
      pred = malloc((size_t)P * sizeof *pred);
      pp += 10;
      for (int i = 0; i < P; i++) pred[i] = strtoll(pp, &pp, 10), pp += *pp == ',';
    }
    /* the schedule the call ran: the classic algorithms depend on the block
     * size only, RELAY on the arrivals' order, the block size and whether
     * the arrivals were within 2 tau (then DIRECT's traffic, with DIRECT's
     * window): the recorded window says which, and tau is chosen to match */
    int64_t tau = id == PAT_ALG_RELAY && window != pat_direct_window(P) ? 1 : 1000000000000LL;
    pat_build_args args = {P, rank, pred, tau, 0, 0, bytes, NULL, NULL, NULL};
    pat_sched s;
    CHECK(pat_build(id, &s, &args) == PAT_OK, "rebuild %s", alg);
    size_t n;
    const pat_op *ops = pat_sched_rank_ops(&s, rank, &n);
    int64_t *post = calloc(n + 1, sizeof *post), *done = calloc(n + 1, sizeof *done);
    size_t seen = 0;
    for (size_t i = 0; i < n; i++) {
      char kind[8], pw[4], dw[4];
      size_t idx;
      int step, peer;
      double blocks;
      long long tp, td, op_bytes;
      if (!fgets(line, sizeof line, f) ||
          sscanf(line, "op %zu step %d %7s peer %d blocks %lf post %lld %3s done %lld %3s bytes %lld", &idx, &step,
                 kind, &peer, &blocks, &tp, pw, &td, dw, &op_bytes) != 10)
        break;
      /* equal blocks: an op's bytes are its fraction of blocks of the header's size */
      CHECK(llabs(op_bytes - llround(blocks * (double)bytes)) <= 1, "%s call %lld: op %zu has %lld bytes, not %.6f x %lld",
            alg, seq, i, op_bytes, blocks, bytes);
      CHECK(idx == i && step == ops[i].step && peer == ops[i].peer &&
                !strcmp(kind, ops[i].kind == PAT_OP_SEND ? "send" : ops[i].kind == PAT_OP_RECV ? "recv"
                                                              : ops[i].kind == PAT_OP_SIGNAL_SEND ? "ssend"
                                                                                                  : "srecv"),
            "%s call %lld: op %zu is not the schedule's (step %d %s peer %d)", alg, seq, i, step, kind, peer);
      post[i] = tp;
      done[i] = td;
      seen++;
    }
    CHECK(seen == n, "%s call %lld: %zu of %zu ops recorded", alg, seq, seen, n);
    if (seen == n) check_order(alg, ops, n, window, post, done, handover);
    free(post);
    free(done);
    free(pred);
    pat_sched_free(&s);
  }
  fclose(f);
  CHECK(calls > 0, "no call of %s recorded", pat_algorithms[alg_want].name);
}

static void run_timeline(void) {
  const char *prefix = getenv("PAT_TIMELINE");
  CHECK(prefix && *prefix, "PAT_TIMELINE is not set");
  if (!prefix || !*prefix) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", prefix, rank);
  remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
  const int count = 3 * PAT_ARD_MIN_PIECE / 4; /* floats: 3 pieces' worth per block */
  float *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * (size_t)P * sizeof *out);
  const char *algs[] = {"relay", "ring", "direct"};
  for (int a = 0; a < 3; a++) {
    PAT_UseAlg(algs[a]);
    for (int it = 0; it < 4; it++) {
      for (int i = 0; i < count; i++) in[i] = (float)(rank * 1000 + i % 977 + it);
      sleep_us((unsigned)(rank * 2000 * (it % 2)));
      CHECK(PAT_Allgather(in, count, MPI_FLOAT, out, count, MPI_FLOAT, MPI_COMM_WORLD) == MPI_SUCCESS, "call");
      for (int r = 0; r < P; r++)
        CHECK(out[(size_t)r * count + 5] == (float)(r * 1000 + 5 + it), "%s: wrong data of block %d", algs[a], r);
    }
  }
  free(in);
  free(out);
  check_file(path, PAT_ALG_RELAY);
  check_file(path, PAT_ALG_RING);
  check_file(path, PAT_ALG_DIRECT);
}

/* ---- ahead, paced-node, paced-persistent, paced-reduce: each call's data, every element checked ---- */

static void fill_mine(int *mine, int n, int it) {
  for (int i = 0; i < n; i++) mine[i] = rank * 1000003 + it * 7919 + i;
}

/* The first wrong element in the result of call `it`, or -1. */
static long first_wrong(const int *all, int n, int it) {
  for (long i = 0; i < (long)n * P; i++)
    if (all[i] != (int)(i / n) * 1000003 + it * 7919 + (int)(i % n)) return i;
  return -1;
}

static void run_ahead(void) {
  const int n = 64 * 1024, iters = 5;
  int *mine = malloc(sizeof(int) * (size_t)n), *all = malloc(sizeof(int) * (size_t)n * (size_t)P);
  for (int it = 0; it < iters; it++) {
    fill_mine(mine, n, it);
    memset(all, 0, sizeof(int) * (size_t)n * (size_t)P);
    MPI_Barrier(MPI_COMM_WORLD);
    PAT_ProcessingStart();
    if (rank == P - 1) sleep_ms(300);
    PAT_Edge(50.0);
    PAT_ProcessingEnd();
    CHECK(PAT_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS, "call %d failed", it);
    long bad = first_wrong(all, n, it);
    CHECK(bad < 0, "call %d: wrong element at %ld", it, bad);
  }
  PAT_Stats st;
  PAT_GetStats(&st);
  /* the first call has no history; the later ones are planned as the one before ends */
  if (rank == P - 1)
    CHECK(st.bg_steps > 0, "the late rank's background thread completed no op before it arrived (%lld in the call)",
          st.fg_steps);
  free(mine);
  free(all);
}

/* The sends pacing held since its count was `before`, all ranks' together. */
static long long all_held_since(long long before) {
  long long held = pat_exec_paced_sends() - before, all_held = 0;
  MPI_Allreduce(&held, &all_held, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all_held;
}

/* `calls` blocking all-gathers of n ints, every element checked; the sends
 * pacing held in them, all ranks' together. */
static long long blocking_calls_held(int *mine, int *all, int n, int calls) {
  long long before = pat_exec_paced_sends();
  for (int it = 0; it < calls; it++) {
    fill_mine(mine, n, it);
    CHECK(PAT_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS, "call %d failed", it);
    long bad = first_wrong(all, n, it);
    CHECK(bad < 0, "call %d: wrong element at %ld", it, bad);
  }
  return all_held_since(before);
}

/* ---- paced-node ---- */

static void run_paced_node(void) {
  const int n = 16384; /* 64 KiB blocks: far over the 2.5 KB the lead allows at 10 Mbit/s */
  int *mine = malloc(sizeof(int) * (size_t)n), *all = malloc(sizeof(int) * (size_t)n * (size_t)P);
  long long all_held = blocking_calls_held(mine, all, n, 4);
  CHECK(all_held == 0, "%lld sends held by pacing on one node", all_held);
  free(mine);
  free(all);
}

/* ---- paced-reduce ---- */

static void run_paced_reduce(void) {
  const int n = 16384; /* 64 KiB vectors: every piece far over the 2.5 KB the lead allows at 10 Mbit/s */
  const char *size = getenv("PAT_NODE_SIZE");
  const int node_each = size && !strcmp(size, "1");
  int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
  long long before = pat_exec_paced_sends();
  for (int it = 0; it < 4; it++) {
    fill_mine(in, n, it);
    CHECK(PAT_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "call %d failed", it);
    long bad = -1;
    for (int i = 0; i < n && bad < 0; i++) {
      int want = 0; /* the sum wraps alike in every order */
      for (int r = 0; r < P; r++) want = (int)((unsigned)want + (unsigned)(r * 1000003 + it * 7919 + i));
      if (out[i] != want) bad = i;
    }
    CHECK(bad < 0, "call %d: wrong element at %ld", it, bad);
  }
  long long all_held = all_held_since(before);
  if (node_each)
    CHECK(all_held > 0, "pacing held no send of the all-reduces between nodes");
  else
    CHECK(all_held == 0, "pacing held %lld sends of the all-reduces on one node", all_held);
  free(in);
  free(out);
}

/* ---- paced-persistent ---- */

static void run_paced_persistent(void) {
  const int n = 16384; /* 64 KiB blocks: RELAY's pieces, far over the lead pacing allows at 10 Mbit/s */
  int *mine = malloc(sizeof(int) * (size_t)n), *all = malloc(sizeof(int) * (size_t)n * (size_t)P);
  CHECK(blocking_calls_held(mine, all, n, 2) > 0,
        "pacing held no send of the blocking calls: the check below would prove nothing");
  MPI_Request req;
  CHECK(PAT_Allgather_init(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req) == MPI_SUCCESS,
        "set-up failed");
  long long relays = pat_nbc_completed_by(PAT_ALG_RELAY);
  long long before = pat_exec_paced_sends();
  for (int it = 2; it < 8; it++) {
    fill_mine(mine, n, it);
    if (rank == it % P) sleep_us(40000); /* the starts spread: the next round runs RELAY */
    CHECK(PAT_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "round %d failed", it);
    long bad = first_wrong(all, n, it);
    CHECK(bad < 0, "round %d: wrong element at %ld", it, bad);
  }
  long long ours[2] = {pat_exec_paced_sends() - before, pat_nbc_completed_by(PAT_ALG_RELAY) - relays}, sums[2];
  MPI_Allreduce(ours, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sums[1] > 0, "no persistent round ran RELAY");
  CHECK(sums[0] == 0, "pacing held %lld sends of the persistent rounds (%lld RELAY runs)", sums[0], sums[1]);
  PAT_Request_free(&req);
  free(mine);
  free(all);
}

int main(int argc, char **argv) {
  const char *mode = test_init(&argc, &argv, &rank, &P, "random");
  if (!strcmp(mode, "timeline")) {
    PAT_Init();
    run_timeline();
    PAT_Finalize();
  } else if (!strcmp(mode, "paced-node")) {
    PAT_Init();
    run_paced_node();
    PAT_Finalize();
  } else if (!strcmp(mode, "paced-persistent")) {
    PAT_Init();
    run_paced_persistent();
    PAT_Finalize();
  } else if (!strcmp(mode, "paced-reduce")) {
    PAT_Init();
    run_paced_reduce();
    PAT_Finalize();
  } else if (!strcmp(mode, "ahead")) {
    PAT_Init();
    run_ahead();
    PAT_Finalize();
  } else if (!strcmp(mode, "paced")) {
    /* the same cases with the link at 400 Mbit/s: forwards held back (the lead is 100 KB of it), and
     * a run whose receives are done may have only held sends left (the executor naps then) */
    pat_exec_set_pace(20.0);
    run_random();
    const long long held = pat_exec_paced_sends(), all_held = all_held_since(0);
    CHECK(all_held > 0, "pacing held no send back in %d ranks' runs", P);
    int *one_node = calloc((size_t)P, sizeof *one_node);
    node_map = one_node;
    run_random();
    const long long all_inside = all_held_since(held);
    CHECK(all_inside == 0, "pacing held %lld sends inside one node", all_inside);
    node_map = NULL;
    free(one_node);
    pat_exec_set_pace(0);
  } else {
    run_random();
  }
  int rc = report_failures(mode, cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
