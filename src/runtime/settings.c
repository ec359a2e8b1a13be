/* The settings table and its strict parsers (see settings.h). */
#include "runtime/settings.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "algorithms/algorithms.h"
#include "algorithms/allreduce.h"
#include "runtime/errors.h"

static int reason(char *why, size_t len, const char *text) {
  snprintf(why, len, "%s", text);
  return -1;
}

/* A whole decimal integer in [lo, hi], nothing else. */
static int parse_int(const char *text, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* An integer setting in [lo, hi]; expected says what it must be when it is not. */
static int parse_ranged(const char *text, long long lo, long long hi, int *out, char *why, size_t len,
                        const char *expected) {
  long long v;
  if (parse_int(text, lo, hi, &v)) return reason(why, len, expected);
  *out = (int)v;
  return 0;
}

/* An integer setting in [lo, hi], or the word that stands for a value outside that range. */
static int parse_word_or_ranged(const char *text, const char *word, int word_value, long long lo, long long hi,
                                int *out, char *why, size_t len, const char *expected) {
  if (strcmp(text, word) == 0) {
    *out = word_value;
    return 0;
  }
  return parse_ranged(text, lo, hi, out, why, len, expected);
}

/* A path, with room left for the `reserve` characters the runtime appends to it. */
static int parse_path(const char *text, char *dst, size_t size, size_t reserve, char *why, size_t len) {
  if (strlen(text) + reserve >= size) return reason(why, len, "path too long");
  snprintf(dst, size, "%s", text);
  return 0;
}

static int parse_flag(const char *text, int *out, char *why, size_t len) {
  return parse_ranged(text, 0, 1, out, why, len, "not 0 or 1");
}

static int parse_alg(const char *text, pat_settings *s, char *why, size_t len) {
  int id = pat_alg_by_name(text);
  if (id == PAT_ALG_UNKNOWN) return reason(why, len, "not an algorithm");
  s->alg = id;
  return 0;
}
static int64_t key_alg(const pat_settings *s) { return s->alg; }

static int parse_allreduce(const char *text, pat_settings *s, char *why, size_t len) {
  if (strcmp(text, "auto") == 0 || strcmp(text, "native") == 0) {
    s->allreduce = text[0] == 'a' ? PAT_ALLREDUCE_AUTO : PAT_ALLREDUCE_NATIVE;
    return 0;
  }
  int id = pat_allreduce_by_name(text);
  if (id == PAT_ALG_UNKNOWN) return reason(why, len, "not an all-reduce algorithm");
  s->allreduce = id;
  return 0;
}
static int64_t key_allreduce(const pat_settings *s) { return s->allreduce; }
static int parse_reproducible(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_flag(text, &s->reproducible, why, len);
}
static int64_t key_reproducible(const pat_settings *s) { return s->reproducible; }

static int parse_exchange(const char *text, pat_settings *s, char *why, size_t len) {
  if (strcmp(text, "auto") == 0)
    s->exchange = PAT_EXCHANGE_AUTO;
  else if (strcmp(text, "always") == 0)
    s->exchange = PAT_EXCHANGE_ALWAYS;
  else
    return reason(why, len, "not auto or always");
  return 0;
}
static int64_t key_exchange(const pat_settings *s) { return s->exchange; }

static int parse_thread(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_flag(text, &s->thread, why, len);
}
static int64_t key_thread(const pat_settings *s) { return s->thread; }

static int parse_plan_ahead_auto(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_flag(text, &s->plan_ahead_auto, why, len);
}
static int64_t key_plan_ahead_auto(const pat_settings *s) { return s->plan_ahead_auto; }

#define CLOCK_SAMPLES_MAX 1000
static int parse_clock_samples(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_ranged(text, 1, CLOCK_SAMPLES_MAX, &s->clock_samples, why, len, "not an integer from 1 to 1000");
}
static int64_t key_clock_samples(const pat_settings *s) { return s->clock_samples; }

static int parse_channels(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_ranged(text, 1, 1024, &s->channels, why, len, "not an integer from 1 to 1024");
}

static int parse_one_node(const char *text, pat_settings *s, char *why, size_t len) {
  if (strcmp(text, "native") == 0)
    s->one_node_auto = 0;
  else if (strcmp(text, "auto") == 0)
    s->one_node_auto = 1;
  else
    return reason(why, len, "not native or auto");
  return 0;
}
static int64_t key_one_node(const pat_settings *s) { return s->one_node_auto; }

static int parse_node_size(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_ranged(text, 0, 1 << 20, &s->node_size, why, len, "not an integer from 0 to 1048576");
}
static int64_t key_node_size(const pat_settings *s) { return s->node_size; }

static int parse_model(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_path(text, s->model, sizeof s->model, 0, why, len);
}

static int parse_report(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_flag(text, &s->report, why, len);
}

static int parse_verbose(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_ranged(text, 0, 2, &s->verbose, why, len, "not 0, 1 or 2");
}

static int parse_bind(const char *text, pat_settings *s, char *why, size_t len) {
  long long pu;
  if (strcmp(text, "none") == 0)
    s->bind = PAT_BIND_NONE;
  else if (strcmp(text, "last") == 0)
    s->bind = PAT_BIND_LAST;
  else if (strcmp(text, "sibling") == 0)
    s->bind = PAT_BIND_SIBLING;
  else if (strncmp(text, "pu:", 3) == 0 && parse_int(text + 3, 0, INT_MAX, &pu) == 0) {
    s->bind = PAT_BIND_PU;
    s->bind_pu = (int)pu;
  } else
    return reason(why, len, "not a placement");
  return 0;
}

static int parse_trace(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_flag(text, &s->trace, why, len);
}

/* "ns,ns,...": every item a whole integer */
static int parse_clock_skew(const char *text, pat_settings *s, char *why, size_t len) {
  if (strlen(text) >= sizeof s->clock_skew) return reason(why, len, "list too long");
  char item[32];
  for (const char *p = text;;) {
    size_t n = strcspn(p, ",");
    long long v;
    if (n == 0 || n >= sizeof item) return reason(why, len, "not a comma-separated list of integers");
    memcpy(item, p, n);
    item[n] = '\0';
    if (parse_int(item, LLONG_MIN, LLONG_MAX, &v)) return reason(why, len, "not a comma-separated list of integers");
    if (p[n] == '\0') break;
    p += n + 1;
  }
  snprintf(s->clock_skew, sizeof s->clock_skew, "%s", text);
  return 0;
}

#define SEND_WINDOW_MAX 1024
static int parse_send_window(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_word_or_ranged(text, "schedule", -1, 0, SEND_WINDOW_MAX, &s->send_window, why, len,
                              "not schedule or an integer from 0 to 1024");
}
static int64_t key_send_window(const pat_settings *s) { return s->send_window; }

#define WAIT_NAP_MAX_US 1000
static int parse_wait_nap(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_word_or_ranged(text, "model", -1, 0, WAIT_NAP_MAX_US, &s->wait_nap_us, why, len,
                              "not model or an integer from 0 to 1000");
}

#define PACE_MAX_MBIT 10000000
static int parse_pace(const char *text, pat_settings *s, char *why, size_t len) {
  if (strcmp(text, "off") == 0) {
    s->pace_mbit = 0;
    return 0;
  }
  return parse_word_or_ranged(text, "model", -1, 1, PACE_MAX_MBIT, &s->pace_mbit, why, len,
                              "not model, off or an integer from 1 to 10000000");
}

/* the timeline and decision logs append ".<rank>" to their path */
static int parse_timeline(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_path(text, s->timeline, sizeof s->timeline, 16, why, len);
}

static int parse_decisions(const char *text, pat_settings *s, char *why, size_t len) {
  return parse_path(text, s->decisions, sizeof s->decisions, 16, why, len);
}

const pat_setting pat_setting_table[] = {
    {"PAT_ALG", "auto, native, ring, nex, rdb, bruck, lnbc, bdr, bslb, ard, direct, relay, hring, hrelay", "auto", PAT_SCOPE_JOB,
     "algorithm of every call; `auto` lets the cost model choose per call. `PAT_UseAlg(name)` overrides it at run time.",
     parse_alg, key_alg},
    {"PAT_ALLREDUCE", "auto, native, rdb, ring, rabenseifner, relay, hring, hrelay, slt", "auto", PAT_SCOPE_JOB,
     "algorithm of every all-reduce (`PAT_Allreduce`, `PAT_Iallreduce`, the drop-in's `MPI_Allreduce` and "
     "`MPI_Iallreduce`): one of libpat's schedules, run for predefined ops on intra-communicators of several "
     "processes with the background thread (other calls are the MPI library's own); `native` is the MPI library's "
     "own all-reduce; `relay` is arrival-aware (the last rank of the previous call owns nothing); `hring` has two "
     "levels for ranks that share nodes; `hrelay` too, arrival-aware between the nodes (the node of the previous "
     "call's last rank owns nothing); `slt` is Proficz's sorted linear tree (a chain in the previous call's order "
     "of arrival); `auto` measures "
     "MPI's own against libpat's ring (hring where ranks share nodes), Rabenseifner (not where ranks share nodes) "
     "and relay (hrelay where ranks share nodes) schedules per communicator "
     "and vector size (from 128 KiB, on communicators that span several nodes) and keeps the fastest, the same on "
     "every rank (`src/decide/allreduce_choice.h`).",
     parse_allreduce, key_allreduce},
    {"PAT_REPRODUCIBLE", "0, 1", "0", PAT_SCOPE_JOB,
     "`1`: every all-reduce's result is the same, bit for bit, run after run whatever the ranks' arrivals and "
     "timings (for the same process count, vector, datatype and op). Under `PAT_ALLREDUCE=auto` MPI's own "
     "all-reduce runs (auto's choice by timing could change the algorithm, and with it the order in which "
     "floating-point values are added); under `relay`, `hrelay` and `slt` no order of arrival is predicted (rank "
     "order: the last rank is P - 1); `ring`, `rabenseifner` and `rdb` are reproducible already. Its cost: "
     "docs/usage.md, All-reduce.",
     parse_reproducible, key_reproducible},
    {"PAT_EXCHANGE", "auto, always", "auto", PAT_SCOPE_JOB,
     "with `PAT_ALG=auto`: `auto` exchanges arrivals only where arrival-awareness can pay (per call site: "
     "imbalance found by an exchange, probes now and then, never for blocks too small); `always` before every "
     "call (to measure what the exchange costs).",
     parse_exchange, key_exchange},
    {"PAT_THREAD", "0, 1", "1", PAT_SCOPE_JOB,
     "`0` runs without the background thread (arrival-aware algorithms entirely in the foreground).", parse_thread,
     key_thread},
    {"PAT_ONE_NODE", "native, auto", "native", PAT_SCOPE_JOB,
     "with `PAT_ALG=auto`, on a communicator whose ranks all share one node, with or without `PAT_MODEL`: "
     "`native` runs the MPI library's own all-gather without exchanges (and, when the whole job is on one node, "
     "without the background thread or MPI_THREAD_MULTIPLE, and each such call goes straight to MPI unless "
     "`PAT_REPORT` is on), because on shared memory the call is bound by the last arrival and little is left "
     "for arrival-awareness to hide, while deciding costs more than a small block's whole call "
     "(BENCHMARKS.md); `auto` bets there as on a network.",
     parse_one_node, key_one_node},
    {"PAT_NODE_SIZE", "0 to 1048576", "0", PAT_SCOPE_JOB,
     "the nodes libpat sees: `0` those of the MPI library (ranks that share memory, MPI_COMM_TYPE_SHARED); `k` "
     "cuts each of them into nodes of k consecutive ranks (by their rank in it; the last may be smaller), so that "
     "the hierarchical algorithms (`hring`, `hrelay`), auto's node rules and the cost model's shared links can be "
     "exercised and tested on one machine. A communicator's node map is its ranks' world nodes.",
     parse_node_size, key_node_size},
    {"PAT_PLAN_AHEAD_AUTO", "0, 1", "1", PAT_SCOPE_JOB,
     "`1` lets `auto` keep RELAY at a site that ran it, planned from history as each call ends, so that its "
     "receives are posted before the last rank's edge (docs/guardrail.md); `0` plans every call at the edges, "
     "which made auto markedly slower under imbalance on the emulated cluster (BENCHMARKS.md).",
     parse_plan_ahead_auto, key_plan_ahead_auto},
    {"PAT_CLOCK_SAMPLES", "1 to 1000", "20", PAT_SCOPE_JOB,
     "ping-pongs per rank, at least, with the rank that gives it the common clock (a binomial tree on world rank 0) "
     "at `PAT_Init`; up to 16 times as many while the offset is known less well than +-100 us (a descheduled "
     "rank).", parse_clock_samples,
     key_clock_samples},
    {"PAT_CHANNELS", "1 to 1024", "64", PAT_SCOPE_RANK,
     "libpat's channels: duplicates of `MPI_COMM_WORLD` made at `PAT_Init` (besides them libpat makes a "
     "communicator only in a persistent call's set-up, its copy, and where no channel is free, below: "
     "docs/design.md). A communicator's blocking all-gathers take two, its non-blocking "
     "ones one, from its first such call until the application frees it and its calls are done. Where a rank "
     "finds none free, that communicator's blocking calls make two duplicates of it at their first call instead "
     "(on every rank; one message), and its non-blocking calls fail with `MPI_ERR_OTHER`, with a message.",
     parse_channels, NULL},
    {"PAT_MODEL", "a file path", "unset", PAT_SCOPE_ROOT,
     "cost-model file (`pat-calibrate` + `pat-fit`) that `auto` selects with and that gives tau; unset: a ping-pong "
     "estimate made at `PAT_Init`. A bad file makes `PAT_Init` fail with `file:line: what`.",
     parse_model, NULL},
    {"PAT_REPORT", "0, 1", "1 if PAT_VERBOSE is 2, else 0", PAT_SCOPE_ROOT,
     "at `PAT_Finalize`, world rank 0 prints one line per call site (see *Unmodified programs*), and one per "
     "schedule of the non-blocking and persistent calls (calls, mean and largest time from post or start to "
     "completion).", parse_report, NULL},
    {"PAT_VERBOSE", "0, 1, 2", "0", PAT_SCOPE_RANK,
     "`1` prints every error and placement on stderr (and, under libpat_mpi, that libpat is active); `2` also the "
     "report.",
     parse_verbose, NULL},
    {"PAT_BIND", "none, pu:N, last, sibling", "none", PAT_SCOPE_RANK,
     "where the background thread runs: left alone; on hwloc logical PU N; on the last PU of the process's cpuset; on "
     "a hyperthread sibling of its first PU. A placement that cannot be made is reported and skipped.",
     parse_bind, NULL},
    {"PAT_TRACE", "0, 1", "0", PAT_SCOPE_RANK, "debugging: print every message the executor posts, cancels or drains.",
     parse_trace, NULL},
    {"PAT_SEND_WINDOW", "schedule, 0 to 1024", "schedule", PAT_SCOPE_JOB,
     "how schedules run (schedule.h): `schedule` as each algorithm builds them; `0` every one in lockstep (step by "
     "step); `n` every one as a data flow with n sends in flight per rank (to measure or test a window).",
     parse_send_window, key_send_window},
    {"PAT_WAIT_NAP", "model, 0 to 1000", "model", PAT_SCOPE_RANK,
     "how the foreground waits for a schedule's messages (runtime/wait_nap.h): `model` sleeps 1/16 of the "
     "model's time of the rank's smallest message between tests (at most 50 us, none under 10 us; 50 us where its "
     "node has more ranks than it has CPUs), leaving the CPU "
     "to the application's other threads and, on the emulated cluster, to the network; `0` waits in MPI "
     "(spinning); `n` sleeps n us.  A blocking all-reduce on libpat's schedules waits so too: spinning where the "
     "node has no more ranks than CPUs (as MPI's own does), 50 us naps where it has more, `n` us naps when set.",
     parse_wait_nap, NULL},
    {"PAT_PACE", "model, off, 1 to 10000000", "model", PAT_SCOPE_RANK,
     "the rate (Mbit/s) of this host's link, at which data-flow schedules pace the sends that forward other "
     "ranks' data to other nodes (`src/exec/flow.c`), so that a rank's own block does not queue behind them, and "
     "every send of a data-flow all-reduce to another node (a persistent call's rounds forward unpaced); `model` "
     "takes it, "
     "on a job of more than one node, from the model file's link line (`pat-calibrate` measures it) or, without a "
     "model file, from PAT_Init's ping-pong of world ranks 0 and 1 if they are on different nodes; none "
     "otherwise; `off` never paces.",
     parse_pace, NULL},
    {"PAT_TIMELINE", "a file path prefix", "unset", PAT_SCOPE_RANK,
     "record every executed call's per-op timeline (post and completion of each message on the common clock, "
     "background or foreground) into PREFIX.RANK (world rank), one line per op; `bench/timeline/timeline.py` "
     "prints it beside the model's replay.  Non-blocking calls of libpat's classic schedules: a line per call "
     "(post, the background thread's start and end, the application's wait or test) and their op lines.  "
     "Persistent calls, a line per start and rank: what it ran (relay, direct, another schedule or mpi-own), "
     "its start, completion and, if the program calls PAT_Waited after its wait (pat-minibench "
     "does), the application's; a round run on the queue is a non-blocking call's lines too, its ops from "
     "the run started ahead of it where there was one.  `bench/timeline/round.py` prints a round.",
     parse_timeline, NULL},
    {"PAT_DECISIONS", "a file path prefix", "unset", PAT_SCOPE_RANK,
     "debugging auto: after every call of auto, every rank appends to PREFIX.RANK (world rank) what the call "
     "ran and took, why (an exchanged call's: chosen, kept from history or explored, and the regime its choice "
     "saw), its call site's state: mode, guardrail, the static choice's cost, the measured cost of every "
     "algorithm per regime, and its arrival and exit on the common clock (`src/runtime/decisions.h`; "
     "`bench/auto/decision_runs.py` condenses one rank's, `bench/bfs/critical_path.py` a call's last rank "
     "out from every rank's).",
     parse_decisions, NULL},
    {"PAT_TEST_CLOCK_SKEW", "ns,ns,... (one per world rank)", "unset", PAT_SCOPE_RANK,
     "tests only: adds a skew to each world rank's clock to prove the offset correction.", parse_clock_skew, NULL},
};
const int pat_setting_count = (int)(sizeof pat_setting_table / sizeof pat_setting_table[0]);

int pat_settings_defer_one_node(const pat_settings *s) {
  return s->alg == PAT_ALG_AUTO && s->exchange == PAT_EXCHANGE_AUTO && !s->one_node_auto && s->allreduce < 0;
}

const char *pat_thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

static void defaults(pat_settings *s) {
  memset(s, 0, sizeof *s);
  s->alg = PAT_ALG_AUTO;
  s->allreduce = PAT_ALLREDUCE_AUTO;
  s->thread = 1;
  s->clock_samples = 20;
  s->channels = 64;
  s->report = -1;
  s->bind = PAT_BIND_NONE;
  s->send_window = -1;
  s->wait_nap_us = -1;
  s->pace_mbit = -1;
  s->plan_ahead_auto = 1;
}

int pat_settings_read(pat_settings *s, char *err, size_t errlen) {
  defaults(s);
  int rc = 0;
  for (int i = 0; i < pat_setting_count && rc == 0; i++) {
    const pat_setting *st = &pat_setting_table[i];
    const char *text = getenv(st->name);
    if (!text || !*text) continue;
    char why[128];
    if (st->parse(text, s, why, sizeof why)) {
      snprintf(err, errlen, "%s=%.200s: %s; valid: %s", st->name, text, why, st->values);
      rc = -1;
    }
  }
  if (s->report < 0) s->report = s->verbose >= 2;
  return rc;
}

int64_t pat_settings_clock_skew(const pat_settings *s, int world_rank) {
  const char *p = s->clock_skew;
  for (int r = 0; *p; r++) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (r == world_rank) return v;
    p = *end == ',' ? end + 1 : end;
  }
  return 0;
}

static const char *scope_text(int scope) {
  switch (scope) {
    case PAT_SCOPE_JOB: return "all ranks alike";
    case PAT_SCOPE_ROOT: return "world rank 0's";
    default: return "per rank";
  }
}

void pat_settings_markdown(FILE *out) {
  fprintf(out, "| variable | values | default | whose value | meaning |\n|---|---|---|---|---|\n");
  for (int i = 0; i < pat_setting_count; i++) {
    const pat_setting *st = &pat_setting_table[i];
    fprintf(out, "| `%s` | %s | %s | %s | %s |\n", st->name, st->values, st->dflt, scope_text(st->scope), st->meaning);
  }
}

void pat_settings_print(FILE *out, const char *indent) {
  for (int i = 0; i < pat_setting_count; i++) {
    const pat_setting *st = &pat_setting_table[i];
    const char *text = getenv(st->name);
    if (text && *text)
      fprintf(out, "%s%s=%s\n", indent, st->name, text);
    else
      fprintf(out, "%s%s (unset: %s)\n", indent, st->name, st->dflt);
  }
}

/*
 * Every rank reads its own environment, then all compare, in one
 * all-reduce that every rank makes whatever it read: a bad value on any rank,
 * or a JOB setting that differs between ranks, makes PAT_Init fail on every
 * rank alike (so no rank goes on alone into a collective the others skip).
 * The rank with the bad value prints why.
 */
int pat_settings_agree(const pat_settings *s, const char *local_error, int world_rank) {
  enum { MAXS = 16 };
  int64_t mine[MAXS], min[MAXS], max[MAXS];
  int n = 0;
  mine[n++] = local_error[0] != 0; /* slot 0: this rank could not read its settings */
  for (int i = 0; i < pat_setting_count && n < MAXS; i++)
    if (pat_setting_table[i].scope == PAT_SCOPE_JOB)
      mine[n++] = local_error[0] ? 0 : pat_setting_table[i].value_key(s);
  int rc = PMPI_Allreduce(mine, min, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(mine, max, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Init: cannot compare settings between ranks");
  if (local_error[0]) {
    fprintf(stderr, "libpat: %s\n", local_error);
    return pat_fail(MPI_ERR_ARG, "PAT_Init: %s", local_error);
  }
  if (max[0]) return pat_fail(MPI_ERR_ARG, "PAT_Init: a setting is invalid on another rank (that rank says which)");
  char differ[256] = "";
  for (int i = 0, k = 1; i < pat_setting_count && k < n; i++) {
    if (pat_setting_table[i].scope != PAT_SCOPE_JOB) continue;
    size_t used = strlen(differ);
    if (min[k] != max[k])
      snprintf(differ + used, sizeof differ - used, "%s%s", used ? ", " : "", pat_setting_table[i].name);
    k++;
  }
  if (differ[0]) {
    if (world_rank == 0) fprintf(stderr, "libpat: %s must be the same on every rank, and is not\n", differ);
    return pat_fail(MPI_ERR_ARG, "PAT_Init: %s must be the same on every rank, and is not", differ);
  }
  return MPI_SUCCESS;
}
