/*
 * pat-minibench: elapsed time of libpat's all-gather algorithms (or, with
 * --coll allreduce, of its all-reduce) under a controlled, reproducible
 * process arrival pattern (docs/design.md §7; Proficz 2021, Listing 4).
 * See bench/README.md for the options, the metrics and the CSV columns.
 *
 *   mpirun -np 4 pat-minibench -N 512K --max-delay 10 --alg ring,nex,native
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mb.h"

static void progress(const mb_opts *o, int rank, const mb_result *r) {
  if (rank != 0 || o->quiet) return;
  if (!strcmp(r->status, "failed")) fprintf(stderr, "[pat-minibench] %s: FAILED: %s\n", r->alg, r->message);
  else fprintf(stderr, "[pat-minibench] %s: ebar %.1f us, %lld errors\n", r->alg, 1e6 * r->ebar, r->errors);
}

static int finish(int code) {
  int up = 0;
  PAT_Initialized(&up);
  if (up) PAT_Finalize();
  MPI_Finalize();
  return code;
}

/* --counts other than equal: every rank's count, displacement, tau and
 * delay scale (the same vector on every rank).  Returns 0, or 3 (after
 * saying why) when a count or a displacement does not fit an int. */
static int make_counts(const mb_opts *o, int rank, mb_setup *s) {
  int P = s->P;
  long long *c = malloc(sizeof *c * (size_t)P);
  s->counts = malloc(sizeof(int) * (size_t)P);
  s->displs = malloc(sizeof(int) * (size_t)P);
  s->tau_v = malloc(sizeof(double) * (size_t)P);
  s->delay_scale = malloc(sizeof(double) * (size_t)P);
  if (!c || !s->counts || !s->displs || !s->tau_v || !s->delay_scale) {
    if (rank == 0) fprintf(stderr, "pat-minibench: out of memory\n");
    free(c);
    return 3;
  }
  mb_block_counts(o->counts, o->counts_seed, P, s->count, c);
  s->count_min = s->count_max = c[0];
  for (int r = 0; r < P; r++) {
    if (c[r] < s->count_min) s->count_min = c[r];
    if (c[r] > s->count_max) s->count_max = c[r];
  }
  if (s->count_max > INT_MAX || s->n - c[P - 1] > INT_MAX) {
    if (rank == 0)
      fprintf(stderr, "pat-minibench: --counts %s at -N %lld: a block of %lld floats or a displacement of %lld does"
              " not fit an int\n", s->counts_name, o->n_req, s->count_max, s->n - c[P - 1]);
    free(c);
    return 3;
  }
  long long at = 0;
  for (int r = 0; r < P; r++) {
    s->counts[r] = (int)c[r];
    s->displs[r] = (int)at;
    at += c[r];
    s->delay_scale[r] = o->compute_by_size && s->count_max > 0 ? (double)c[r] / (double)s->count_max : 1.0;
  }
  free(c);
  return 0;
}

/* --coll allreduce: the algorithm is PAT_ALLREDUCE's (unset or empty: auto),
 * which PAT_Init has read and found the same on every rank, so every rank
 * takes the same branch here.  An --alg that names another is refused: its
 * row would name an algorithm that did not run.  Returns 0, or 3 after
 * saying why. */
static int allreduce_alg(mb_opts *o, int rank) {
  const char *env = getenv("PAT_ALLREDUCE");
  const char *set = env && *env ? env : "auto", *name = mb_allreduce_name(set);
  char canon[MB_NAME];
  snprintf(canon, sizeof canon, "%.*s", MB_NAME - 1, name ? name : set); /* a newer libpat's name: as set */
  if (o->alg_given && strcmp(o->algs[0], canon) != 0) {
    if (rank == 0)
      fprintf(stderr,
              "pat-minibench: --coll allreduce --alg %s, but PAT_ALLREDUCE is %s%s: libpat runs every all-reduce "
              "of the launch with PAT_ALLREDUCE's algorithm (read at PAT_Init); set PAT_ALLREDUCE=%s\n",
              o->algs[0], canon, env && *env ? "" : " (unset)", o->algs[0]);
    return 3;
  }
  snprintf(o->algs[0], MB_NAME, "%s", canon);
  return 0;
}

/* What the launch shares: sizes, host, time stamp, common clock, tau.
 * Returns 0, or 3 (after saying why) when -N gives no usable block. */
static int make_setup(const mb_opts *o, int rank, int P, int provided, mb_setup *s) {
  memset(s, 0, sizeof *s);
  s->P = P;
  s->thread_level = provided;
  s->count = o->n_req / P;
  s->n = s->count * P;
  s->block_bytes = s->count * (long long)sizeof(float);
  if (s->count < 1 || s->count > 2147483647LL) {
    if (rank == 0)
      fprintf(stderr, "pat-minibench: -N %lld gives %lld floats per rank at P=%d (need 1 .. 2^31-1)\n", o->n_req,
              s->count, P);
    return 3;
  }
  if (o->allreduce && s->n > INT_MAX) {
    if (rank == 0)
      fprintf(stderr, "pat-minibench: --coll allreduce -N %lld: %lld floats do not fit PAT_Allreduce's int count\n",
              o->n_req, s->n);
    return 3;
  }
  s->count_min = s->count_max = s->count;
  mb_counts_name(o->counts, o->counts_seed, s->counts_name, sizeof s->counts_name);
  if (o->counts != MB_COUNTS_EQUAL && make_counts(o, rank, s)) return 3;
  gethostname(s->host, sizeof s->host - 1);
  for (char *p = s->host; *p; p++)
    if (*p == ',' || *p == '"') *p = '_';
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(s->timestamp, sizeof s->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  MPI_Bcast(s->timestamp, sizeof s->timestamp, MPI_CHAR, 0, MPI_COMM_WORLD);

  s->clock.skew = 1e-6 * o->skew_us * rank;
  mb_clock_sync(&s->clock, MPI_COMM_WORLD, 32);
  /* with nodes, tau is a block's time between two of them: the link every two-level bound is about */
  s->node = malloc(sizeof(int) * (size_t)P);
  if (!s->node) return 3;
  s->nodes = mb_node_map(MPI_COMM_WORLD, s->node);
  int peer = 1;
  while (peer < P && s->node[peer] == s->node[0]) peer++;
  if (peer == P) peer = 1;
  s->tau = o->tau_us > 0 ? 1e-6 * o->tau_us : mb_measure_tau(MPI_COMM_WORLD, s->block_bytes, o->tau_reps, peer);
  s->max_delay_s = o->delay_in_tau ? o->max_delay * s->tau : 1e-3 * o->max_delay;
  for (int r = 0; s->tau_v && r < P; r++) s->tau_v[r] = s->tau * (double)s->counts[r] / (double)s->count;
  return 0;
}

/* Rank 0: the --trace file, its header written when it is new. */
static void open_trace(const mb_opts *o, int rank, mb_setup *s) {
  if (rank != 0 || !o->trace) return;
  s->trace = fopen(o->trace, "a");
  if (s->trace && ftell(s->trace) == 0) fprintf(s->trace, "alg,phase,iter,rank,delay_ms,a_us,f_us,errors,late_us\n");
  if (!s->trace) fprintf(stderr, "pat-minibench: cannot open %s; no trace\n", o->trace);
}

/* --order blocked: every iteration of one algorithm, then the next (the
 * algorithms from..to-1 of the list).  In both orders the flat run
 * (balanced calls, only for r') comes after the measured iterations: before
 * them it taught an adaptive setting (auto) that the cell was balanced just
 * before its measured calls began (auto ran its static choice for the first
 * ~15 of 24 measured calls at N = 1M, maxDelay 100 ms on the emulated
 * cluster). */
static void run_blocked(const mb_opts *o, const mb_setup *s, float *send, float *recv, mb_result *res, int rank,
                        int from, int to) {
  int flat_n = mb_flat_iters(o, s);
  for (int i = from; i < to; i++) {
    mb_run *run = mb_run_begin(o, s, o->algs[i], send, recv, &res[i]);
    for (int k = 0; k < o->warmup; k++) mb_run_step(run, MB_WARMUP, k);
    for (int k = 0; k < o->iters; k++) mb_run_step(run, MB_MEASURED, k);
    for (int k = 0; k < flat_n; k++) mb_run_step(run, MB_FLAT, k);
    mb_run_end(run);
    progress(o, rank, &res[i]);
  }
}

/* name without a twin's #k equals base */
static int same_alg(const char *label, const char *base) {
  size_t n = strcspn(label, "#");
  return strlen(base) == n && strncmp(label, base, n) == 0;
}

/* --also-chosen: appends to the list every algorithm that an auto run (a
 * twin's too) chose in a measured call and that the list lacks, in
 * PAT_AlgName order.  Rank 0 alone holds the counts: its list goes to every
 * rank, so that all run the same ones. */
static void add_chosen(mb_opts *o, const mb_result *res, int rank) {
  if (rank == 0) {
    int listed = o->nalgs;
    for (int a = 0; a < PAT_AlgCount() && a < MB_MAX_ALGS && o->nalgs < MB_MAX_ALGS; a++) {
      int ran = 0, have = 0;
      for (int i = 0; i < listed; i++) {
        ran |= same_alg(o->algs[i], "auto") && res[i].chosen[a] > 0;
        have |= same_alg(o->algs[i], PAT_AlgName(a));
      }
      if (ran && !have) snprintf(o->algs[o->nalgs++], MB_NAME, "%s", PAT_AlgName(a));
    }
  }
  MPI_Bcast(&o->nalgs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(o->algs, (int)sizeof o->algs, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* --order interleaved: iteration k of every algorithm, then k+1, each on its
 * own communicator as in blocked order (run.c); a run that failed is
 * skipped from then on. */
static void run_interleaved(const mb_opts *o, const mb_setup *s, float *send, float *recv, mb_result *res,
                            int rank) {
  mb_run **runs = calloc((size_t)o->nalgs, sizeof *runs);
  if (!runs) MPI_Abort(MPI_COMM_WORLD, 3);
  for (int i = 0; i < o->nalgs; i++) runs[i] = mb_run_begin(o, s, o->algs[i], send, recv, &res[i]);
  const mb_phase phases[3] = {MB_WARMUP, MB_MEASURED, MB_FLAT};
  const int counts[3] = {o->warmup, o->iters, mb_flat_iters(o, s)};
  for (int p = 0; p < 3; p++)
    for (int k = 0; k < counts[p]; k++)
      for (int i = 0; i < o->nalgs; i++) mb_run_step(runs[i], phases[p], k);
  for (int i = 0; i < o->nalgs; i++) {
    mb_run_end(runs[i]);
    progress(o, rank, &res[i]);
  }
  free(runs);
}

/* Rank 0: summary and CSV; the exit status, the same on every rank. */
static int report(const mb_opts *o, const mb_setup *s, const mb_result *res, int rank) {
  int code = 0;
  if (rank == 0) {
    mb_print_summary(o, s, res, o->nalgs);
    if (o->csv && mb_write_csv(o, s, res, o->nalgs) != 0) code = 3;
    int any_errors = 0, any_failed = 0;
    for (int i = 0; i < o->nalgs; i++) {
      any_errors |= res[i].errors > 0;
      any_failed |= !strcmp(res[i].status, "failed");
    }
    if (any_errors) code = 1;
    else if (any_failed && o->strict && code == 0) code = 2;
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

int main(int argc, char **argv) {
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);

  static mb_opts o;
  char err[512] = "";
  int prc = mb_parse_options(argc, argv, &o, err, sizeof err);
  if (prc != 0) {
    if (rank == 0) {
      if (prc < 0) fprintf(stderr, "pat-minibench: %s\n", err);
      mb_usage(prc < 0 ? stderr : stdout);
    }
    return finish(prc < 0 ? 3 : 0);
  }
  int rc = PAT_Init();
  if (rc != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "pat-minibench: PAT_Init failed: %s\n", PAT_Error_string(rc));
    MPI_Finalize();
    return 3;
  }
  if (o.allreduce && allreduce_alg(&o, rank)) return finish(3);
  mb_setup s;
  if (make_setup(&o, rank, P, provided, &s)) return finish(3);

  /* the all-reduce's contribution is the whole vector, an all-gather's one block */
  long long send_n = o.allreduce ? s.n : s.count_max;
  float *send = malloc(sizeof(float) * (size_t)(send_n > 0 ? send_n : 1));
  float *recv = malloc(sizeof(float) * (size_t)s.n);
  mb_result *res = calloc(MB_MAX_ALGS, sizeof *res); /* room for --also-chosen's */
  int ok = send && recv && res, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    if (rank == 0) fprintf(stderr, "pat-minibench: cannot allocate %lld floats\n", s.n + s.count);
    return finish(3);
  }
  if (rank == 0 && !o.quiet) mb_print_header(&o, &s);
  open_trace(&o, rank, &s);
  if (o.blocked)
    run_blocked(&o, &s, send, recv, res, rank, 0, o.nalgs);
  else
    run_interleaved(&o, &s, send, recv, res, rank);
  if (o.also_chosen) {
    int listed = o.nalgs;
    add_chosen(&o, res, rank);
    run_blocked(&o, &s, send, recv, res, rank, listed, o.nalgs);
  }
  if (s.trace) fclose(s.trace);
  int code = report(&o, &s, res, rank);
  free(send);
  free(recv);
  free(res);
  free(s.counts);
  free(s.displs);
  free(s.tau_v);
  free(s.delay_scale);
  return finish(code);
}
