/* Command line of pat-minibench (every rank parses the same arguments). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mb.h"
#include "tools/cli.h"

void mb_usage(FILE *out) {
  fprintf(out,
          "usage: mpirun -np P pat-minibench [options]\n"
          "  -N n                floats in the gathered vector, total over the P ranks (default 128K);\n"
          "                      suffixes k, m, g (x1024), either case; each rank contributes floor(n/P) floats and\n"
          "                      the remainder is dropped (reported as N != N_requested)\n"
          "  --counts d          how the blocks are sized: equal (default: floor(n/P) floats each,\n"
          "                      PAT_Allgather), or unequal blocks of the same total through\n"
          "                      PAT_Allgatherv (packed in rank order): onebig (the last rank's block\n"
          "                      4x the others'), ramp (rank r's block ~ r+1), random[:seed] (weights\n"
          "                      uniform in [0.25, 1.75], seed default 1), equalv (equal blocks through\n"
          "                      PAT_Allgatherv); rounded to whole floats,\n"
          "                      floor(n/P) on average; not with the mock-ups\n"
          "  --compute-by-size   rank r's random delay scaled by its block / the largest block, so\n"
          "                      the ranks with more data compute longer (with --counts)\n"
          "  --coll allgather|allreduce  the timed call (default allgather); allreduce: PAT_Allreduce\n"
          "                      of the N floats (P*floor(N/P), MPI_FLOAT, MPI_SUM; whole numbers, so the\n"
          "                      sums are exact and checked bit for bit) under PAT_ALLREDUCE's algorithm,\n"
          "                      which libpat reads at PAT_Init: one per launch, named in the alg column;\n"
          "                      --alg may only repeat that name (auto, native, rdb, ring, rabenseifner);\n"
          "                      tau is one share of N/P floats, elb the all-reduce's bound; not with\n"
          "                      --counts other than equal, --overlap, --persistent, --also-chosen\n"
          "  --iters k           measured iterations per algorithm (default 20)\n"
          "  --warmup k          warm-up iterations per algorithm, not measured (default 2)\n"
          "  --flat-iters k      iterations of the flat run (max delay 0) that gives r' for the\n"
          "                      absorption; default max(5, iters/4) when --max-delay > 0, and none\n"
          "                      when it is 0 (the run is flat: r' = r); 0 disables (A not reported)\n"
          "  --max-delay d       per-rank random delay drawn uniformly in [0, d] (default 10)\n"
          "  --delay-unit ms|tau unit of a bare --max-delay (default ms); tau = one block's one-way time;\n"
          "                      or give the unit with the value: --max-delay 500us, --max-delay 2tau\n"
          "  --alg list          comma list of algorithms (names of PAT_AlgName, auto, native) or\n"
          "                      'all' (every algorithm, then auto); default all.  Every algorithm\n"
          "                      sees the same data and the same delay sequence.  A name given\n"
          "                      twice runs twice (the second labelled name#2): a noise control.\n"
          "                      mock-gather-bcast, mock-alltoall, mock-allreduce, mock-allgatherv:\n"
          "                      the all-gather composed of native collectives (guidelines; not in 'all')\n"
          "                      (with --coll allreduce: at most PAT_ALLREDUCE's name)\n"
          "  --order interleaved|blocked  interleaved (default): iteration k of every algorithm,\n"
          "                      then k+1, so all see the same minutes of machine load;\n"
          "                      blocked: all iterations of one algorithm, then the next\n"
          "  --also-chosen       after the listed algorithms, every algorithm that auto ran in its\n"
          "                      measured calls and the list lacks, one after the other (the same\n"
          "                      data, delays and iterations), so that auto compares with what it ran\n"
          "  --compute sleep|busy  how compute is emulated (default sleep, as in the paper)\n"
          "  --instrument edges|none  edges (default): PAT_ProcessingStart, PAT_Edge(50),\n"
          "                      PAT_ProcessingEnd around the compute, as in the paper; none: no\n"
          "                      instrumentation, so libpat can only predict from history, and the\n"
          "                      per-call random delays make arrivals unpredictable (the guardrail's workload)\n"
          "  --overlap t         overlap mode: at its arrival each rank posts PAT_Iallgather(v) (native:\n"
          "                      the MPI library's own MPI_Iallgather(v)), computes for t more\n"
          "                      (sleep or busy, as --compute), then MPI_Wait; the exit is the wait's\n"
          "                      return (so e includes t); not with the mock-ups\n"
          "  --persistent        persistent mode: each algorithm's call is set up once\n"
          "                      (PAT_Allgather(v)_init on its communicator, under its setting:\n"
          "                      native, MPI's own MPI_Iallgather(v) per start; the others what\n"
          "                      PAT_Iallgather(v) runs, per start), then each iteration: the\n"
          "                      compute, PAT_Start at the arrival, (--overlap t: compute t), MPI_Wait;\n"
          "                      elb is then the persistent bound max_j!=i (a_j + tau_j) - a_i, whose\n"
          "                      blocks may move before their receiver starts; not with the mock-ups\n"
          "  --base-ms t         constant part of each compute half (default 100): each half lasts\n"
          "                      base + delay/2, as in the paper's Listing 4\n"
          "  --seed s            seed of data and delays (default 1)\n"
          "  --late-rank r       rank r's delay is the max delay in every call, the others' random (a\n"
          "                      straggler that stays, as a heavier share of the work makes one)\n"
          "  --straggler r       as --late-rank r, and every other rank's delay 0 (one slow process)\n"
          "  --fixed-delays      each rank's delay drawn once and kept in every call (a static load\n"
          "                      imbalance: the same order of arrival call after call)\n"
          "  --csv file          append one row per algorithm (header written to an empty file)\n"
          "  --label text        free text copied to the CSV's label column\n"
          "  --trace file        write every iteration's per-rank delay, arrival and exit (CSV)\n"
          "  --quiet             no start-up header and no progress lines (summary still printed)\n"
          "  --tau-us t          use this tau (us) instead of measuring it\n"
          "  --tau-reps k        ping-pongs for measuring tau (default 10)\n"
          "  --inject-skew-us s  testing: rank r's clock reads r*s us ahead (the offset\n"
          "                      estimate must remove it)\n"
          "  --inject-error      testing: after every call the last rank changes one received\n"
          "                      element, which the correctness check must count\n"
          "  --inject-fail alg   testing: the last rank reports an error from alg's second\n"
          "                      measured call (after running it), as a failing library would\n"
          "  --strict            exit with status 2 when an algorithm failed\n"
          "An algorithm whose call returns an error is reported (status 'failed', with the\n"
          "library's message) and the run continues with the next one.\n"
          "Exit status: 0 no wrong result (failed algorithms are in the report); 1 some result\n"
          "was wrong (correctness errors); 2 an algorithm failed and --strict was given;\n"
          "3 bad usage or set-up failure.\n");
}

enum { OPT_TAKEN = 0, OPT_BAD = -1, OPT_OTHER = 1 }; /* what an option group made of the option */

/* The values of an option that are read once every option is known. */
typedef struct later {
  const char *algs, *max_delay;
} later;

static int flag_option(cli_args *a, mb_opts *o, cli_error *err) {
  if (cli_args_is(a, "--quiet")) o->quiet = 1;
  else if (cli_args_is(a, "--inject-error")) o->inject_error = 1;
  else if (cli_args_is(a, "--strict")) o->strict = 1;
  else if (cli_args_is(a, "--compute-by-size")) o->compute_by_size = 1;
  else if (cli_args_is(a, "--also-chosen")) o->also_chosen = 1;
  else if (cli_args_is(a, "--persistent")) o->persistent = 1;
  else if (cli_args_is(a, "--fixed-delays")) o->fixed_delays = 1;
  else return OPT_OTHER;
  return cli_args_flag(a, err);
}

/* An option whose value is one of `names`; *out its index. */
static int choice_option(cli_args *a, const char *what, const char *const *names, int *out, cli_error *err) {
  const char *v;
  return cli_args_text(a, &v, err) || cli_choice(a->opt, v, what, names, 2, out, err) ? OPT_BAD : OPT_TAKEN;
}

static int seed_option(cli_args *a, unsigned long long *out, cli_error *err) {
  uint64_t v;
  if (cli_args_count(a, 0, UINT64_MAX, &v, err)) return OPT_BAD;
  *out = v;
  return OPT_TAKEN;
}

static int length_option(cli_args *a, long long *out, cli_error *err) {
  uint64_t v;
  if (cli_args_count(a, 1, INT64_MAX, &v, err)) return OPT_BAD;
  *out = (long long)v;
  return OPT_TAKEN;
}

/* --counts equal|onebig|ramp|random[:SEED]|equalv */
static int counts_option(cli_args *a, mb_opts *o, cli_error *err) {
  const char *const *names = mb_counts_names;
  const char *v;
  char name[32];
  if (cli_args_text(a, &v, err)) return OPT_BAD;
  size_t n = strcspn(v, ":");
  snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), v);
  if (cli_choice(a->opt, name, "block distribution", names, MB_COUNTS_KINDS, &o->counts, err)) return OPT_BAD;
  o->counts_seed = 1;
  if (!v[n]) return OPT_TAKEN;
  if (o->counts != MB_COUNTS_RANDOM) {
    snprintf(err->text, sizeof err->text, "%s: only random takes a seed (random:SEED), not \"%s\"", a->opt, v);
    return OPT_BAD;
  }
  uint64_t seed;
  if (cli_count(a->opt, v + n + 1, 0, UINT64_MAX, &seed, err)) return OPT_BAD;
  o->counts_seed = seed;
  return OPT_TAKEN;
}

/* The options of the measurement: size, iterations, delays, compute. */
static int run_option(cli_args *a, mb_opts *o, later *l, cli_error *err) {
  static const char *const units[] = {"ms", "tau"}, *const computes[] = {"sleep", "busy"},
                           *const orders[] = {"interleaved", "blocked"}, *const instruments[] = {"edges", "none"},
                           *const colls[] = {"allgather", "allreduce"};
  if (cli_args_is(a, "-N|--N")) return length_option(a, &o->n_req, err);
  if (cli_args_is(a, "--counts")) return counts_option(a, o, err);
  if (cli_args_is(a, "--iters")) return cli_args_int(a, 1, 1000000000, &o->iters, err);
  if (cli_args_is(a, "--warmup")) return cli_args_int(a, 0, 1000000000, &o->warmup, err);
  if (cli_args_is(a, "--flat-iters")) return cli_args_int(a, 0, 1000000000, &o->flat_iters, err);
  if (cli_args_is(a, "--max-delay")) return cli_args_text(a, &l->max_delay, err);
  if (cli_args_is(a, "--delay-unit")) return choice_option(a, "delay unit", units, &o->delay_in_tau, err);
  if (cli_args_is(a, "--compute")) return choice_option(a, "compute mode", computes, &o->busy, err);
  if (cli_args_is(a, "--order")) return choice_option(a, "order", orders, &o->blocked, err);
  if (cli_args_is(a, "--instrument")) return choice_option(a, "instrumentation", instruments, &o->uninstrumented, err);
  if (cli_args_is(a, "--base-ms")) return cli_args_time(a, CLI_MS, &o->base_ms, NULL, err);
  if (cli_args_is(a, "--overlap")) {
    o->overlap = 1;
    return cli_args_time(a, CLI_MS, &o->overlap_ms, NULL, err);
  }
  if (cli_args_is(a, "--seed")) return seed_option(a, &o->seed, err);
  if (cli_args_is(a, "--late-rank")) return cli_args_int(a, 0, 1000000000, &o->late_rank, err);
  if (cli_args_is(a, "--straggler")) {
    o->straggler_only = 1;
    return cli_args_int(a, 0, 1000000000, &o->late_rank, err);
  }
  if (cli_args_is(a, "--alg")) return cli_args_text(a, &l->algs, err);
  if (cli_args_is(a, "--coll")) return choice_option(a, "collective", colls, &o->allreduce, err);
  return OPT_OTHER;
}

/* The options of the output, of tau and of the tests. */
static int other_option(cli_args *a, mb_opts *o, cli_error *err) {
  const char *v;
  if (cli_args_is(a, "--csv")) return cli_args_text(a, &o->csv, err);
  if (cli_args_is(a, "--label")) return cli_args_text(a, &o->label, err);
  if (cli_args_is(a, "--trace")) return cli_args_text(a, &o->trace, err);
  if (cli_args_is(a, "--tau-reps")) return cli_args_int(a, 1, 1000000000, &o->tau_reps, err);
  if (cli_args_is(a, "--inject-skew-us")) return cli_args_real(a, -INFINITY, INFINITY, &o->skew_us, err);
  if (cli_args_is(a, "--inject-fail")) {
    if (cli_args_text(a, &v, err)) return OPT_BAD;
    snprintf(o->inject_fail, MB_NAME, "%.*s", MB_NAME - 1, v);
    return OPT_TAKEN;
  }
  if (!cli_args_is(a, "--tau-us")) return OPT_OTHER;
  if (cli_args_time(a, CLI_US, &o->tau_us, NULL, err)) return OPT_BAD;
  if (o->tau_us > 0) return OPT_TAKEN;
  snprintf(err->text, sizeof err->text, "--tau-us must be > 0 (leave it out to measure tau)");
  return OPT_BAD;
}

/* --max-delay: a bare number is in --delay-unit; with a unit (500us, 2tau) the
 * unit given wins.  A bare number needs no conversion: ms and tau alike. */
static int resolve_max_delay(mb_opts *o, const char *text, cli_error *err) {
  int in_tau;
  if (cli_time("--max-delay", text, CLI_MS, &o->max_delay, &in_tau, err)) return -1;
  size_t n = strlen(text);
  if (in_tau || isalpha((unsigned char)text[n - 1])) o->delay_in_tau = in_tau;
  return 0;
}

static int add_alg(mb_opts *o, const char *name, cli_error *err) {
  if (o->nalgs >= MB_MAX_ALGS) {
    snprintf(err->text, sizeof err->text, "too many algorithms (at most %d)", MB_MAX_ALGS);
    return -1;
  }
  snprintf(o->algs[o->nalgs++], MB_NAME, "%.*s", MB_NAME - 1, name);
  return 0;
}

/* A repeated name runs again as a twin, labelled name#2, name#3...: the
 * spread between twins shows the noise of the machine. */
static int add_alg_or_twin(mb_opts *o, const char *name, cli_error *err) {
  int seen = 0;
  for (int i = 0; i < o->nalgs; i++) {
    size_t n = strcspn(o->algs[i], "#");
    seen += strlen(name) == n && strncmp(o->algs[i], name, n) == 0;
  }
  if (!seen) return add_alg(o, name, err);
  char twin[MB_NAME];
  snprintf(twin, sizeof twin, "%.20s#%d", name, seen + 1);
  return add_alg(o, twin, err);
}

/* --alg: names of PAT_AlgName, auto, the mock-ups, or all (every algorithm, then auto). */
static int parse_algs(mb_opts *o, const char *list, cli_error *err) {
  const char *names[2 + 64 + MB_MOCKUPS] = {"all", "auto"};
  int nnames = 2, ids[2 * MB_MAX_ALGS], n;
  for (int i = 0; i < PAT_AlgCount() && i < 64; i++) names[nnames++] = PAT_AlgName(i);
  for (int i = 0; i < MB_MOCKUPS; i++) names[nnames++] = mb_mockup_name(i);
  if (cli_choice_list("--alg", list, "algorithm", names, nnames, ids, 2 * MB_MAX_ALGS, &n, err)) return -1;
  o->nalgs = 0;
  for (int k = 0; k < n; k++) {
    if (ids[k] != 0) {
      if (add_alg_or_twin(o, names[ids[k]], err)) return -1;
      continue;
    }
    for (int i = 0; i < PAT_AlgCount(); i++)
      if (add_alg(o, PAT_AlgName(i), err)) return -1;
    if (add_alg(o, "auto", err)) return -1;
  }
  return 0;
}

/* --coll allreduce: the options that only make sense for the all-gather,
 * and --alg, which can only name the algorithm PAT_ALLREDUCE gives every
 * all-reduce of the launch (main.c compares the two once PAT_Init has made
 * every rank's setting the same).  Refused rather than ignored: a row whose
 * alg column names an algorithm that did not run would mislead. */
static int check_allreduce(mb_opts *o, const char *list, cli_error *err) {
  const char *refused = o->counts != MB_COUNTS_EQUAL ? "--counts other than equal (the all-gather's blocks)"
                        : o->overlap                 ? "--overlap (PAT_Iallgather)"
                        : o->persistent              ? "--persistent (PAT_Allgather_init)"
                        : o->also_chosen             ? "--also-chosen (the all-gather's auto)"
                                                     : NULL;
  if (refused) {
    snprintf(err->text, sizeof err->text, "--coll allreduce does not take %s", refused);
    return -1;
  }
  o->nalgs = 1;
  o->algs[0][0] = '\0'; /* PAT_ALLREDUCE's, once PAT_Init has read it */
  if (!list) return 0;
  const char *one = "auto, native, rdb, ring, rabenseifner";
  if (strchr(list, ',') || strcasecmp(list, "all") == 0) {
    snprintf(err->text, sizeof err->text,
             "--coll allreduce runs one algorithm per launch, PAT_ALLREDUCE's (libpat reads it once, at PAT_Init), "
             "so --alg cannot list several (\"%.60s\"): set PAT_ALLREDUCE to one of %s, and give --alg that name or "
             "leave it out",
             list, one);
    return -1;
  }
  const char *name = mb_allreduce_name(list);
  if (!name) {
    int gather = mb_mockup_index(list) >= 0;
    for (int i = 0; i < PAT_AlgCount(); i++) gather |= strcasecmp(list, PAT_AlgName(i)) == 0;
    snprintf(err->text, sizeof err->text, "--coll allreduce: --alg %.40s is %s; the all-reduce's are %s (PAT_ALLREDUCE)",
             list, gather ? "an all-gather algorithm" : "no algorithm", one);
    return -1;
  }
  snprintf(o->algs[0], MB_NAME, "%s", name);
  o->alg_given = 1;
  return 0;
}

static void set_defaults(mb_opts *o) {
  memset(o, 0, sizeof *o);
  o->n_req = 128 * 1024;
  o->iters = 20;
  o->warmup = 2;
  o->flat_iters = -1;
  o->max_delay = 10;
  o->late_rank = -1;
  o->base_ms = 100;
  o->seed = 1;
  o->counts = MB_COUNTS_EQUAL;
  o->counts_seed = 1;
  o->tau_reps = 10;
  o->label = "";
}

static int parse_all(int argc, char **argv, mb_opts *o, cli_error *err) {
  later l = {NULL, NULL};
  cli_args a;
  cli_args_init(&a, argc, argv);
  while (cli_args_next(&a)) {
    if (cli_args_is(&a, "-h|--help")) return 1;
    int rc = flag_option(&a, o, err);
    if (rc == OPT_OTHER) rc = run_option(&a, o, &l, err);
    if (rc == OPT_OTHER) rc = other_option(&a, o, err);
    if (rc == OPT_OTHER) rc = cli_args_unknown(&a, err);
    if (rc != OPT_TAKEN) return -1;
  }
  if (l.max_delay && resolve_max_delay(o, l.max_delay, err)) return -1;
  if (strchr(o->label, ',') || strchr(o->label, '"') || strchr(o->label, '\n')) {
    snprintf(err->text, sizeof err->text, "--label must not contain commas, quotes or newlines");
    return -1;
  }
  if (o->allreduce) return check_allreduce(o, l.algs, err);
  o->alg_given = l.algs != NULL;
  if (parse_algs(o, l.algs ? l.algs : "all", err)) return -1;
  for (int i = 0; i < o->nalgs && o->counts != MB_COUNTS_EQUAL; i++) {
    char base[MB_NAME], dist[48];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(o->algs[i], "#"), o->algs[i]); /* a twin: name#2 */
    if (mb_mockup_index(base) >= 0) {
      mb_counts_name(o->counts, o->counts_seed, dist, sizeof dist);
      snprintf(err->text, sizeof err->text,
               "--counts %s: the mock-ups gather equal blocks only (%s); use --counts equal or drop it", dist,
               o->algs[i]);
      return -1;
    }
  }
  return 0;
}

int mb_parse_options(int argc, char **argv, mb_opts *o, char *err, size_t errlen) {
  cli_error e = {""};
  set_defaults(o);
  int rc = parse_all(argc, argv, o, &e);
  if (rc < 0) snprintf(err, errlen, "%s", e.text);
  return rc;
}
