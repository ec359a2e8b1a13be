/* Command line of pat-minibench (every rank parses the same arguments). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mb.h"

void mb_usage(FILE *out) {
  fprintf(out,
          "usage: mpirun -np P pat-minibench [options]\n"
          "  -N n                floats in the gathered vector, total over the P ranks (default 128K);\n"
          "                      suffixes K, M, G (x1024); each rank contributes floor(n/P) floats and\n"
          "                      the remainder is dropped (reported as N != N_requested)\n"
          "  --iters k           measured iterations per algorithm (default 20)\n"
          "  --warmup k          warm-up iterations per algorithm, not measured (default 2)\n"
          "  --flat-iters k      iterations of the flat run (max delay 0) that gives r' for the\n"
          "                      absorption; default max(5, iters/4) when --max-delay > 0, and none\n"
          "                      when it is 0 (the run is flat: r' = r); 0 disables (A not reported)\n"
          "  --max-delay d       per-rank random delay drawn uniformly in [0, d] (default 10)\n"
          "  --delay-unit ms|tau unit of --max-delay (default ms); tau = one block's one-way time\n"
          "  --alg list          comma list of algorithms (names of PAT_AlgName, auto, native) or\n"
          "                      'all' (every algorithm, then auto); default all.  Every algorithm\n"
          "                      sees the same data and the same delay sequence.  A name given\n"
          "                      twice runs twice (the second labelled name#2): a noise control.\n"
          "                      mock-gather-bcast, mock-alltoall, mock-allreduce, mock-allgatherv:\n"
          "                      the all-gather composed of native collectives (guidelines; not in 'all')\n"
          "  --order interleaved|blocked  interleaved (default): iteration k of every algorithm,\n"
          "                      then k+1, so all see the same minutes of machine load;\n"
          "                      blocked: all iterations of one algorithm, then the next\n"
          "  --compute sleep|busy  how compute is emulated (default sleep, as in the paper)\n"
          "  --base-ms t         constant part of each compute half (default 100): each half lasts\n"
          "                      base + delay/2, as in the paper's Listing 4\n"
          "  --seed s            seed of data and delays (default 1)\n"
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

static int parse_count(const char *s, long long *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (end == s) return -1;
  if (*end == 'k' || *end == 'K') v *= 1024LL, end++;
  else if (*end == 'm' || *end == 'M') v *= 1024LL * 1024, end++;
  else if (*end == 'g' || *end == 'G') v *= 1024LL * 1024 * 1024, end++;
  if (*end != '\0') return -1;
  *out = v;
  return 0;
}

static int parse_int(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < -1000000000L || v > 1000000000L) return -1;
  *out = (int)v;
  return 0;
}

static int parse_double(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end != '\0') return -1;
  *out = v;
  return 0;
}

static int known_alg(const char *name) {
  if (strcasecmp(name, "auto") == 0 || mb_mockup_index(name) >= 0) return 1;
  for (int i = 0; i < PAT_AlgCount(); i++)
    if (strcasecmp(name, PAT_AlgName(i)) == 0) return 1;
  return 0;
}

static int add_alg(mb_opts *o, const char *name, char *err, size_t errlen) {
  if (o->nalgs >= MB_MAX_ALGS) {
    snprintf(err, errlen, "too many algorithms (at most %d)", MB_MAX_ALGS);
    return -1;
  }
  snprintf(o->algs[o->nalgs++], MB_NAME, "%.*s", MB_NAME - 1, name);
  return 0;
}

static int parse_algs(mb_opts *o, const char *list, char *err, size_t errlen) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", list);
  o->nalgs = 0;
  for (char *tok = buf, *next; tok && *tok; tok = next) {
    next = strchr(tok, ',');
    if (next) *next++ = '\0';
    if (*tok == '\0') continue;
    if (strcasecmp(tok, "all") == 0) {
      for (int i = 0; i < PAT_AlgCount(); i++)
        if (add_alg(o, PAT_AlgName(i), err, errlen)) return -1;
      if (add_alg(o, "auto", err, errlen)) return -1;
      continue;
    }
    if (!known_alg(tok)) {
      int n = snprintf(err, errlen, "unknown algorithm '%s'; valid: all, auto", tok);
      for (int i = 0; i < PAT_AlgCount() && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, ", %s", PAT_AlgName(i));
      for (int i = 0; i < MB_MOCKUPS && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, ", %s", mb_mockup_name(i));
      return -1;
    }
    for (char *c = tok; *c; c++)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    /* a repeated name runs again as a twin, labelled name#2, name#3...: the spread
     * between twins shows the noise of the machine */
    int seen = 0;
    for (int i = 0; i < o->nalgs; i++) {
      size_t n = strcspn(o->algs[i], "#");
      seen += strlen(tok) == n && strncmp(o->algs[i], tok, n) == 0;
    }
    if (seen > 0) {
      char twin[MB_NAME];
      snprintf(twin, sizeof twin, "%.20s#%d", tok, seen + 1);
      if (add_alg(o, twin, err, errlen)) return -1;
    } else if (add_alg(o, tok, err, errlen)) {
      return -1;
    }
  }
  if (o->nalgs == 0) {
    snprintf(err, errlen, "--alg: empty list");
    return -1;
  }
  return 0;
}

int mb_parse_options(int argc, char **argv, mb_opts *o, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  o->n_req = 128 * 1024;
  o->iters = 20;
  o->warmup = 2;
  o->flat_iters = -1;
  o->max_delay = 10;
  o->base_ms = 100;
  o->seed = 1;
  o->tau_reps = 10;
  o->label = "";
  const char *algs = "all";
  for (int i = 1; i < argc; i++) {
    char name[64];
    const char *arg = argv[i], *val = NULL;
    const char *eq = strchr(arg, '=');
    if (strncmp(arg, "--", 2) == 0 && eq) {
      snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
      val = eq + 1;
    } else {
      snprintf(name, sizeof name, "%s", arg);
    }
    if (!strcmp(name, "-h") || !strcmp(name, "--help")) return 1;
    if (!strcmp(name, "--quiet")) {
      o->quiet = 1;
      continue;
    }
    if (!strcmp(name, "--inject-error")) {
      o->inject_error = 1;
      continue;
    }
    if (!strcmp(name, "--strict")) {
      o->strict = 1;
      continue;
    }
    if (!val) {
      if (i + 1 >= argc) {
        snprintf(err, errlen, "%s needs a value", name);
        return -1;
      }
      val = argv[++i];
    }
    int bad = 0;
    if (!strcmp(name, "-N") || !strcmp(name, "--N")) bad = parse_count(val, &o->n_req) || o->n_req < 1;
    else if (!strcmp(name, "--iters")) bad = parse_int(val, &o->iters) || o->iters < 1;
    else if (!strcmp(name, "--warmup")) bad = parse_int(val, &o->warmup) || o->warmup < 0;
    else if (!strcmp(name, "--flat-iters")) bad = parse_int(val, &o->flat_iters) || o->flat_iters < 0;
    else if (!strcmp(name, "--max-delay")) bad = parse_double(val, &o->max_delay) || !(o->max_delay >= 0);
    else if (!strcmp(name, "--delay-unit")) {
      if (!strcmp(val, "ms")) o->delay_in_tau = 0;
      else if (!strcmp(val, "tau")) o->delay_in_tau = 1;
      else bad = 1;
    } else if (!strcmp(name, "--alg")) algs = val;
    else if (!strcmp(name, "--compute")) {
      if (!strcmp(val, "sleep")) o->busy = 0;
      else if (!strcmp(val, "busy")) o->busy = 1;
      else bad = 1;
    } else if (!strcmp(name, "--order")) {
      if (!strcmp(val, "interleaved")) o->blocked = 0;
      else if (!strcmp(val, "blocked")) o->blocked = 1;
      else bad = 1;
    } else if (!strcmp(name, "--base-ms")) bad = parse_double(val, &o->base_ms) || !(o->base_ms >= 0);
    else if (!strcmp(name, "--seed")) {
      long long s;
      bad = parse_count(val, &s) || s < 0;
      o->seed = (unsigned long long)s;
    } else if (!strcmp(name, "--csv")) o->csv = val;
    else if (!strcmp(name, "--label")) o->label = val;
    else if (!strcmp(name, "--trace")) o->trace = val;
    else if (!strcmp(name, "--inject-fail")) snprintf(o->inject_fail, MB_NAME, "%.*s", MB_NAME - 1, val);
    else if (!strcmp(name, "--tau-us")) bad = parse_double(val, &o->tau_us) || !(o->tau_us > 0);
    else if (!strcmp(name, "--tau-reps")) bad = parse_int(val, &o->tau_reps) || o->tau_reps < 1;
    else if (!strcmp(name, "--inject-skew-us")) bad = parse_double(val, &o->skew_us);
    else {
      snprintf(err, errlen, "unknown option %s (see --help)", name);
      return -1;
    }
    if (bad) {
      snprintf(err, errlen, "bad value '%s' for %s (see --help)", val, name);
      return -1;
    }
  }
  if (strchr(o->label, ',') || strchr(o->label, '"') || strchr(o->label, '\n')) {
    snprintf(err, errlen, "--label must not contain commas, quotes or newlines");
    return -1;
  }
  return parse_algs(o, algs, err, errlen);
}
