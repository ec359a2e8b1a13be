/*
 * pat-minibench: the mini-benchmark of docs/design.md §7 (Proficz 2021, Listing 4)
 * with a controlled process arrival pattern.  Shared declarations of its
 * small parts: clock (common clock and tau), data (random values, delays,
 * correctness check), stats (confidence interval, lower bound) and report
 * (summary and CSV).  Uses libpat's public API only.
 */
#ifndef PAT_MINIBENCH_H
#define PAT_MINIBENCH_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "pat.h"

#define MB_MAX_ALGS 32
#define MB_NAME 32
#define MB_MSG 320

/* ---- options ---------------------------------------------------------- */
/* --counts: how the P*count floats are shared among the ranks */
enum { MB_COUNTS_EQUAL, MB_COUNTS_ONEBIG, MB_COUNTS_RAMP, MB_COUNTS_RANDOM, MB_COUNTS_EQUALV, MB_COUNTS_KINDS };
/* the names of --counts, in that order */
extern const char *const mb_counts_names[MB_COUNTS_KINDS];
typedef struct mb_opts {
  long long n_req;        /* -N: floats in the gathered vector (total over ranks) */
  int iters, warmup;      /* measured and warm-up iterations per algorithm */
  int flat_iters;         /* iterations of the flat run that gives r' (-1: automatic) */
  double max_delay;       /* in ms, or in units of tau */
  int delay_in_tau;       /* --delay-unit tau */
  int busy;               /* --compute busy (else sleep) */
  int uninstrumented;     /* --instrument none: no PAT_ProcessingStart/Edge/End, libpat predicts from history
                             alone, and delays redrawn every call leave it nothing to learn */
  double base_ms;         /* constant part of each compute half */
  int overlap;            /* --overlap: the non-blocking call, posted at the arrival, then compute, then MPI_Wait */
  double overlap_ms;      /* ... compute between the post and the wait (ms) */
  int persistent;         /* --persistent: PAT_Allgather(v)_init once per algorithm, then PAT_Start and MPI_Wait
                             each iteration (with --overlap: compute between them); elb is the persistent bound */
  int allreduce;          /* --coll allreduce: PAT_Allreduce of the N floats (MPI_SUM), whose algorithm is
                             PAT_ALLREDUCE's (read at PAT_Init), so one per launch: algs[0] */
  int alg_given;          /* --alg was on the command line (--coll allreduce: it must name PAT_ALLREDUCE's) */
  unsigned long long seed;
  const char *csv;        /* append rows here (NULL: none) */
  const char *label;      /* free text copied to the CSV */
  const char *trace;      /* per-iteration, per-rank times go here (NULL: none) */
  int quiet;
  int strict;             /* exit 2 when an algorithm failed */
  double tau_us;          /* --tau-us: use this tau instead of measuring (<= 0: measure) */
  int tau_reps;           /* ping-pongs for tau */
  double skew_us;         /* --inject-skew-us: rank r's clock runs r*skew ahead (testing) */
  int blocked;            /* --order blocked: one algorithm after the other (else interleaved) */
  int also_chosen;        /* --also-chosen: then every algorithm auto ran that the list lacks */
  int counts;             /* --counts: MB_COUNTS_EQUAL (PAT_Allgather) or an unequal distribution (PAT_Allgatherv) */
  unsigned long long counts_seed; /* --counts random:SEED */
  int compute_by_size;    /* --compute-by-size: rank r's delay scaled by count_r / largest count */
  int late_rank;          /* --late-rank r: that rank's delay is maxDelay in every call (a straggler that stays:
                             a heavier share of the work); -1: every delay random */
  int straggler_only;     /* --straggler r: as --late-rank r, and the others' delay 0 (one slow process) */
  int fixed_delays;       /* --fixed-delays: each rank's delay drawn once and kept (a static imbalance) */
  int inject_error;       /* --inject-error: the last rank corrupts one received element (testing) */
  char inject_fail[MB_NAME]; /* --inject-fail alg: its 2nd measured call fails on the last rank (testing) */
  int nalgs;
  char algs[MB_MAX_ALGS][MB_NAME];
} mb_opts;

void mb_usage(FILE *out);
/* Returns 0, 1 for --help, or -1 with a message in err. */
int mb_parse_options(int argc, char **argv, mb_opts *o, char *err, size_t errlen);

/* ---- clock: local monotonic clock, offsets to rank 0, tau -------------- */
typedef struct mb_clock {
  double offset;     /* this rank's clock minus rank 0's (s) */
  double skew;       /* injected artificial skew (s), added to the local clock */
  double max_offset; /* rank 0: largest |offset| over ranks (s) */
  double min_rtt;    /* rank 0: smallest round trip seen (s) */
} mb_clock;

double mb_local_now(const mb_clock *c);  /* this rank's clock (s), skew included */
double mb_global_now(const mb_clock *c); /* on rank 0's clock (s) */
/* Estimate every rank's offset to rank 0 (min-RTT ping-pong, `samples` per rank). */
void mb_clock_sync(mb_clock *c, MPI_Comm comm, int samples);
/* One-way time (s) to move `bytes` between ranks 0 and peer: minimum over
 * `reps` ping-pongs after two warm-ups; the same value on every rank. */
double mb_measure_tau(MPI_Comm comm, long long bytes, int reps, int peer);
/* node[r] of every rank of comm: the lowest rank that shares memory with it
 * (MPI_COMM_TYPE_SHARED); returns the number of nodes. */
int mb_node_map(MPI_Comm comm, int *node);
/* Sleep or spin until local monotonic time `until` (s). */
void mb_compute_until(const mb_clock *c, double until, int busy);

/* ---- data: reproducible random values and delays ----------------------- */
/* Fill a block with rank `owner`'s values of iteration `iter`. */
void mb_fill(float *buf, long long count, unsigned long long seed, long long iter, int owner);
/* Count elements of the P blocks that differ (bitwise) from the expected ones. */
long long mb_check(const float *all, long long count, int P, unsigned long long seed, long long iter);
/* Uniform number in [0, 1] for (seed, rank, iter): the per-rank delay draw. */
double mb_uniform(unsigned long long seed, int rank, long long iter);
/* --counts: "equal", "onebig", "ramp", "random:SEED", "equalv" into out (the CSV's counts column). */
void mb_counts_name(int dist, unsigned long long seed, char *out, size_t len);
/* Rank r's count of distribution `dist` (MB_COUNTS_*) with a mean of `mean`
 * floats: weights (equal and equalv 1; onebig 4 for the last rank, 1 for the others;
 * ramp r+1; random uniform in [0.25, 1.75] from seed) scaled to a total of
 * P*mean and rounded to whole floats by largest remainder (ties to the lower
 * rank), so the counts sum to P*mean exactly; the same on every rank. */
void mb_block_counts(int dist, unsigned long long seed, int P, long long mean, long long *counts);
/* mb_check for blocks of unequal size: block b is counts[b] floats at all + displs[b]. */
long long mb_check_v(const float *all, const int *counts, const int *displs, int P, unsigned long long seed,
                     long long iter);
/* --coll allreduce: rank `owner`'s contribution of iteration `iter`, n whole
 * numbers in [1, mb_sum_span(P)], so that any order of adding P of them is
 * exact in a float and a missing or doubled contribution changes every sum. */
long long mb_sum_span(int P);
void mb_fill_sum(float *buf, long long n, int P, unsigned long long seed, long long iter, int owner);
/* Elements of the reduced vector that differ (bitwise) from the sum of the P
 * contributions; every element when the check cannot get its P-word state. */
long long mb_check_sum(const float *sum, long long n, int P, unsigned long long seed, long long iter);
/* Among the values of PAT_ALLREDUCE (libpat's settings), the canonical
 * (lower-case) one for a name, or NULL when it is none. */
const char *mb_allreduce_name(const char *name);

/* ---- stats ------------------------------------------------------------- */
/* Two-sided 95% Student t quantile for df degrees of freedom. */
double mb_t975(int df);
/* Mean, sample standard deviation, min and max of x[0..n). */
void mb_describe(const double *x, int n, double *mean, double *sd, double *min, double *max);
/* Median of x[0..n) (x is left unchanged). */
double mb_median(const double *x, int n);
/* Lower bound on the mean elapsed time for arrivals a[0..P) (docs/design.md §1):
 * rank i receives the P-1 other blocks through one port, block j no earlier
 * than a[j], each taking tau; e_i >= max(0, makespan - a[i]). */
double mb_lower_bound(const double *a, int P, double tau);
/* The same with a transfer time per block (unequal blocks): block j takes
 * tau[j]; served in release order, which still minimises each port's
 * makespan (libpat's pat_lower_bound_v, src/model, which the minibench does not link). */
double mb_lower_bound_v(const double *a, int P, const double *tau);
/* The two-level bound where ranks share nodes (node[r]: rank r's node id):
 * a node's one link takes in the blocks of every other node, block j no
 * earlier than a[j], each taking tau (measured between two nodes); shared
 * memory inside a node is taken as free.  With one rank a node it is
 * mb_lower_bound's. */
double mb_lower_bound_nodes(const double *a, int P, double tau, const int *node);
/* The bound of a persistent call (--persistent), whose blocks may move
 * before their receiver starts: e_i >= max(0, max_{j != i} (a[j] + tau_j) -
 * a[i]), tau_j = tau_v[j] (NULL: tau), tau being a block's one-way time
 * (alpha included), and e_i >= the receive port's bound of mb_lower_bound_v
 * (blocks released at their owners' starts).  libpat's
 * pat_lower_bound_persistent, src/model. */
double mb_lower_bound_persistent(const double *a, int P, double tau, const double *tau_v);
/* The all-reduce's bound (--coll allreduce; docs/design.md §1): rank i's
 * result depends on every element of every other rank j's vector, known
 * from a[j] only at j, so the vector's P shares of m/P bytes, tau each (tau
 * measured for one share), leave j's one send port after a[j]:
 * e_i >= max(0, max_{j != i} a[j] + P tau - a[i]).  With node (NULL: one
 * rank a node) a rank's vector need only leave its node: j ranges over the
 * other nodes' ranks, shared memory taken as free. */
double mb_lower_bound_allreduce(const double *a, int P, double tau, const int *node);

/* ---- one algorithm's run (rank 0 holds the results) -------------------- */
typedef struct mb_result {
  char alg[MB_NAME];
  const char *status;   /* "ok", "errors" (wrong results), "failed" (a call returned an error) */
  char message[MB_MSG];
  int iters;            /* measured iterations completed */
  int flat_iters;       /* iterations of the flat run (0: r' taken from the run itself) */
  double ebar, ebar_sd, ebar_ci, ebar_min, ebar_max, ebar_median, ebar_flat;
  double r, r_flat, omega, omega_max, elb, absorption;
  double late, late_max; /* compute phase ended after its deadline by (mean over ranks, mean / max) */
  long long errors;     /* wrong elements summed over ranks and iterations */
  long long failed_calls;
  long long chosen[MB_MAX_ALGS]; /* iterations whose PAT_LastAlg was each algorithm index */
  long long chosen_other;        /* ... or a name outside PAT_AlgName */
  int disagree;                  /* iterations where ranks reported different algorithms */
  /* PAT_GetStats differences over the run, reduced over ranks */
  long long calls, pred_calls;
  double pred_err_sum, pred_err_max, xwait_sum, xwait_max, bg_cpu;
} mb_result;

/* What the whole launch shares (rank 0's view). */
typedef struct mb_setup {
  int P, thread_level;
  long long n, count, block_bytes; /* count: floats per rank (the mean with --counts) */
  double tau, max_delay_s;           /* tau: one block of count floats, between two nodes where there are several */
  int *node;                         /* node of every rank: its lowest rank sharing memory with it (P) */
  int nodes;                         /* how many nodes */
  /* --counts other than equal (else all NULL): rank r's block is counts[r]
   * floats at displs[r] (packed in rank order), takes tau_v[r] = tau *
   * counts[r] / count; delay_scale[r] multiplies its delay (--compute-by-size, else 1) */
  int *counts, *displs;
  double *tau_v, *delay_scale;
  long long count_min, count_max; /* of counts (count when equal) */
  char counts_name[48];           /* mb_counts_name */
  mb_clock clock;
  char host[128], timestamp[32];
  FILE *trace; /* rank 0: --trace file, or NULL */
} mb_setup;

/* ---- runs: begin (collective: duplicates the communicator), steps, end --- */
typedef enum { MB_WARMUP, MB_FLAT, MB_MEASURED } mb_phase;
typedef struct mb_run mb_run;
/* iterations of the flat run for these options */
int mb_flat_iters(const mb_opts *o, const mb_setup *s);

/* mockups.c: the all-gather composed of other native collectives */
#define MB_MOCKUPS 4
int mb_mockup_index(const char *name); /* -1: not a mock-up */
const char *mb_mockup_name(int i);
size_t mb_mockup_scratch_bytes(int which, long long count, int P);
int mb_mockup_allgather(int which, const float *send, int count, float *recv, MPI_Comm comm, void *scratch);
/* Collective: the run's own duplicate of MPI_COMM_WORLD (in either order; run.c says why). */
mb_run *mb_run_begin(const mb_opts *o, const mb_setup *s, const char *alg, float *send, float *recv,
                     mb_result *res);
/* Iteration k of a phase; returns 1 once the algorithm has failed (then a no-op). */
int mb_run_step(mb_run *run, mb_phase phase, int k);
/* Reduce and summarise into the result (rank 0), free the run. */
void mb_run_end(mb_run *run);

/* ---- report ------------------------------------------------------------ */
void mb_print_header(const mb_opts *o, const mb_setup *s);
void mb_print_summary(const mb_opts *o, const mb_setup *s, const mb_result *res, int n);
/* Append one row per result; writes the header line into an empty file.
 * Returns 0, or -1 after printing why (cannot open, different columns). */
int mb_write_csv(const mb_opts *o, const mb_setup *s, const mb_result *res, int n);
/* "ring=18;bruck=2" */
void mb_chosen_string(const mb_result *r, char *out, size_t len);
const char *mb_csv_header(void);

#endif
