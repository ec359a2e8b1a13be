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
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "model/model.h"

#define TAU_NS 1000000 /* the builders' tau: arrivals given in tau are scaled by this */

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
          "  --seed S          seed of --random (default 1)\n"
          "  --root R          root of rooted algorithms (lnbc, bslb); default 0\n"
          "  --table | --list  force the step x rank table, or one line per step\n"
          "                    (default: table up to 12 ranks)\n"
          "  --times           print only the elapsed times, not the schedule\n"
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
          "  pat-schedule --alg ard -P 8 --random 12\n");
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

static int parse_arrivals(const char *s, int P, double *a) {
  int n = 0;
  const char *p = s;
  while (*p) {
    char *end;
    double v = strtod(p, &end);
    if (end == p || n >= P || !isfinite(v) || v < 0 || v > 1e9) return -1;
    a[n++] = v;
    p = end;
    if (*p == ',') p++;
    else if (*p) return -1;
  }
  return n;
}

static int replay(const pat_sched *s, const double *arr, double *e, double *f, int *fg, double *ebar) {
  pat_model_params mp;
  pat_model_params_init(&mp, 0.0, 1.0); /* alpha = 0, beta * block = 1 tau */
  pat_model_result r;
  memset(&r, 0, sizeof r);
  r.e = e;
  r.f = f;
  r.fg_step = fg;
  int rc = pat_model_replay(s, arr, &mp, 1.0, &r);
  *ebar = r.ebar;
  return rc;
}

int main(int argc, char **argv) {
  const char *algname = NULL, *arrivals = NULL;
  int P = 0, root = 0, layout = 0 /* 0 auto, 1 table, 2 list */, times_only = 0;
  double random_w = -1;
  unsigned long long seed = 1;
  static const struct option lo[] = {{"alg", 1, 0, 'a'},   {"arrivals", 1, 0, 'A'}, {"root", 1, 0, 'r'},
                                     {"random", 1, 0, 'R'}, {"seed", 1, 0, 's'},     {"table", 0, 0, 'T'},
                                     {"list", 0, 0, 'L'},   {"times", 0, 0, 't'},    {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "P:h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': algname = optarg; break;
    case 'A': arrivals = optarg; break;
    case 'r': root = atoi(optarg); break;
    case 'R': random_w = atof(optarg); break;
    case 's': seed = strtoull(optarg, NULL, 0); break;
    case 'T': layout = 1; break;
    case 'L': layout = 2; break;
    case 't': times_only = 1; break;
    case 'P': P = atoi(optarg); break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (!algname || P < 1 || P > 4096 || optind < argc) {
    usage(stderr);
    return 2;
  }
  int alg = pat_alg_by_name(algname);
  if (alg < 0 || !pat_algorithms[alg].build) {
    fprintf(stderr, "pat-schedule: '%s' has no schedule to show; valid: ", algname);
    for (int i = 0; i < PAT_ALG_COUNT; i++)
      if (pat_algorithms[i].build) fprintf(stderr, "%s ", pat_algorithms[i].name);
    fprintf(stderr, "\n");
    return 2;
  }
  if (root < 0 || root >= P) {
    fprintf(stderr, "pat-schedule: --root must be in 0..%d\n", P - 1);
    return 2;
  }
  double *arr = calloc(P, sizeof *arr), *e = calloc(P, sizeof *e), *f = calloc(P, sizeof *f),
         *er = calloc(P, sizeof *er), *fr = calloc(P, sizeof *fr), *elb = calloc(P, sizeof *elb);
  int64_t *arr_ns = calloc(P, sizeof *arr_ns);
  int *fg = calloc(P, sizeof *fg), *fgr = calloc(P, sizeof *fgr);
  if (!arr || !e || !f || !er || !fr || !elb || !arr_ns || !fg || !fgr) return 1;
  if (arrivals) {
    int n = parse_arrivals(arrivals, P, arr);
    if (n != P) {
      fprintf(stderr, "pat-schedule: --arrivals needs %d non-negative numbers (units of tau), comma-separated\n", P);
      return 2;
    }
  } else if (random_w >= 0) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int r = 0; r < P; r++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      arr[r] = floor((double)(x >> 11) / 9007199254740992.0 * random_w * 100 + 0.5) / 100; /* 0.01 tau grid */
    }
  }
  for (int r = 0; r < P; r++) arr_ns[r] = (int64_t)llround(arr[r] * TAU_NS);

  pat_build_args ba = {P, PAT_ALL_RANKS, arrivals || random_w >= 0 ? arr_ns : NULL, TAU_NS, root, 0};
  pat_sched s, ring;
  int rc = pat_build(alg, &s, &ba);
  if (rc) {
    fprintf(stderr, "pat-schedule: building %s failed (%s)\n", algname, pat_status_string(rc));
    return 1;
  }
  if ((rc = pat_build(PAT_ALG_RING, &ring, &ba))) return 1;
  double ebar, ebar_ring;
  if (replay(&s, arr, e, f, fg, &ebar) || replay(&ring, arr, er, fr, fgr, &ebar_ring)) {
    fprintf(stderr, "pat-schedule: the model cannot replay this schedule\n");
    return 1;
  }
  double elb_bar = pat_lower_bound(P, arr, 1.0, elb);
  char err[256];
  int bad = pat_sched_check(&s, 0, err, sizeof err);

  printf("%s (%s): P = %d", pat_algorithms[alg].name, pat_algorithms[alg].summary, P);
  if (pat_algorithms[alg].flags & PAT_ALGF_ROOTED) printf(", root %d", root);
  printf(", %d steps, %zu transfers%s%s\n", s.nsteps, s.nops / 2, s.flags & PAT_SCHED_PIECES ? ", pieces" : "",
         bad ? "" : ", valid");
  if (bad) printf("INVALID SCHEDULE: %s\n", err);
  printf("arrivals (tau):");
  for (int r = 0; r < P; r++) printf(" %g", arr[r]);
  printf("\n\n");

  if (!times_only && s.nops) {
    /* per step, per rank: text of the rank's ops */
    int tbl = layout == 1 || (layout == 0 && P <= 12);
    size_t *pos = calloc(P, sizeof *pos);
    char cell[512], buf[160];
    int width = 6;
    if (tbl) { /* column width from the longest cell */
      for (int r = 0; r < P; r++) {
        size_t n;
        const pat_op *o = pat_sched_rank_ops(&s, r, &n);
        for (size_t i = 0; i < n;) {
          size_t k = 0;
          int stp = o[i].step;
          cell[0] = 0;
          for (; i < n && o[i].step == stp; i++) {
            op_text(buf, sizeof buf, P, &o[i]);
            k += snprintf(cell + k, sizeof cell - k, "%s%s", k ? " " : (o[i].step < fg[r] || fg[r] < 0 ? "." : ""),
                          buf);
          }
          if ((int)k > width) width = (int)k;
        }
      }
      if (width > 40) width = 40;
      printf("%-9s", "step");
      for (int r = 0; r < P; r++) {
        snprintf(buf, sizeof buf, "rank %d", r);
        printf(" %-*s", width, buf);
      }
      printf("\n");
    }
    for (int t = 0; t < s.nsteps; t++) {
      int any = 0, pre = 0;
      for (int r = 0; r < P; r++) {
        size_t n;
        const pat_op *o = pat_sched_rank_ops(&s, r, &n);
        for (size_t i = pos[r]; i < n && o[i].step == t; i++) {
          any = 1;
          if (o[i].flags & PAT_OPF_PRESTEP) pre = 1;
        }
      }
      if (!any) continue;
      if (tbl) {
        printf("%4d %-4s", t, pre ? "pre" : "");
        for (int r = 0; r < P; r++) {
          size_t n, k = 0;
          const pat_op *o = pat_sched_rank_ops(&s, r, &n);
          cell[0] = 0;
          for (; pos[r] < n && o[pos[r]].step == t; pos[r]++) {
            op_text(buf, sizeof buf, P, &o[pos[r]]);
            k += snprintf(cell + k, sizeof cell - k, "%s%s", k ? " " : (t < fg[r] || fg[r] < 0 ? "." : ""), buf);
          }
          printf(" %-*s", width, cell);
        }
        printf("\n");
      } else {
        printf("step %4d%s:", t, pre ? " pre" : "");
        for (int r = 0; r < P; r++) {
          size_t n;
          const pat_op *o = pat_sched_rank_ops(&s, r, &n);
          for (; pos[r] < n && o[pos[r]].step == t; pos[r]++) {
            const pat_op *op = &o[pos[r]];
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
    }
    free(pos);
    printf("\n");
  }

  /* per-rank summary */
  printf("%-6s %8s %10s %10s %10s %10s %10s\n", "rank", "arrival", "foregrnd", "exit", "e", "e RING", "e bound");
  for (int r = 0; r < P; r++) {
    char fgs[32];
    if (fg[r] < 0)
      snprintf(fgs, sizeof fgs, "-");
    else
      snprintf(fgs, sizeof fgs, "step %d", fg[r]);
    printf("%-6d %8.2f %10s %10.2f %10.2f %10.2f %10.2f\n", r, arr[r], fgs, f[r], e[r], er[r], elb[r]);
  }
  printf("mean e: %s %.3f tau, RING %.3f tau (%+.1f%%), lower bound %.3f tau\n", pat_algorithms[alg].name, ebar,
         ebar_ring, ebar_ring > 0 ? 100.0 * (ebar - ebar_ring) / ebar_ring : 0.0, elb_bar);
  printf("(replayed with alpha = 0 and one block = 1 tau; 'foregrnd' is the first step that sends the rank's own\n"
         " block: the steps before it run in the background thread)\n");
  pat_sched_free(&s);
  pat_sched_free(&ring);
  free(arr);
  free(e);
  free(f);
  free(er);
  free(fr);
  free(elb);
  free(arr_ns);
  free(fg);
  free(fgr);
  return bad ? 1 : 0;
}
