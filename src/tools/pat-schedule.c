/*
 * pat-schedule: print an algorithm's schedule for a given process arrival
 * pattern, and what it costs.
 *
 *   pat-schedule --alg ring -P 6
 *   pat-schedule --alg bdr -P 4 --arrivals 2,0,0,0
 *   pat-schedule --alg bslb -P 8 --root 3 --random 10
 *
 * Output: the schedule as a step x rank table (or, for many ranks, one line
 * per step listing its transfers), with pre-steps and each rank's background
 * part marked; then each rank's arrival, exit and elapsed time in units of
 * tau, for the shown algorithm and for RING on the same arrivals, replayed by
 * the cost model with alpha = 0 and one block = one tau (src/model.h), with
 * the receive-port lower bound beside them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "algorithms/allreduce.h"
#include "model/model.h"
#include "model/select.h"
#include "tools/cli.h"

#define TAU_NS 1000000 /* the builders' tau: arrivals given in tau are scaled by this */
#define MAXP 4096

enum { LAYOUT_AUTO, LAYOUT_TABLE, LAYOUT_LIST };

typedef struct schedule_opts {
  const char *alg_name, *arrivals, *sizes; /* --alg; --arrivals, --sizes LIST (parsed once P is known) */
  int alg, P, root, layout, times_only, summary;
  int allreduce; /* --coll allreduce: alg is an all-reduce id (algorithms/allreduce.h) */
  uint64_t bytes; /* --bytes: the all-reduce's vector (its data flows' pieces); 0: not given */
  int ppn;   /* --ppn: ranks per node (0: one each) */
  int *node; /* the node map --ppn gives, or NULL */
  double random_w; /* --random W; < 0: not given */
  uint64_t seed;
} schedule_opts;

/* Per rank: arrival (tau), exit, elapsed time and first foreground step, for
 * the shown algorithm and for RING; the lower bound on e. */
typedef struct rank_times {
  double *arr, *f, *e, *fr, *er, *elb;
  double *size; /* --sizes: each block's transfer time in tau; NULL: 1 each */
  int *fg, *fgr;
} rank_times;

static void usage(FILE *f) {
  fprintf(f,
          "usage: pat-schedule --alg NAME -P N [options]\n"
          "\n"
          "Prints the schedule algorithm NAME builds for N ranks and a process arrival\n"
          "pattern, then each rank's elapsed time e_i = f_i - a_i in units of tau (the\n"
          "time to move one block), replayed by the cost model with alpha = 0, for NAME\n"
          "and for RING on the same arrivals, and the receive-port lower bound.\n"
          "\n"
          "  --alg NAME        one of: ");
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (pat_algorithms[i].build) fprintf(f, "%s%s", pat_algorithms[i].name, i + 1 < PAT_ALG_COUNT ? ", " : "");
  fprintf(f,
          "\n"
          "  -P N              number of ranks (1 .. 4096; tables stay readable to ~64)\n"
          "  --arrivals LIST   predicted (= actual) arrival of each rank in units of tau,\n"
          "                    comma-separated, N values (decimals allowed); default: all 0\n"
          "  --random W        arrivals uniform in [0, W] tau instead (see --seed)\n"
          "  --sizes LIST      unequal blocks (an all-gatherv): each rank's block size\n"
          "                    in units of tau, N values; the times and the bound\n"
          "                    then use them (the schedule is the same: it names blocks)\n"
          "  --seed S          seed of --random (default 1)\n"
          "  --root R          root of rooted algorithms (lnbc, bslb); default 0\n"
          "  --summary         for P in the thousands: no schedule of every rank, but node 0's\n"
          "                    ranks built one at a time: their message counts, node 0's\n"
          "                    messages to other nodes (the node-level program, first 40),\n"
          "                    and mean e as the selection predicts it (HRING and HRELAY by\n"
          "                    the node model on a regular --ppn map, RING by its program;\n"
          "                    others replayed up to P = 512)\n"
          "  --ppn K           K consecutive ranks per node: the hierarchical algorithms\n"
          "                    (hring, hrelay) build for these nodes, a node's ranks share\n"
          "                    its link in the replay, and the bound is the two-level one\n"
          "  --table | --list  force the step x rank table, or one line per step\n"
          "                    (default: the table up to 12 ranks if every cell fits in\n"
          "                    40 characters)\n"
          "  --times           print only the elapsed times, not the schedule\n"
          "  --coll allreduce  an all-reduce's schedule (--alg one of: rdb, ring, rabenseifner,\n"
          "                    relay, hring, hrelay, slt): blocks are the vector's P segments;\n"
          "                    RELAY and HRELAY take the latest --arrivals as their last rank,\n"
          "                    SLT their order; compared with the all-reduce's ring and bound\n"
          "                    (each rank's vector, P tau, leaves its port after it arrives:\n"
          "                    docs/design.md section 1); the data flows (relay, hrelay, slt)\n"
          "                    are replayed as the executor runs them (model.h)\n"
          "  --bytes B         with --coll allreduce: the vector's bytes, from which the data\n"
          "                    flows cut their pieces as for a call of B bytes (default: one\n"
          "                    piece); the times stay in tau\n"
          "  -h, --help        this text\n"
          "\n"
          "Table cells: >d:b sends block b to rank d, <s:b receives block b from rank s,\n"
          "b[x-y%%] is the piece of block b from x%% to y%% of its bytes, >d! and <s! are\n"
          "signals.  A leading '.' marks background work: ops before the rank's first\n"
          "send of its own block, which its background thread runs, possibly before the\n"
          "rank arrives.  'pre' marks arrival-aware pre-steps (before the last predicted\n"
          "arrival).  Empty steps are not shown.\n"
          "\n"
          "examples:\n"
          "  pat-schedule --alg ring -P 6\n"
          "  pat-schedule --alg bdr -P 4 --arrivals 2,0,0,0\n"
          "  pat-schedule --alg ard -P 8 --random 12\n"
          "  pat-schedule --alg hrelay -P 8 --ppn 2 --random 6\n"
          "  pat-schedule --coll allreduce --alg hring -P 8 --ppn 2\n");
}

/* Text of one span: "b" for a block, "b..c" for a run, "b[x-y%]" for a piece. */
static int span_text(char *buf, size_t n, int P, const pat_span *sp) {
  if (sp->lo == 0 && sp->hi == PAT_FRAC_ONE) {
    if (sp->count == 1) return snprintf(buf, n, "%d", sp->first);
    if (sp->count == P) return snprintf(buf, n, "all");
    return snprintf(buf, n, "%d..%d", sp->first, (sp->first + sp->count - 1) % P);
  }
  double lo = 100.0 * sp->lo / PAT_FRAC_ONE, hi = 100.0 * sp->hi / PAT_FRAC_ONE;
  int prec = (hi - lo < 1.0 || (lo > 0 && lo < 1.0)) ? 1 : 0;
  return snprintf(buf, n, "%d[%.*f-%.*f%%]", sp->first, prec, lo, prec, hi);
}

static void op_text(char *buf, size_t n, int P, const pat_op *op) {
  int k;
  switch (op->kind) {
  case PAT_OP_SEND: k = snprintf(buf, n, ">%d:", op->peer); break;
  case PAT_OP_RECV: k = snprintf(buf, n, "<%d:", op->peer); break;
  case PAT_OP_SIGNAL_SEND: snprintf(buf, n, ">%d!", op->peer); return;
  default: snprintf(buf, n, "<%d!", op->peer); return;
  }
  for (int i = 0; i < op->nspans && (size_t)k < n; i++) {
    if (i) k += snprintf(buf + k, n - k, "+");
    if ((size_t)k < n) k += span_text(buf + k, n - k, P, &op->span[i]);
  }
}

enum { PARSED, PARSE_FAILED };

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  schedule_opts *o = opts;
  if (cli_args_is(a, "--summary")) {
    o->summary = 1;
    return cli_args_flag(a, err);
  }
  if (cli_args_is(a, "--table|--list|--times")) {
    if (cli_args_flag(a, err)) return -1;
    if (cli_args_is(a, "--times"))
      o->times_only = 1;
    else
      o->layout = cli_args_is(a, "--table") ? LAYOUT_TABLE : LAYOUT_LIST;
    return 0;
  }
  if (cli_args_is(a, "--alg")) return cli_args_text(a, &o->alg_name, err);
  if (cli_args_is(a, "--coll")) {
    static const char *const colls[] = {"allgather", "allreduce"};
    const char *c;
    return cli_args_text(a, &c, err) || cli_choice(a->opt, c, "collective", colls, 2, &o->allreduce, err) ? -1 : 0;
  }
  if (cli_args_is(a, "--arrivals")) return cli_args_text(a, &o->arrivals, err);
  if (cli_args_is(a, "--sizes")) return cli_args_text(a, &o->sizes, err);
  if (cli_args_is(a, "-P")) return cli_args_int(a, 1, MAXP, &o->P, err);
  if (cli_args_is(a, "--root")) return cli_args_int(a, 0, MAXP - 1, &o->root, err);
  if (cli_args_is(a, "--ppn")) return cli_args_int(a, 1, MAXP, &o->ppn, err);
  if (cli_args_is(a, "--random")) return cli_args_real(a, 0, 1e9, &o->random_w, err);
  if (cli_args_is(a, "--seed")) return cli_args_count(a, 0, UINT64_MAX, &o->seed, err);
  if (cli_args_is(a, "--bytes")) return cli_args_count(a, 1, (uint64_t)1 << 40, &o->bytes, err);
  return cli_args_unknown(a, err);
}

static const char *alg_name(const schedule_opts *o) {
  return o->allreduce ? pat_allreduce_algorithms[o->alg].name : pat_algorithms[o->alg].name;
}

/* The algorithm named by --alg, or -1 after saying which names have a schedule. */
static int schedule_alg(const char *name, int allreduce) {
  if (allreduce) {
    int id = pat_allreduce_by_name(name);
    if (id >= 0) return id;
    fprintf(stderr, "pat-schedule: '%s' is no all-reduce; valid: ", name);
    for (int i = 0; i < PAT_ARED_COUNT; i++) fprintf(stderr, "%s ", pat_allreduce_algorithms[i].name);
    fprintf(stderr, "\n");
    return -1;
  }
  int alg = pat_alg_by_name(name);
  if (alg >= 0 && pat_algorithms[alg].build) return alg;
  fprintf(stderr, "pat-schedule: '%s' has no schedule to show; valid: ", name);
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (pat_algorithms[i].build) fprintf(stderr, "%s ", pat_algorithms[i].name);
  fprintf(stderr, "\n");
  return -1;
}

static int parse_options(int argc, char **argv, schedule_opts *o) {
  *o = (schedule_opts){.alg = -1, .random_w = -1, .seed = 1};
  cli_args_parse_or_exit(argc, argv, parse_option, o, "pat-schedule", usage);
  if (!o->alg_name || !o->P) {
    usage(stderr);
    return PARSE_FAILED;
  }
  if ((o->alg = schedule_alg(o->alg_name, o->allreduce)) < 0) return PARSE_FAILED;
  if (o->bytes && !o->allreduce) {
    fprintf(stderr, "pat-schedule: --bytes is an all-reduce's (--coll allreduce)\n");
    return PARSE_FAILED;
  }
  if (o->allreduce && (o->summary || o->sizes)) {
    fprintf(stderr, "pat-schedule: --coll allreduce takes neither --summary nor --sizes\n");
    return PARSE_FAILED;
  }
  if (o->root >= o->P) {
    fprintf(stderr, "pat-schedule: --root must be in 0..%d\n", o->P - 1);
    return PARSE_FAILED;
  }
  return PARSED;
}

/* One non-negative number in units of tau per rank, from option `name`'s text. */
static int rank_list(const char *name, const char *text, int P, double *out) {
  cli_error err;
  int n = 0;
  if (cli_real_list(name, text, 0, 1e9, out, P, &n, &err)) {
    fprintf(stderr, "pat-schedule: %s\n", err.text);
    return -1;
  }
  if (n != P) {
    fprintf(stderr, "pat-schedule: %s needs %d non-negative numbers (units of tau), comma-separated\n", name, P);
    return -1;
  }
  return 0;
}

/* Each rank's arrival in tau: --arrivals, --random W (on a 0.01 tau grid), or 0. */
static int make_arrivals(const schedule_opts *o, double *arr) {
  const int P = o->P;
  if (o->arrivals) {
    if (rank_list("--arrivals", o->arrivals, P, arr)) return -1;
  } else if (o->random_w >= 0) {
    uint64_t x = o->seed * 0x9e3779b97f4a7c15ull + 1;
    for (int r = 0; r < P; r++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      arr[r] = floor((double)(x >> 11) / 9007199254740992.0 * o->random_w * 100 + 0.5) / 100;
    }
  }
  return 0;
}

/* --sizes: each block's transfer time in tau (t->size stays NULL without it). */
static int make_sizes(const schedule_opts *o, rank_times *t) {
  if (!o->sizes) return 0;
  t->size = calloc(o->P, sizeof *t->size);
  return t->size ? rank_list("--sizes", o->sizes, o->P, t->size) : -1;
}

static int rank_times_alloc(rank_times *t, int P) {
  t->size = NULL;
  t->arr = calloc(P, sizeof *t->arr), t->f = calloc(P, sizeof *t->f), t->e = calloc(P, sizeof *t->e);
  t->fr = calloc(P, sizeof *t->fr), t->er = calloc(P, sizeof *t->er), t->elb = calloc(P, sizeof *t->elb);
  t->fg = calloc(P, sizeof *t->fg), t->fgr = calloc(P, sizeof *t->fgr);
  return t->arr && t->f && t->e && t->fr && t->er && t->elb && t->fg && t->fgr ? 0 : -1;
}

static void rank_times_free(rank_times *t) {
  free(t->arr), free(t->f), free(t->e), free(t->fr), free(t->er), free(t->elb), free(t->fg), free(t->fgr);
  free(t->size);
}

static int replay(const pat_sched *s, const int *node, const double *arr, const double *size, double *e, double *f,
                  int *fg, double *ebar) {
  pat_model_params mp;
  pat_model_params_init(&mp, 0.0, 1.0); /* alpha = 0, beta * block = 1 tau */
  mp.node = node;                       /* a node's ranks share its link; shared memory costs as the link */
  mp.shared_links = node != NULL;
  if (node && (s->flags & PAT_SCHED_REDUCE)) { /* an all-reduce's: shared memory 10x the link */
    mp.dflt.has_intra = 1;
    mp.dflt.intra.alpha = 0.0;
    mp.dflt.intra.beta = 0.1;
  }
  pat_model_result r;
  memset(&r, 0, sizeof r);
  r.e = e;
  r.f = f;
  r.fg_step = fg;
  int rc = size ? pat_model_replay_v(s, arr, &mp, size, &r) : pat_model_replay(s, arr, &mp, 1.0, &r);
  *ebar = r.ebar;
  return rc;
}

/* The schedule of o->alg and RING's for the arrivals in t->arr. */
static int build_schedules(const schedule_opts *o, const rank_times *t, pat_sched *s, pat_sched *ring) {
  int64_t *arr_ns = calloc(o->P, sizeof *arr_ns);
  if (!arr_ns) return -1;
  for (int r = 0; r < o->P; r++) arr_ns[r] = (int64_t)llround(t->arr[r] * TAU_NS);
  int predicted = o->arrivals || o->random_w >= 0;
  pat_build_args ba = {.P = o->P, .self = PAT_ALL_RANKS, .arrival = predicted ? arr_ns : NULL, .tau = TAU_NS,
                       .root = o->root, .node = o->node, .block_bytes = (int64_t)(o->bytes / (uint64_t)o->P)};
  int rc = o->allreduce ? pat_build_allreduce(o->alg, s, &ba) : pat_build(o->alg, s, &ba);
  if (rc)
    fprintf(stderr, "pat-schedule: building %s failed (%s)\n", o->alg_name, pat_status_string(rc));
  else if ((rc = o->allreduce ? pat_build_allreduce(PAT_ARED_RING, ring, &ba) : pat_build(PAT_ALG_RING, ring, &ba)))
    pat_sched_free(s);
  free(arr_ns);
  return rc ? -1 : 0;
}

static void print_heading(const schedule_opts *o, const pat_sched *s, const char *invalid, const double *arr,
                          const double *size) {
  if (o->allreduce)
    printf("all-reduce %s (%s): P = %d", alg_name(o), pat_allreduce_algorithms[o->alg].summary, o->P);
  else
    printf("%s (%s): P = %d", alg_name(o), pat_algorithms[o->alg].summary, o->P);
  if (!o->allreduce && pat_algorithms[o->alg].flags & PAT_ALGF_ROOTED) printf(", root %d", o->root);
  printf(", %d steps, %zu transfers%s%s\n", s->nsteps, s->nops / 2, s->flags & PAT_SCHED_PIECES ? ", pieces" : "",
         invalid ? "" : ", valid");
  if (invalid) printf("INVALID SCHEDULE: %s\n", invalid);
  printf("arrivals (tau):");
  for (int r = 0; r < o->P; r++) printf(" %g", arr[r]);
  if (size) {
    printf("\nblock sizes (tau):");
    for (int r = 0; r < o->P; r++) printf(" %g", size[r]);
  }
  printf("\n\n");
}

/* The text of one rank's ops at step t, from ops[*pos] on (and *pos past
 * them): the ops joined by blanks, led by '.' if it is background work
 * (before the rank's foreground step fg).  Returns its length. */
static int step_cell(char *cell, size_t size, int P, const pat_op *ops, size_t nops, size_t *pos, int t, int fg) {
  char buf[160];
  size_t k = 0;
  cell[0] = '\0';
  for (; *pos < nops && ops[*pos].step == t; (*pos)++) {
    if (k + 1 >= size) continue; /* full: the rest is cut */
    op_text(buf, sizeof buf, P, &ops[*pos]);
    k += snprintf(cell + k, size - k, "%s%s", k ? " " : (t < fg || fg < 0 ? "." : ""), buf);
  }
  return (int)k;
}

/* The table's longest cell, at least 6. */
static int table_width(const pat_sched *s, int P, const int *fg) {
  char cell[512];
  int width = 6;
  for (int r = 0; r < P; r++) {
    size_t n, pos = 0;
    const pat_op *ops = pat_sched_rank_ops(s, r, &n);
    while (pos < n) {
      int k = step_cell(cell, sizeof cell, P, ops, n, &pos, ops[pos].step, fg[r]);
      if (k > width) width = k;
    }
  }
  return width;
}

/* Whether any rank has ops at step t (from pos[] on); *pre: an arrival-aware pre-step. */
static int step_has_ops(const pat_sched *s, int P, const size_t *pos, int t, int *pre) {
  int any = 0;
  *pre = 0;
  for (int r = 0; r < P; r++) {
    size_t n;
    const pat_op *ops = pat_sched_rank_ops(s, r, &n);
    for (size_t i = pos[r]; i < n && ops[i].step == t; i++) {
      any = 1;
      if (ops[i].flags & PAT_OPF_PRESTEP) *pre = 1;
    }
  }
  return any;
}

static void print_table_row(const pat_sched *s, int P, const int *fg, size_t *pos, int t, int pre, int width) {
  char cell[512];
  printf("%4d %-4s", t, pre ? "pre" : "");
  for (int r = 0; r < P; r++) {
    size_t n;
    const pat_op *ops = pat_sched_rank_ops(s, r, &n);
    step_cell(cell, sizeof cell, P, ops, n, &pos[r], t, fg[r]);
    printf(" %-*s", width, cell);
  }
  printf("\n");
}

/* One line per step: every transfer as sender>receiver:blocks. */
static void print_list_row(const pat_sched *s, int P, const int *fg, size_t *pos, int t, int pre) {
  char buf[160];
  printf("step %4d%s:", t, pre ? " pre" : "");
  for (int r = 0; r < P; r++) {
    size_t n;
    const pat_op *ops = pat_sched_rank_ops(s, r, &n);
    for (; pos[r] < n && ops[pos[r]].step == t; pos[r]++) {
      const pat_op *op = &ops[pos[r]];
      if (op->kind == PAT_OP_RECV || op->kind == PAT_OP_SIGNAL_RECV) continue; /* listed with its send */
      op_text(buf, sizeof buf, P, op);
      const char *mark = (t < fg[r] || fg[r] < 0) ? "." : "";
      if (op->kind == PAT_OP_SIGNAL_SEND)
        printf("  %s%d>%d!", mark, r, op->peer);
      else
        printf("  %s%d>%d:%s", mark, r, op->peer, strchr(buf, ':') + 1);
    }
  }
  printf("\n");
}

/* The schedule, step by step: a step x rank table, or one line per step.
 * The table's columns are at most TABLE_CELL wide (a longer cell pushes the
 * rest of its row right), so by default it is used only when every cell
 * fits: not for a rank that posts many messages in a step (LNBC's root from
 * P = 10, DIRECT's windows). */
#define TABLE_CELL 40
static void print_schedule(const pat_sched *s, int P, const int *fg, int layout) {
  int width = layout == LAYOUT_LIST || (layout == LAYOUT_AUTO && P > 12) ? 0 : table_width(s, P, fg);
  int table = layout == LAYOUT_TABLE || (layout == LAYOUT_AUTO && P <= 12 && width <= TABLE_CELL);
  if (width > TABLE_CELL) width = TABLE_CELL;
  size_t *pos = calloc(P, sizeof *pos); /* per rank: its first op not yet shown */
  if (!pos) return;
  if (table) {
    char head[32];
    printf("%-9s", "step");
    for (int r = 0; r < P; r++) {
      snprintf(head, sizeof head, "rank %d", r);
      printf(" %-*s", width, head);
    }
    printf("\n");
  }
  for (int t = 0; t < s->nsteps; t++) {
    int pre;
    if (!step_has_ops(s, P, pos, t, &pre)) continue;
    if (table)
      print_table_row(s, P, fg, pos, t, pre, width);
    else
      print_list_row(s, P, fg, pos, t, pre);
  }
  free(pos);
  printf("\n");
}

static void print_times(const schedule_opts *o, const rank_times *t, double ebar, double ebar_ring, double elb_bar) {
  printf("%-6s %8s %10s %10s %10s %10s %10s\n", "rank", "arrival", "foregrnd", "exit", "e", "e RING", "e bound");
  for (int r = 0; r < o->P; r++) {
    char fgs[32];
    if (t->fg[r] < 0)
      snprintf(fgs, sizeof fgs, "-");
    else
      snprintf(fgs, sizeof fgs, "step %d", t->fg[r]);
    printf("%-6d %8.2f %10s %10.2f %10.2f %10.2f %10.2f\n", r, t->arr[r], fgs, t->f[r], t->e[r], t->er[r], t->elb[r]);
  }
  printf("mean e: %s %.3f tau, RING %.3f tau (%+.1f%%), lower bound %.3f tau\n", alg_name(o), ebar,
         ebar_ring, ebar_ring > 0 ? 100.0 * (ebar - ebar_ring) / ebar_ring : 0.0, elb_bar);
  if (o->allreduce)
    printf("(replayed with alpha = 0, gamma = 0 and one segment of the vector = 1 tau%s; RING: the all-reduce's ring)\n",
           o->node ? ", shared memory 10x the link" : "");
  else
    printf("(replayed with alpha = 0 and one block = 1 tau, or its --sizes; 'foregrnd' is the first step that\n"
           " sends the rank's own block: the steps before it run in the background thread)\n");
}

/* ---- --summary --------------------------------------------------------------------- */

typedef struct inter_msg {
  int step, from, to;
  double blocks;
} inter_msg;

static int by_step(const void *x, const void *y) {
  const inter_msg *p = x, *q = y;
  if (p->step != q->step) return p->step < q->step ? -1 : 1;
  return p->from != q->from ? p->from - q->from : p->to - q->to;
}

/* Node 0's ranks' ops, counted and its messages to other nodes listed; then mean e. */
static int summary(const schedule_opts *o, const rank_times *t) {
  const int P = o->P;
  pat_nodes map;
  if (pat_nodes_make(P, o->node, &map) != PAT_OK) return 1;
  int64_t *arr_ns = malloc((size_t)P * sizeof *arr_ns);
  if (!arr_ns) return 1;
  for (int r = 0; r < P; r++) arr_ns[r] = (int64_t)llround(t->arr[r] * TAU_NS);
  const int predicted = o->arrivals || o->random_w >= 0;
  /* blocks of one byte, as the prediction below sees them (so both cut HRELAY's blocks alike) */
  pat_build_args ba = {.P = P, .arrival = predicted ? arr_ns : NULL, .tau = TAU_NS, .root = o->root,
                       .block_bytes = 1, .node = o->node, .nodes = &map};
  size_t send_in = 0, send_out = 0, recv_in = 0, recv_out = 0, most = 0, nmsg = 0, cap = 0;
  double blocks_out = 0, blocks_in = 0;
  int steps = 0;
  inter_msg *msg = NULL;
  for (int i = map.start[0]; i < map.start[1]; i++) {
    const int r = map.member[i];
    pat_sched s;
    ba.self = r;
    if (pat_build(o->alg, &s, &ba)) {
      fprintf(stderr, "pat-schedule: building %s for rank %d failed\n", o->alg_name, r);
      return 1;
    }
    size_t n;
    const pat_op *ops = pat_sched_rank_ops(&s, r, &n);
    most = n > most ? n : most;
    for (size_t j = 0; j < n; j++) {
      const int send = ops[j].kind == PAT_OP_SEND || ops[j].kind == PAT_OP_SIGNAL_SEND;
      const int across = map.of[ops[j].peer] != 0;
      const double b = pat_model_op_blocks(&ops[j]);
      if (ops[j].step + 1 > steps) steps = ops[j].step + 1;
      if (send && !across) send_in++;
      if (!send && !across) recv_in++;
      if (!send && across) recv_out++, blocks_in += b;
      if (send && across) {
        send_out++, blocks_out += b;
        if (nmsg == cap) {
          cap = cap ? 2 * cap : 1024;
          inter_msg *m = realloc(msg, cap * sizeof *m);
          if (!m) return 1;
          msg = m;
        }
        msg[nmsg++] = (inter_msg){ops[j].step, r, ops[j].peer, b};
      }
    }
    pat_sched_free(&s);
  }
  printf("%s: P = %d, %d nodes of %d ranks (node 0 built rank by rank: %d ranks)\n", pat_algorithms[o->alg].name, P,
         map.H, pat_nodes_size(&map, 0), pat_nodes_size(&map, 0));
  printf("node 0 per call: %zu messages inside the node; %zu sent to other nodes (%.6g blocks), %zu taken in from "
         "them (%.6g blocks); %d steps; at most %zu ops on one rank\n",
         send_in, send_out, blocks_out, recv_out, blocks_in, steps, most);
  printf("the whole schedule, H times node 0's where nodes are alike: about %.4g transfers\n",
         (double)map.H * (double)(send_in + send_out));
  qsort(msg, nmsg, sizeof *msg, by_step);
  printf("\nnode 0's messages to other nodes (the node-level program), in step order:\n");
  for (size_t j = 0; j < nmsg && j < 40; j++)
    printf("  step %6d: rank %4d > node %4d (rank %4d): %.4g blocks\n", msg[j].step, msg[j].from,
           map.of[msg[j].to], msg[j].to, msg[j].blocks);
  if (nmsg > 40) printf("  ... %zu more\n", nmsg - 40);
  /* mean e, in tau: alpha = 0, a block 1 tau on the link, shared memory as the link (as the replay above) */
  pat_model_params mp;
  pat_model_params_init(&mp, 0.0, 1.0);
  mp.node = o->node;
  mp.nodes = o->node ? &map : NULL;
  mp.shared_links = o->node != NULL;
  pat_select_cache c;
  pat_select_cache_init(&c);
  for (int r = 0; r < P; r++) arr_ns[r] = (int64_t)llround(t->arr[r] * 1e9); /* a tau is 1 s here */
  const int algs[2] = {o->alg, PAT_ALG_RING};
  double ebar[2] = {NAN, NAN};
  for (int i = 0; i < 2; i++) {
    pat_model_result res;
    memset(&res, 0, sizeof res);
    const int modelled = (algs[i] == PAT_ALG_HRING || algs[i] == PAT_ALG_HRELAY || algs[i] == PAT_ALG_RING) &&
                         map.regular;
    if ((modelled || P <= 512) &&
        pat_predict_nodes(&c, algs[i], o->root, P, arr_ns, PAT_NO_TIME, 1.0, &mp, 1, &res) == PAT_OK)
      ebar[i] = res.ebar;
  }
  pat_select_cache_free(&c);
  const double lb = o->node ? pat_lower_bound_nodes(P, t->arr, 1.0, o->node, NULL) : pat_lower_bound(P, t->arr, 1.0, NULL);
  char shown[2][32];
  for (int i = 0; i < 2; i++)
    snprintf(shown[i], sizeof shown[i], isnan(ebar[i]) ? "not predicted (P > 512)" : "%.4g", ebar[i]);
  printf("\nmean e (tau, as the selection predicts it): %s %s, RING %s, lower bound %.4g\n",
         pat_algorithms[o->alg].name, shown[0], shown[1], lb);
  printf("(alpha = 0, a block 1 tau on a link and inside a node alike; the node model is checked against the\n"
         " replay with shared memory 10x the link (unit.test_node_model); as slow as the link, its hand-outs\n"
         " weigh more and it departs further: -17%% for HRELAY at P = 256 in nodes of 16)\n");
  free(msg);
  free(arr_ns);
  pat_nodes_free(&map);
  return 0;
}

int main(int argc, char **argv) {
  schedule_opts o;
  int parsed = parse_options(argc, argv, &o);
  if (parsed != PARSED) return 2;
  rank_times t;
  if (rank_times_alloc(&t, o.P)) return 1;
  if (o.ppn > 1) { /* --ppn: nodes of ppn consecutive ranks */
    o.node = malloc((size_t)o.P * sizeof *o.node);
    if (!o.node) return 1;
    for (int r = 0; r < o.P; r++) o.node[r] = r / o.ppn;
  }
  if (make_arrivals(&o, t.arr) || make_sizes(&o, &t)) return 2;
  if (o.summary) {
    int rc = summary(&o, &t);
    rank_times_free(&t);
    free(o.node);
    return rc;
  }
  pat_sched s, ring;
  if (build_schedules(&o, &t, &s, &ring)) return 1;
  double ebar, ebar_ring;
  if (replay(&s, o.node, t.arr, t.size, t.e, t.f, t.fg, &ebar) ||
      replay(&ring, o.node, t.arr, t.size, t.er, t.fr, t.fgr, &ebar_ring)) {
    fprintf(stderr, "pat-schedule: the model cannot replay this schedule\n");
    return 1;
  }
  double elb_bar = o.allreduce ? pat_lower_bound_allreduce(o.P, t.arr, 1.0, o.node, t.elb)
                   : t.size    ? pat_lower_bound_v(o.P, t.arr, t.size, t.elb)
                   : o.node    ? pat_lower_bound_nodes(o.P, t.arr, 1.0, o.node, t.elb)
                               : pat_lower_bound(o.P, t.arr, 1.0, t.elb);
  char err[256];
  int bad = pat_sched_check(&s, 0, err, sizeof err);

  print_heading(&o, &s, bad ? err : NULL, t.arr, t.size);
  if (!o.times_only && s.nops) print_schedule(&s, o.P, t.fg, o.layout);
  print_times(&o, &t, ebar, ebar_ring, elb_bar);
  pat_sched_free(&s);
  pat_sched_free(&ring);
  rank_times_free(&t);
  return bad ? 1 : 0;
}
