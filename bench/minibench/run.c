/*
 * One algorithm's run: warm-up, measured iterations, optional flat run
 * (for r').  Each iteration follows Listing 4 of Proficz 2021:
 *
 *   fresh data; delay d_i = U[0, maxDelay] from (seed, rank, iteration);
 *   barrier; barrier; PAT_ProcessingStart; compute base + d_i/2;
 *   PAT_Edge(50); compute base + d_i/2; PAT_ProcessingEnd;
 *   (--instrument none: the same without the three PAT_ calls)
 *   a_i = now; PAT_Allgather; f_i = now;   (rank 0's clock)
 *   (--counts other than equal: PAT_Allgatherv on the unequal blocks, packed
 *   in rank order; --compute-by-size scales d_i by count_i / largest count;
 *   --coll allreduce: PAT_Allreduce of the N floats, MPI_SUM)
 *   wait, asleep, until every rank has returned; check every element;
 *   gather (a_i, f_i, errors, algorithm) to rank 0.
 *
 * The wait is asleep (a nonblocking barrier tested every 50 us), and the
 * check comes after it, for the reason the compute phase sleeps: the
 * emulated cluster's hosts share the machine's cores, and a rank that
 * checked its data or spun in a blocking MPI call while others still
 * transfer took the CPU that carries their transfers (the check alone was
 * 6% of the CPU time in a 1M/100 ms run, perf).  On a real cluster a rank's
 * work after the call uses its own node's cores.
 *
 * Each algorithm runs on its own duplicate of MPI_COMM_WORLD, in either
 * order, so that auto's call site sees only auto's calls, as in a program
 * that runs it alone.  On one shared communicator (interleaved order until
 * 2026-11-26) auto learned from every other algorithm's calls at its site:
 * on the emulated cluster at 1M floats, maxDelay 100 ms, it ran NATIVE 12
 * of 12 calls and measured 185 ms against NATIVE's own 145 (issue 53).
 * PAT_PredictOn sends each compute phase's prediction to the run's
 * communicator, which libpat would otherwise give the one of the last call,
 * another algorithm's in interleaved order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mb.h"

#define TAG_MSG 903
#define NROW 5 /* per rank and iteration: a, f, wrong elements, algorithm, compute lateness */

/* iteration numbers of the three phases: disjoint streams of data and delays */
#define STREAM_MEASURED 0LL
#define STREAM_WARMUP (1LL << 40)
#define STREAM_FLAT (2LL << 40)

typedef struct mb_ctx {
  const mb_opts *o;
  const mb_setup *s;
  int rank, P;
  MPI_Comm comm; /* the algorithm's communicator */
  float *send, *recv;
  double *rows; /* rank 0: 4 values per rank */
  double *a;    /* rank 0: arrivals of one iteration */
  mb_result *res;
  FILE *trace; /* rank 0: per-iteration rows, or NULL */
  int mock;      /* a mock-up from mockups.c, or -1: PAT_Allgather */
  void *scratch; /* the mock-up's scratch */
  MPI_Request persistent; /* --persistent: the call set up on comm, or MPI_REQUEST_NULL */
} mb_ctx;

typedef struct mb_series {
  int n;
  double *ebar, *r, *omega, *elb, *late;
  double late_max;
} mb_series;

static int alg_index(const char *name) {
  for (int i = 0; i < PAT_AlgCount() && i < MB_MAX_ALGS; i++)
    if (strcasecmp(name, PAT_AlgName(i)) == 0) return i;
  return -1;
}

/* The PAT algorithm the last call on c ran; -1 for a mock-up (not libpat's)
 * and for the all-reduce, whose algorithm libpat does not name (PAT_LastAlg
 * is the all-gather's): the same on every rank, so no disagreement. */
static int ran_index(const mb_ctx *c) {
  return c->mock >= 0 || c->o->allreduce ? -1 : alg_index(PAT_LastAlg(c->comm));
}

#define MB_INJECTED (-12345) /* rc of an injected failure (--inject-fail) */

/* Agree on failure: every rank learns whether some rank's call failed, and
 * rank 0 gets the lowest failing rank's message. */
static int agree_failure(mb_ctx *c, int rc) {
  int mine = rc == MPI_SUCCESS ? c->P : c->rank, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == c->P) return 0;
  char msg[MB_MSG - 24] = "";
  if (c->rank == first)
    snprintf(msg, sizeof msg, "%s", rc == MB_INJECTED ? "injected failure (--inject-fail)" : PAT_Error_string(rc));
  if (first != 0) {
    if (c->rank == first) MPI_Send(msg, (int)sizeof msg, MPI_CHAR, 0, TAG_MSG, MPI_COMM_WORLD);
    if (c->rank == 0) MPI_Recv(msg, (int)sizeof msg, MPI_CHAR, first, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (c->rank == 0) {
    msg[sizeof msg - 1] = '\0';
    for (char *p = msg; *p; p++)
      if (*p == '"' || *p == '\n' || *p == '\r') *p = '\'';
    snprintf(c->res->message, sizeof c->res->message, "rank %d: %s", first, msg);
  }
  return 1;
}

/* Rank r's delay in iteration iter: U[0, maxDelay] (iteration 0's draw in
 * every one under --fixed-delays), scaled by its block (--compute-by-size
 * with --counts); maxDelay for --late-rank's (and 0 for the others under
 * --straggler); 0 in the flat run. */
static double delay_of(const mb_opts *o, const mb_setup *s, int r, long long iter, int delayed) {
  if (!delayed) return 0.0;
  double u = mb_uniform(o->seed, r, o->fixed_delays ? 0 : iter);
  double d = (r == o->late_rank ? 1.0 : o->straggler_only ? 0.0 : u) * s->max_delay_s;
  return s->delay_scale ? d * s->delay_scale[r] : d;
}

/* --overlap: post the non-blocking call, compute, wait. */
static int gather_overlapped(mb_ctx *c) {
  const mb_setup *s = c->s;
  MPI_Request req;
  int rc = s->counts ? PAT_Iallgatherv(c->send, s->counts[c->rank], MPI_FLOAT, c->recv, s->counts, s->displs,
                                       MPI_FLOAT, c->comm, &req)
                     : PAT_Iallgather(c->send, (int)s->count, MPI_FLOAT, c->recv, (int)s->count, MPI_FLOAT, c->comm,
                                      &req);
  if (rc != MPI_SUCCESS) return rc;
  mb_compute_until(&s->clock, mb_local_now(&s->clock) + 1e-3 * c->o->overlap_ms, c->o->busy);
  return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* --persistent: start the call set up in mb_run_begin, (compute,) wait. */
static int gather_persistent(mb_ctx *c) {
  int rc = PAT_Start(&c->persistent);
  if (rc != MPI_SUCCESS) return rc;
  if (c->o->overlap)
    mb_compute_until(&c->s->clock, mb_local_now(&c->s->clock) + 1e-3 * c->o->overlap_ms, c->o->busy);
  rc = MPI_Wait(&c->persistent, MPI_STATUS_IGNORE);
  PAT_Waited(c->persistent); /* PAT_TIMELINE: the round's completion as this rank saw it */
  return rc;
}

/* The call under test: PAT_Allgather, PAT_Allgatherv (--counts), their
 * non-blocking forms (--overlap), a persistent one (--persistent), a
 * mock-up, or PAT_Allreduce (--coll allreduce). */
static int gather(mb_ctx *c) {
  const mb_setup *s = c->s;
  if (c->o->allreduce) return PAT_Allreduce(c->send, c->recv, (int)s->n, MPI_FLOAT, MPI_SUM, c->comm);
  if (c->mock >= 0) return mb_mockup_allgather(c->mock, c->send, (int)s->count, c->recv, c->comm, c->scratch);
  if (c->persistent != MPI_REQUEST_NULL) return gather_persistent(c);
  if (c->o->overlap) return gather_overlapped(c);
  if (s->counts)
    return PAT_Allgatherv(c->send, s->counts[c->rank], MPI_FLOAT, c->recv, s->counts, s->displs, MPI_FLOAT, c->comm);
  return PAT_Allgather(c->send, (int)s->count, MPI_FLOAT, c->recv, (int)s->count, MPI_FLOAT, c->comm);
}

/* Until every rank of world got here, without spinning (see the top). */
static void wait_all_asleep(void) {
  MPI_Request req;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS) return;
  for (;;) {
    int done = 0;
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done) return;
    struct timespec nap = {0, 50000};
    nanosleep(&nap, NULL);
  }
}

/* One iteration; returns 1 if the call failed on some rank. */
static int iteration(mb_ctx *c, long long iter, int delayed, mb_series *out) {
  const mb_opts *o = c->o;
  const mb_setup *s = c->s;
  if (o->allreduce) mb_fill_sum(c->send, s->n, c->P, o->seed, iter, c->rank);
  else mb_fill(c->send, s->counts ? s->counts[c->rank] : s->count, o->seed, iter, c->rank);
  memset(c->recv, 0xFF, sizeof(float) * (size_t)s->n); /* NaN poison: a missing block is an error */
  double delay = delay_of(o, s, c->rank, iter, delayed);
  double half = 1e-3 * o->base_ms + 0.5 * delay;

  PAT_PredictOn(c->comm); /* not collective: mb_run_begin named it first */
  MPI_Barrier(MPI_COMM_WORLD); /* double barrier, as in the paper */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = mb_local_now(&s->clock);
  int edges = !o->uninstrumented;
  if (edges) PAT_ProcessingStart();
  mb_compute_until(&s->clock, t0 + half, o->busy);
  if (edges) PAT_Edge(50.0);
  mb_compute_until(&s->clock, t0 + 2 * half, o->busy);
  double late = mb_local_now(&s->clock) - (t0 + 2 * half); /* > 0: woke up late (CPU contention) */
  if (edges) PAT_ProcessingEnd();
  double a = mb_global_now(&s->clock);
  int rc = gather(c);
  double f = mb_global_now(&s->clock);
  wait_all_asleep();

  if (o->inject_fail[0] && !strcmp(o->inject_fail, c->res->alg) && iter == STREAM_MEASURED + 1 &&
      c->rank == c->P - 1)
    rc = MB_INJECTED; /* testing */
  double row[NROW] = {a, f, 0, ran_index(c), late};
  if (rc == MPI_SUCCESS && o->inject_error && c->rank == c->P - 1) c->recv[0] += 1.0f; /* testing */
  if (rc == MPI_SUCCESS)
    row[2] = (double)(o->allreduce ? mb_check_sum(c->recv, s->n, c->P, o->seed, iter)
                      : s->counts  ? mb_check_v(c->recv, s->counts, s->displs, c->P, o->seed, iter)
                                   : mb_check(c->recv, s->count, c->P, o->seed, iter));
  if (agree_failure(c, rc)) {
    if (c->rank == 0) c->res->failed_calls++;
    return 1;
  }
  MPI_Gather(row, NROW, MPI_DOUBLE, c->rows, NROW, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (c->rank != 0) return 0;

  double sum_e = 0, min_a = INFINITY, max_a = -INFINITY, max_f = -INFINITY, sum_late = 0, max_late = 0;
  int mine = (int)c->rows[3], differ = 0;
  for (int i = 0; i < c->P; i++) {
    const double *r = &c->rows[NROW * i];
    c->a[i] = r[0];
    sum_e += r[1] - r[0];
    if (r[0] < min_a) min_a = r[0];
    if (r[0] > max_a) max_a = r[0];
    if (r[1] > max_f) max_f = r[1];
    c->res->errors += (long long)r[2];
    differ |= (int)r[3] != mine;
    sum_late += r[4];
    if (r[4] > max_late) max_late = r[4];
  }
  if (c->trace) {
    const char *phase = iter >= STREAM_FLAT ? "flat" : iter >= STREAM_WARMUP ? "warmup" : "measured";
    long long k = iter % STREAM_WARMUP;
    for (int i = 0; i < c->P; i++) {
      double d = delay_of(o, s, i, iter, delayed);
      fprintf(c->trace, "%s,%s,%lld,%d,%.3f,%.3f,%.3f,%.0f,%.3f\n", c->res->alg, phase, k, i, 1e3 * d,
              1e6 * (c->rows[NROW * i] - min_a), 1e6 * (c->rows[NROW * i + 1] - min_a), c->rows[NROW * i + 2],
              1e6 * c->rows[NROW * i + 4]);
    }
  }
  c->res->disagree += differ; /* ranks must agree on the algorithm (warm-up and flat runs too) */
  if (out) {
    int k = out->n++;
    out->ebar[k] = sum_e / c->P;
    out->r[k] = max_f - min_a;
    out->omega[k] = max_a - min_a;
    const int *links = s->nodes > 1 && s->nodes < c->P ? s->node : NULL;
    out->elb[k] = o->allreduce                   ? mb_lower_bound_allreduce(c->a, c->P, s->tau, links)
                  : o->persistent && c->mock < 0 ? mb_lower_bound_persistent(c->a, c->P, s->tau, s->tau_v)
                  : s->tau_v                     ? mb_lower_bound_v(c->a, c->P, s->tau_v)
                  : links                        ? mb_lower_bound_nodes(c->a, c->P, s->tau, s->node)
                                                 : mb_lower_bound(c->a, c->P, s->tau);
    out->late[k] = sum_late / c->P;
    if (max_late > out->late_max) out->late_max = max_late;
  }
  return 0;
}

static int series_alloc(mb_series *s, int n) {
  s->n = 0;
  s->ebar = calloc((size_t)n + 1, sizeof(double));
  s->r = calloc((size_t)n + 1, sizeof(double));
  s->omega = calloc((size_t)n + 1, sizeof(double));
  s->elb = calloc((size_t)n + 1, sizeof(double));
  s->late = calloc((size_t)n + 1, sizeof(double));
  s->late_max = 0;
  return s->ebar && s->r && s->omega && s->elb && s->late ? 0 : -1;
}

static void series_free(mb_series *s) {
  free(s->ebar);
  free(s->r);
  free(s->omega);
  free(s->elb);
  free(s->late);
}

static double mean(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  return n > 0 ? s / n : NAN;
}

/* One algorithm's run in progress. */
struct mb_run {
  mb_ctx c;
  char setting[MB_NAME]; /* the name given to PAT_UseAlg (the label without a twin's #k) */
  mb_series measured, flat;
  int flat_n, failed;
  /* this rank's PAT_Stats differences, accumulated around its own calls */
  long long calls, pred_calls;
  double pred_err_sum, xwait_sum, bg_cpu;
};

int mb_flat_iters(const mb_opts *o, const mb_setup *s) {
  if (o->flat_iters >= 0) return o->flat_iters;
  return s->max_delay_s > 0 ? (o->iters / 4 > 5 ? o->iters / 4 : 5) : 0;
}

mb_run *mb_run_begin(const mb_opts *o, const mb_setup *s, const char *alg, float *send, float *recv,
                     mb_result *res) {
  mb_run *run = calloc(1, sizeof *run);
  if (!run) MPI_Abort(MPI_COMM_WORLD, 3);
  mb_ctx *c = &run->c;
  *c = (mb_ctx){o, s, 0, s->P, MPI_COMM_NULL, send, recv, NULL, NULL, res, s->trace, mb_mockup_index(alg), NULL,
                MPI_REQUEST_NULL};
  size_t scratch_bytes = c->mock >= 0 ? mb_mockup_scratch_bytes(c->mock, s->count, s->P) : 0;
  if (scratch_bytes > 0) {
    c->scratch = malloc(scratch_bytes);
    if (!c->scratch) {
      fprintf(stderr, "pat-minibench: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  memset(res, 0, sizeof *res);
  snprintf(res->alg, sizeof res->alg, "%s", alg);
  res->status = "ok";
  res->ebar = res->ebar_sd = res->ebar_ci = res->ebar_min = res->ebar_max = res->ebar_median = res->ebar_flat = NAN;
  res->r = res->r_flat = res->omega = res->omega_max = res->elb = res->absorption = res->late = res->late_max = NAN;
  run->flat_n = mb_flat_iters(o, s);
  if (c->rank == 0) {
    c->rows = malloc(sizeof(double) * NROW * (size_t)c->P);
    c->a = malloc(sizeof(double) * (size_t)c->P);
    if (!c->rows || !c->a || series_alloc(&run->measured, o->iters) || series_alloc(&run->flat, run->flat_n)) {
      fprintf(stderr, "pat-minibench: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  /* PAT_REPORT keeps communicators of one name and group in one row: named, each run has its own */
  char name[MPI_MAX_OBJECT_NAME];
  snprintf(name, sizeof name, "minibench %s", alg);
  MPI_Comm_set_name(c->comm, name);
  snprintf(run->setting, sizeof run->setting, "%.*s", (int)strcspn(alg, "#"), alg); /* twins: name#2 */
  /* collective the first time libpat sees the communicator: here, on every rank */
  int rc = PAT_PredictOn(c->comm);
  /* the all-reduce's algorithm is PAT_ALLREDUCE's: no PAT_UseAlg names it */
  if (rc == MPI_SUCCESS && c->mock < 0 && !o->allreduce) rc = PAT_UseAlg(run->setting);
  /* --persistent: set up once, under the run's setting (what a start runs is chosen here) */
  if (rc == MPI_SUCCESS && c->mock < 0 && o->persistent)
    rc = s->counts ? PAT_Allgatherv_init(send, s->counts[c->rank], MPI_FLOAT, recv, s->counts, s->displs, MPI_FLOAT,
                                         c->comm, MPI_INFO_NULL, &c->persistent)
                   : PAT_Allgather_init(send, (int)s->count, MPI_FLOAT, recv, (int)s->count, MPI_FLOAT, c->comm,
                                        MPI_INFO_NULL, &c->persistent);
  run->failed = agree_failure(c, rc);
  return run;
}

int mb_run_step(mb_run *run, mb_phase phase, int k) {
  mb_ctx *c = &run->c;
  if (run->failed) return 1;
  /* accepted in mb_run_begin; other runs may be interleaved.  A mock-up sets
   * native, which needs no arrival exchange: its instrumented compute phase
   * must not feed a prediction to the communicator libpat used last. */
  if (!c->o->allreduce) PAT_UseAlg(c->mock >= 0 ? "native" : run->setting);
  PAT_Stats st0, st1;
  PAT_GetStats(&st0);
  if (phase == MB_WARMUP) run->failed = iteration(c, STREAM_WARMUP + k, 1, NULL);
  else if (phase == MB_FLAT) run->failed = iteration(c, STREAM_FLAT + k, 0, &run->flat);
  else run->failed = iteration(c, STREAM_MEASURED + k, 1, &run->measured);
  PAT_GetStats(&st1);
  run->calls += st1.calls - st0.calls;
  run->pred_calls += st1.predicted_calls - st0.predicted_calls;
  run->pred_err_sum += st1.pred_abs_error_sum - st0.pred_abs_error_sum;
  run->xwait_sum += st1.exchange_wait_sum - st0.exchange_wait_sum;
  run->bg_cpu += st1.bg_cpu_seconds - st0.bg_cpu_seconds;
  if (phase == MB_MEASURED && !run->failed && c->rank == 0 && !c->o->allreduce) {
    int idx = ran_index(c);
    if (idx >= 0) c->res->chosen[idx]++;
    else c->res->chosen_other++;
  }
  return run->failed;
}

void mb_run_end(mb_run *run) {
  mb_ctx *c = &run->c;
  mb_result *res = c->res;
  PAT_Stats now;
  PAT_GetStats(&now);
  long long li[2] = {run->calls, run->pred_calls}, lo[2];
  double ds[3] = {run->pred_err_sum, run->xwait_sum, run->bg_cpu}, so[3];
  double dm[2] = {now.pred_abs_error_max, now.exchange_wait_max}, mo[2];
  MPI_Reduce(li, lo, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(ds, so, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(dm, mo, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (c->persistent != MPI_REQUEST_NULL) PAT_Request_free(&c->persistent);
  MPI_Comm_free(&c->comm);
  free(c->scratch);
  c->scratch = NULL;
  if (c->rank == 0) {
    const mb_series *m = &run->measured, *f = &run->flat;
    res->calls = lo[0];
    res->pred_calls = lo[1];
    res->pred_err_sum = so[0];
    res->xwait_sum = so[1];
    res->bg_cpu = so[2];
    res->pred_err_max = mo[0];
    res->xwait_max = mo[1];
    res->iters = m->n;
    res->flat_iters = f->n;
    if (m->n > 0) {
      double lo_, hi;
      mb_describe(m->ebar, m->n, &res->ebar, &res->ebar_sd, &res->ebar_min, &res->ebar_max);
      res->ebar_median = mb_median(m->ebar, m->n);
      res->ebar_ci = m->n > 1 ? mb_t975(m->n - 1) * res->ebar_sd / sqrt((double)m->n) : NAN;
      res->r = mean(m->r, m->n);
      mb_describe(m->omega, m->n, &res->omega, &lo_, &lo_, &hi);
      res->omega_max = hi;
      res->elb = mean(m->elb, m->n);
      res->late = mean(m->late, m->n);
      res->late_max = m->late_max;
      if (f->n > 0) {
        res->r_flat = mean(f->r, f->n);
        res->ebar_flat = mean(f->ebar, f->n);
      } else if (c->s->max_delay_s == 0 && c->o->flat_iters != 0) {
        res->r_flat = res->r; /* the run itself is flat */
        res->ebar_flat = res->ebar;
      }
      res->absorption = res->r_flat - res->r + res->omega; /* NaN when r' is unknown */
    }
    if (run->failed) res->status = "failed";
    else if (res->errors > 0) res->status = "errors";
    free(c->rows);
    free(c->a);
    series_free(&run->measured);
    series_free(&run->flat);
  }
  free(run);
}
