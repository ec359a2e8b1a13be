/*
 * Conformance stress test (issue 13): seeded random all-gathers and
 * all-gathervs, each compared byte by byte with the MPI library's own on the
 * same inputs.
 *
 *   stress_conformance [--seed S] [--cases N] [--first F] [--case K]
 *                      [--algs a,b,...] [--max-bytes B] [--timeout SEC]
 *                      [--progress N] [--verbose] [--free-under ALG]
 *
 * Case k (k = F .. F+N-1; --case K is --first K --cases 1) is derived from
 * (seed, k) alone, so every rank knows its shape without communication;
 * each rank's own part (its datatypes, its delay, its lie) comes from
 * (seed, k, world rank).  A case:
 *   - replaces some communicator slots first (pool.h: frees in rank-dependent
 *     orders, then world, dup, reversed or random splits, sub-communicators
 *     of 2..P ranks by split or create_group);
 *   - runs algorithm algs[k % n] (PAT_UseAlg) on one slot's communicator
 *     (ranks outside it skip the call);
 *   - gathers `units` signature units per rank (0, or 12 .. max-bytes worth)
 *     of one family ({int}, {char,double}, {byte}), every rank with its own
 *     random send and receive layouts (layout.h), or MPI_IN_PLACE;
 *   - or, in about a third of the cases (`vee`), all-gathervs
 *     (PAT_Allgatherv): each comm rank r's units drawn from (seed, k, r), so
 *     that every rank knows all of them (0 in one in five, else like
 *     `units`), and each rank places the blocks in its receive region in a
 *     random order of its own with gaps of 0..3 elements before them;
 *   - delays each rank by a random compute time (0..4 ms, one rank sometimes
 *     15 ms more), with or without PAT_ProcessingStart/PAT_Edge/End (honest
 *     or misleading percentages), and sometimes lies about arrivals through
 *     pat_test_prediction_hook (noise, reversed order, all equal, seconds off);
 *   - checks rc, the whole receive region (holes, gaps, padding and the
 *     bytes around it included) against the reference, and that the send
 *     buffer is untouched.  The all-gather's reference is PMPI_Allgather;
 *     the all-gatherv's is PMPI_Allgatherv on packed bytes (each rank's block
 *     MPI_Pack'ed, gathered as MPI_PACKED and unpacked at the displacements),
 *     since Open MPI 4.1's and MPICH 4.0's own all-gathervs go wrong when
 *     the ranks' types differ (runs_mpi_own).  Where libpat runs MPI's own
 *     all-gatherv (native, auto), every rank receives in one layout and
 *     sends in its own with as many units per element.
 * A wrong result prints "FAIL seed=S case=K ..." with the case and a rerun
 * command; the exit status is 1 if any case failed.  A case stuck for
 * --timeout seconds (default 60) prints "HANG ... seed=S case=K ..." and
 * aborts the job (exit status 3).
 *
 * --case K rebuilds the slots as case K found them (same members and rank
 * order, fresh communicators); if a failure only shows after the earlier
 * cases, rerun them too: --first 0 --cases K+1 (or a shorter prefix).
 *
 * --free-under ALG sets that algorithm (PAT_UseAlg, on every rank) while
 * communicators are freed and at PAT_Finalize, instead of the last case's;
 * --progress N prints a line every N cases; --verbose prints every case and
 * every rank's datatypes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout.h"
#include "pat.h"
#include "pool.h"
#include "rng.h"
#include "runtime/debug.h"
#include "watchdog.h"

#define MAX_ALGS 16
#define GUARD 64
#define MAX_PRINTED_FAILURES 20

typedef struct options {
  uint64_t seed;
  int64_t first, cases;
  const char *algs[MAX_ALGS];
  int nalgs;
  char alg_list[256]; /* as given */
  char alg_names[256]; /* the same, cut into the names algs[] points to */
  long max_bytes;
  double timeout_s;
  int64_t progress;
  int verbose;
  const char *free_under; /* algorithm setting while communicators are freed (NULL: the case's) */
  const char *program;
} options;

enum { LIE_NONE, LIE_NOISE, LIE_REVERSED, LIE_EQUAL, LIE_SECONDS, LIE_KINDS };
static const char *lie_names[LIE_KINDS] = {"none", "noise", "reversed", "equal", "seconds off"};
enum { INSTR_NONE, INSTR_HONEST, INSTR_MISLEADING, INSTR_NO_EDGE, INSTR_KINDS };
static const char *instr_names[INSTR_KINDS] = {"none", "honest edge", "misleading edge", "start/end only"};

/* What every rank agrees on. */
typedef struct case_shape {
  int64_t index;
  int alg; /* into options.algs */
  int slot;
  int family;
  int units; /* signature units per rank, a multiple of 12 */
  int in_place;
  int ref_first; /* PMPI_Allgather before libpat's call (else after it) */
  int lie, instrument;
  int late_rank; /* world rank with 15 ms more delay, or -1 */
  int calls;     /* all-gathers of this shape in a row (so that libpat predicts and plans ahead) */
  int vee;       /* all-gathervs: units per rank from vee_units (units unused) */
} case_shape;

/* One rank's part, which every rank can derive for any rank. */
typedef struct rank_part {
  double delay_ms, edge_at, edge_percent;
  int64_t lie_ns;
} rank_part;

/* A buffer of count elements of a type with GUARD bytes of room around it
 * (more before it if the type reaches below its address). */
typedef struct region {
  char *base, *at;
  size_t bytes;
} region;

static const int unit_choices[] = {1, 2, 3, 4, 6}; /* each divides 12 */

static atomic_llong lie_now; /* what this rank's hook adds to its predictions */
static family families[NFAMILIES];
static long printed_failures;

static int64_t lying_hook(int rank, int P, int64_t seq, int64_t predicted) {
  (void)rank;
  (void)P;
  (void)seq;
  return predicted + (int64_t)atomic_load(&lie_now);
}

/* ---- the case ---- */

/* 0 in one case in zero_in, else 12 .. max_bytes worth, log-uniform. */
static int case_units(rng *r, const family *f, long max_bytes, unsigned zero_in) {
  if (rng_chance(r, 1, zero_in)) return 0;
  double most = (double)max_bytes / (12.0 * f->bytes);
  if (most < 1) most = 1;
  double c = exp2(rng_unit(r) * log2(most)); /* log-uniform in [1, most] */
  return 12 * (int)c;
}

static case_shape case_make(const options *o, int64_t k, int P) {
  rng r = rng_make(o->seed, k, RNG_ANY, RNG_CASE);
  case_shape c = {.index = k, .alg = (int)(k % o->nalgs)};
  c.slot = (int)rng_below(&r, POOL_SLOTS);
  c.family = (int)rng_below(&r, NFAMILIES);
  c.units = case_units(&r, &families[c.family], o->max_bytes, 10);
  c.in_place = rng_chance(&r, 1, 4);
  c.ref_first = rng_chance(&r, 1, 2);
  c.lie = rng_chance(&r, 1, 2) ? LIE_NONE : (int)rng_range(&r, 1, LIE_KINDS - 1);
  c.instrument = (int)rng_below(&r, INSTR_KINDS);
  c.late_rank = rng_chance(&r, 1, 6) ? (int)rng_below(&r, (uint64_t)P) : -1;
  c.calls = rng_chance(&r, 1, 3) ? 1 : (int)rng_range(&r, 2, 6);
  c.vee = rng_chance(&r, 1, 3); /* drawn last: the other draws stay those of the all-gather-only cases */
  return c;
}

/* An all-gatherv case: the signature units of comm rank r, alike on every rank. */
static int vee_units(const options *o, const case_shape *c, int r) {
  rng u = rng_make(o->seed, c->index, r, RNG_UNITS);
  return case_units(&u, &families[c->family], o->max_bytes, 5);
}

/* An all-gatherv case where libpat runs the MPI library's own all-gatherv
 * (native; auto, which runs it without a model file and may choose it with
 * one).  That one goes wrong on correct calls whose ranks' types differ:
 *   - Open MPI 4.1's tuned component chooses its algorithm from
 *     size(sendtype) x sum(recvcounts) (coll_tuned_decision_fixed.c), which
 *     differs between ranks whose send and receive elements differ in size,
 *     and ranks that choose different algorithms hang
 *     (tests/mpi/test_allgatherv_matrix.c);
 *   - MPICH 4.0's ring all-gatherv cuts blocks larger than
 *     MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE (32 KiB) into chunks of that
 *     size / extent(recvtype) elements of each rank's own receive type, so
 *     ranks whose receive types differ in extent send and expect chunks of
 *     different sizes (MPI_ERR_TRUNCATE, then a hang: seed 4 case 121 at
 *     P = 4 before this rule).
 * There every rank receives in one layout, drawn alike on every rank
 * (stream (seed, k, RNG_ANY, RNG_LAYOUT)), and sends in a layout of its own
 * with as many units per element. */
static int runs_mpi_own(const options *o, const case_shape *c) {
  const char *a = o->algs[c->alg];
  return c->vee && (strcmp(a, "native") == 0 || strcmp(a, "auto") == 0);
}

/* A rank's stream for call j of case c. */
static rng call_stream(const options *o, const case_shape *c, int world_rank, int purpose, int j) {
  return rng_make(o->seed, c->index, world_rank, purpose + 256 * j);
}

/* A rank's compute time before call j: its own for the case (0 in a
 * quarter of the cases), plus a little jitter per call. */
static double delay_of(const options *o, const case_shape *c, int world_rank, int j) {
  rng r = call_stream(o, c, world_rank, RNG_RANK, 0), jitter = call_stream(o, c, world_rank, RNG_RANK, j + 1);
  double d = rng_chance(&r, 1, 4) ? 0.0 : 4.0 * rng_unit(&r) + 0.5 * rng_unit(&jitter);
  return d + (world_rank == c->late_rank ? 15.0 : 0.0);
}

/* The lie about this rank's arrival: relative to the honest prediction. */
static int64_t lie_of(const case_shape *c, double mine_ms, double latest_ms, int world_rank, rng *r) {
  switch (c->lie) {
    case LIE_NOISE: return rng_range(r, -30000000, 30000000);
    case LIE_REVERSED: return (int64_t)((latest_ms - 2 * mine_ms) * 1e6); /* the latest predicted first */
    case LIE_EQUAL: return (int64_t)(-mine_ms * 1e6);                     /* everyone at the same time */
    case LIE_SECONDS: return world_rank % 2 ? -3000000000LL : 2000000000LL;
    default: return 0;
  }
}

static rank_part part_make(const options *o, const case_shape *c, int world_rank, int P, int j) {
  rank_part p;
  double latest = 0;
  for (int q = 0; q < P; q++) {
    double d = delay_of(o, c, q, j);
    if (d > latest) latest = d;
  }
  p.delay_ms = delay_of(o, c, world_rank, j);
  rng r = call_stream(o, c, world_rank, RNG_FILL + 1, j);
  p.edge_at = 0.05 + 0.9 * rng_unit(&r);
  p.edge_percent = c->instrument == INSTR_MISLEADING ? 1.0 + 98.0 * rng_unit(&r) : 100.0 * p.edge_at;
  p.lie_ns = lie_of(c, p.delay_ms, latest, world_rank, &r);
  return p;
}

/* ---- text ---- */

/* "1,2,3" (cut short with "..." where it does not fit). */
static void ints_text(const int *v, int count, char *out, size_t n) {
  size_t w = 0;
  out[0] = '\0';
  for (int i = 0; i < count && w + 1 < n; i++) {
    snprintf(out + w, n - w, "%s%d", i ? "," : "", v[i]);
    w = strlen(out);
  }
  if (w + 1 >= n && n > 4) strcpy(out + n - 4, "...");
}

static void case_text(const options *o, const case_shape *c, const pool *pl, char *out, size_t n) {
  char comm[1400], units[400];
  comm_desc_text(&pl->desc[c->slot], comm, sizeof comm);
  if (c->vee) { /* the slot's communicator's ranks (before the churn: the one the slot held) */
    int u[POOL_MAXP], size = pl->desc[c->slot].size;
    char list[360];
    for (int r = 0; r < size; r++) u[r] = vee_units(o, c, r);
    ints_text(u, size, list, sizeof list);
    snprintf(units, sizeof units, "allgatherv units by comm rank=[%s]", list);
  } else {
    snprintf(units, sizeof units, "units=%d", c->units);
  }
  snprintf(out, n, "alg=%s slot=%d comm=[%s] family=%s %s%s calls=%d ref=%s lie=%s instrument=%s late_rank=%d",
           o->algs[c->alg], c->slot, comm, families[c->family].name, units, c->in_place ? " MPI_IN_PLACE" : "",
           c->calls, c->ref_first ? "before" : "after", lie_names[c->lie], instr_names[c->instrument], c->late_rank);
}

/* The command that reruns cases first .. first+cases-1 (one case: --case). */
static void rerun_text(const options *o, int64_t first, int64_t cases, int P, char *out, size_t n) {
  char range[64], under[48] = "";
  if (cases == 1)
    snprintf(range, sizeof range, "--case %lld", (long long)first);
  else
    snprintf(range, sizeof range, "--first %lld --cases %lld", (long long)first, (long long)cases);
  if (o->free_under) snprintf(under, sizeof under, " --free-under %s", o->free_under);
  snprintf(out, n, "mpirun -np %d --oversubscribe --bind-to none %s --seed %" PRIu64 " --algs %s --max-bytes %ld%s %s",
           P, o->program, o->seed, o->alg_list, o->max_bytes, under, range);
}

/* Rerun commands for case c: alone, and after the cases this run made before it. */
static void rerun_case_text(const options *o, const case_shape *c, int P, char *out, size_t n) {
  char alone[512], prefix[512];
  rerun_text(o, c->index, 1, P, alone, sizeof alone);
  rerun_text(o, o->first, c->index - o->first + 1, P, prefix, sizeof prefix);
  snprintf(out, n, "%s\n  with the cases before it: %s", alone, prefix);
}

/* ---- buffers ---- */

static void fill(void *buf, size_t n, rng *r) {
  unsigned char *p = buf;
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    if (i % 8 == 0) x = rng_next(r);
    p[i] = (unsigned char)(x >> (8 * (i % 8)));
  }
}

static void *alloc_or_abort(size_t bytes) {
  void *p = malloc(bytes + 1);
  if (!p) {
    fprintf(stderr, "stress_conformance: out of memory (%zu bytes)\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

static MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

static region region_make(MPI_Datatype type, size_t elements) {
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &tlb, &textent);
  size_t before = GUARD + (size_t)(tlb < 0 ? -tlb : 0);
  region g;
  g.bytes = before + elements * (size_t)extent + (size_t)(tlb > 0 ? tlb : 0) + (size_t)textent + GUARD;
  g.base = alloc_or_abort(g.bytes);
  g.at = g.base + before;
  return g;
}

static long first_difference(const region *a, const region *b) {
  if (memcmp(a->base, b->base, a->bytes) == 0) return -1;
  for (size_t i = 0; i < a->bytes; i++)
    if (a->base[i] != b->base[i]) return (long)i;
  return -1;
}

/* ---- one case on one rank ---- */

typedef struct call {
  MPI_Comm comm;
  int rank, P;
  layout send, recv;
  int scount, rcount; /* rcount: the all-gather's */
  int *rcounts, *displs; /* per comm rank, in receive elements (the all-gather's: rcount, packed in rank order) */
  size_t span;           /* receive elements the blocks and gaps span */
  region ours, ref, sendbuf, send_before;
} call;

/* A layout must hold exactly its units (else the test, not libpat, is wrong). */
static void layout_check(const layout *l, const family *f) {
  int size;
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_size(l->type, &size);
  MPI_Type_get_extent(l->type, &lb, &extent);
  MPI_Type_get_true_extent(l->type, &tlb, &textent);
  if (size == l->units * f->bytes && lb <= tlb && lb + extent >= tlb + textent) return;
  fprintf(stderr, "stress_conformance: bad layout %s: size %d for %d units, lb %ld extent %ld, true lb %ld extent %ld\n",
          l->desc, size, l->units, (long)lb, (long)extent, (long)tlb, (long)textent);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* An all-gatherv's receive counts, and displacements in a random order of
 * the blocks with gaps of 0..3 elements before them (r: this rank's stream). */
static void vee_counts(call *x, const options *o, const case_shape *c, rng *r) {
  int order[POOL_MAXP];
  size_t at = 0;
  for (int q = 0; q < x->P; q++) {
    x->rcounts[q] = vee_units(o, c, q) / x->recv.units;
    order[q] = q;
  }
  x->scount = vee_units(o, c, x->rank) / x->send.units;
  rng_shuffle(r, order, x->P);
  for (int i = 0; i < x->P; i++) {
    at += (size_t)rng_range(r, 0, 3);
    x->displs[order[i]] = (int)at;
    at += (size_t)x->rcounts[order[i]];
  }
  x->span = at;
}

/* This rank's send and receive layouts (r: its stream; see runs_mpi_own). */
static void layouts_make(call *x, const options *o, const case_shape *c, const family *f, rng *r) {
  if (!runs_mpi_own(o, c)) {
    layout_random(&x->send, f, unit_choices[rng_below(r, 5)], r);
    layout_random(&x->recv, f, unit_choices[rng_below(r, 5)], r);
    return;
  }
  rng agreed = rng_make(o->seed, c->index, RNG_ANY, RNG_LAYOUT);
  int units = unit_choices[rng_below(&agreed, 5)];
  layout_random(&x->send, f, units, r);
  layout_random(&x->recv, f, units, &agreed);
}

static void call_prepare(call *x, const options *o, const case_shape *c, int world_rank) {
  const family *f = &families[c->family];
  rng r = rng_make(o->seed, c->index, world_rank, RNG_LAYOUT);
  layouts_make(x, o, c, f, &r);
  layout_check(&x->send, f);
  layout_check(&x->recv, f);
  x->rcounts = alloc_or_abort((size_t)x->P * sizeof *x->rcounts);
  x->displs = alloc_or_abort((size_t)x->P * sizeof *x->displs);
  if (c->vee) {
    vee_counts(x, o, c, &r);
  } else {
    x->scount = c->units / x->send.units;
    x->rcount = c->units / x->recv.units;
    for (int q = 0; q < x->P; q++) x->rcounts[q] = x->rcount, x->displs[q] = q * x->rcount;
    x->span = (size_t)x->rcount * (size_t)x->P;
  }
  x->ours = region_make(x->recv.type, x->span);
  x->ref = region_make(x->recv.type, x->span);
  x->sendbuf = region_make(x->send.type, (size_t)x->scount);
  x->send_before = region_make(x->send.type, (size_t)x->scount);
}

/* Fresh contents for call j: the receive regions alike, the send buffer and its copy. */
static void call_fill(call *x, const options *o, const case_shape *c, int world_rank, int j) {
  rng contents = call_stream(o, c, world_rank, RNG_FILL, j);
  fill(x->ours.base, x->ours.bytes, &contents);
  memcpy(x->ref.base, x->ours.base, x->ours.bytes);
  fill(x->sendbuf.base, x->sendbuf.bytes, &contents);
  memcpy(x->send_before.base, x->sendbuf.base, x->sendbuf.bytes);
}

static void call_release(call *x) {
  free(x->ours.base);
  free(x->ref.base);
  free(x->sendbuf.base);
  free(x->send_before.base);
  free(x->rcounts);
  free(x->displs);
  layout_free(&x->send);
  layout_free(&x->recv);
}

/* The all-gatherv's reference, on packed bytes: the MPI library's own
 * all-gatherv with the ranks' own types may hang (runs_mpi_own), MPI_PACKED
 * with byte counts alike everywhere cannot.  Each
 * rank's block is packed (in place: from ref, where the call finds it),
 * gathered, and unpacked into ref at its displacement. */
static int reference_v(call *x, int in_place) {
  MPI_Aint extent = extent_of(x->recv.type);
  const void *in = in_place ? x->ref.at + (MPI_Aint)x->displs[x->rank] * extent : x->sendbuf.at;
  int count = in_place ? x->rcounts[x->rank] : x->scount, bound = 0, size = 0, total = 0, rc;
  MPI_Datatype type = in_place ? x->recv.type : x->send.type;
  MPI_Pack_size(count, type, x->comm, &bound);
  char *mine = alloc_or_abort((size_t)bound);
  int *sizes = alloc_or_abort((size_t)x->P * sizeof *sizes), *at = alloc_or_abort((size_t)x->P * sizeof *at);
  rc = MPI_Pack(in, count, type, mine, bound, &size, x->comm);
  if (rc == MPI_SUCCESS) rc = PMPI_Allgather(&size, 1, MPI_INT, sizes, 1, MPI_INT, x->comm);
  for (int q = 0; rc == MPI_SUCCESS && q < x->P; q++) at[q] = total, total += sizes[q];
  char *stage = alloc_or_abort((size_t)total);
  if (rc == MPI_SUCCESS) rc = PMPI_Allgatherv(mine, size, MPI_PACKED, stage, sizes, at, MPI_PACKED, x->comm);
  for (int q = 0; rc == MPI_SUCCESS && q < x->P; q++) {
    int position = 0;
    rc = MPI_Unpack(stage + at[q], sizes[q], &position, x->ref.at + (MPI_Aint)x->displs[q] * extent, x->rcounts[q],
                    x->recv.type, x->comm);
  }
  free(stage);
  free(at);
  free(sizes);
  free(mine);
  return rc;
}

static int reference(call *x, const case_shape *c) {
  if (c->vee) return reference_v(x, c->in_place);
  return PMPI_Allgather(c->in_place ? MPI_IN_PLACE : x->sendbuf.at, x->scount, x->send.type, x->ref.at, x->rcount,
                        x->recv.type, x->comm);
}

static void sleep_ms(double ms) {
  if (ms <= 0) return;
  struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000.0 * (double)(time_t)(ms / 1000)) * 1e6)};
  nanosleep(&ts, NULL);
}

/* The compute phase before the call, instrumented or not. */
static void compute(const case_shape *c, const rank_part *p) {
  if (c->instrument == INSTR_NONE) {
    sleep_ms(p->delay_ms);
    return;
  }
  PAT_ProcessingStart();
  if (c->instrument != INSTR_NO_EDGE) {
    sleep_ms(p->delay_ms * p->edge_at);
    PAT_Edge(p->edge_percent);
    sleep_ms(p->delay_ms * (1 - p->edge_at));
  } else {
    sleep_ms(p->delay_ms);
  }
  PAT_ProcessingEnd();
}

typedef struct outcome {
  int call; /* 0 .. calls-1 */
  int rc, ref_rc;
  long diff, send_diff;
} outcome;

static void describe_byte(const call *x, long at, char *out, size_t n) {
  long extent = (long)extent_of(x->recv.type), rel = at - (long)(x->ours.at - x->ours.base);
  for (int q = 0; q < x->P; q++) {
    long start = extent * x->displs[q], block = extent * x->rcounts[q];
    if (block > 0 && rel >= start && rel < start + block) {
      snprintf(out, n, "(block of comm rank %d, byte %ld of it)", q, rel - start);
      return;
    }
  }
  if (rel >= 0 && rel < extent * (long)x->span)
    snprintf(out, n, "(%ld bytes from the buffer's address: in a gap between the blocks)", rel);
  else
    snprintf(out, n, "(%ld bytes from the buffer's address: outside the blocks)", rel);
}

/* "<layout> x count", or an all-gatherv's "<layout> x counts [..] at displs [..]". */
static void recv_text(const case_shape *c, const call *x, char *out, size_t n) {
  if (!c->vee) {
    snprintf(out, n, "%s x %d", x->recv.desc, x->rcount);
    return;
  }
  char counts[800], displs[800];
  ints_text(x->rcounts, x->P, counts, sizeof counts);
  ints_text(x->displs, x->P, displs, sizeof displs);
  snprintf(out, n, "%s x counts [%s] at displs [%s] (span %zu)", x->recv.desc, counts, displs, x->span);
}

static void report_failure(const options *o, const case_shape *c, const pool *pl, const call *x,
                           const rank_part *p, const outcome *r, int world_rank, int P) {
  if (++printed_failures > MAX_PRINTED_FAILURES) return;
  char what[2048], rerun[1100], where[128] = "", recv[2200];
  case_text(o, c, pl, what, sizeof what);
  rerun_case_text(o, c, P, rerun, sizeof rerun);
  recv_text(c, x, recv, sizeof recv);
  if (r->diff >= 0) describe_byte(x, r->diff, where, sizeof where);
  fprintf(stderr,
          "FAIL seed=%" PRIu64 " case=%lld call %d P=%d world rank %d (rank %d of %d): %s delay=%.3fms lie_ns=%lld\n"
          "  send=%s x %d\n  recv=%s\n"
          "  rc=%d (%s) reference rc=%d; first wrong byte (-1: none): %ld %s got 0x%02x expected 0x%02x; send buffer %s %ld\n"
          "  rerun: %s\n",
          o->seed, (long long)c->index, r->call, P, world_rank, x->rank, x->P, what, p->delay_ms, (long long)p->lie_ns,
          c->in_place ? "MPI_IN_PLACE" : x->send.desc, x->scount, recv, r->rc,
          r->rc == MPI_SUCCESS ? "success" : PAT_Error_string(r->rc), r->ref_rc, r->diff, where,
          r->diff >= 0 ? (unsigned char)x->ours.base[r->diff] : 0, r->diff >= 0 ? (unsigned char)x->ref.base[r->diff] : 0,
          r->send_diff >= 0 ? "changed at byte" : "unchanged,", r->send_diff, rerun);
  fflush(stderr);
}

static void enter(const options *o, const case_shape *c, const pool *pl, const char *phase, int P) {
  char what[2048], rerun[1100], text[WATCHDOG_TEXT];
  case_text(o, c, pl, what, sizeof what);
  rerun_case_text(o, c, P, rerun, sizeof rerun);
  snprintf(text, sizeof text, "seed=%" PRIu64 " case=%lld phase=%s %s\n  rerun: %s", o->seed, (long long)c->index,
           phase, what, rerun);
  watchdog_enter(text);
}

/* The call itself, between the reference (before or after it). */
static outcome gather(const options *o, const case_shape *c, const pool *pl, call *x, const rank_part *p, int P,
                      int j) {
  outcome r = {j, MPI_SUCCESS, MPI_SUCCESS, -1, -1};
  char phase[32];
  snprintf(phase, sizeof phase, "%s (call %d)", c->vee ? "all-gatherv" : "all-gather", j);
  const void *sendbuf = c->in_place ? MPI_IN_PLACE : x->sendbuf.at;
  if (c->ref_first) r.ref_rc = reference(x, c);
  atomic_store(&lie_now, (long long)p->lie_ns);
  compute(c, p);
  enter(o, c, pl, phase, P);
  if (c->vee)
    r.rc = PAT_Allgatherv(sendbuf, x->scount, x->send.type, x->ours.at, x->rcounts, x->displs, x->recv.type, x->comm);
  else
    r.rc = PAT_Allgather(sendbuf, x->scount, x->send.type, x->ours.at, x->rcount, x->recv.type, x->comm);
  if (!c->ref_first) r.ref_rc = reference(x, c);
  r.diff = first_difference(&x->ours, &x->ref);
  r.send_diff = first_difference(&x->sendbuf, &x->send_before);
  return r;
}

typedef struct tally {
  int64_t *per_alg;        /* cases run, by options.algs index */
  int64_t auto_chose[2][32]; /* [vee][PAT_AlgName index], counted by comm rank 0 */
  long wrong;              /* this rank's failed cases */
  unsigned char *failed;   /* by case - first */
  struct {
    double seconds;
    int index;
  } slowest;               /* this rank's slowest case (MPI_DOUBLE_INT) */
  int64_t vee_cases;       /* all-gatherv cases, counted by world rank 0 */
} tally;

/* Call j of case c on this rank: 1 if its result is wrong. */
static int one_call(const options *o, const case_shape *c, const pool *pl, call *x, int j, tally *t) {
  int P = pl->P, me = pl->rank;
  call_fill(x, o, c, me, j);
  rank_part p = part_make(o, c, me, P, j);
  outcome r = gather(o, c, pl, x, &p, P, j);
  int bad = r.rc != MPI_SUCCESS || r.ref_rc != MPI_SUCCESS || r.diff >= 0 || r.send_diff >= 0;
  if (bad) report_failure(o, c, pl, x, &p, &r, me, P);
  const char *chosen = PAT_LastAlg(x->comm);
  for (int a = 0; x->rank == 0 && strcmp(o->algs[c->alg], "auto") == 0 && a < PAT_AlgCount() && a < 32; a++)
    if (strcmp(chosen, PAT_AlgName(a)) == 0) t->auto_chose[c->vee][a]++;
  return bad;
}

/* Case k on this rank: 1 if any of its results is wrong. */
static int run_case(const options *o, pool *pl, int64_t k, tally *t) {
  int P = pl->P, me = pl->rank;
  case_shape c = case_make(o, k, P);
  enter(o, &c, pl, "communicator churn", P);
  if (o->free_under) PAT_UseAlg(o->free_under);
  pool_churn(pl, k);
  if (o->verbose && me == 0) {
    char what[2048];
    case_text(o, &c, pl, what, sizeof what);
    printf("case %lld: %s\n", (long long)k, what);
    fflush(stdout);
  }
  if (me == 0) t->per_alg[c.alg]++, t->vee_cases += c.vee;
  PAT_UseAlg(o->algs[c.alg]);
  call x = {.comm = pl->comm[c.slot]};
  if (x.comm == MPI_COMM_NULL) return 0; /* not a member: skip the call */
  MPI_Comm_rank(x.comm, &x.rank);
  MPI_Comm_size(x.comm, &x.P);
  enter(o, &c, pl, "prepare", P);
  call_prepare(&x, o, &c, me);
  if (o->verbose) {
    char recv[2200];
    recv_text(&c, &x, recv, sizeof recv);
    printf("case %lld world rank %d: send %s x %d, recv %s\n", (long long)k, me,
           c.in_place ? "MPI_IN_PLACE" : x.send.desc, x.scount, recv);
  }
  int bad = 0;
  for (int j = 0; j < c.calls; j++) bad |= one_call(o, &c, pl, &x, j, t);
  call_release(&x);
  return bad;
}

/* ---- options ---- */

static void usage(void) {
  fprintf(stderr,
          "usage: stress_conformance [--seed S] [--cases N] [--first F] [--case K] [--algs a,b,...]\n"
          "                          [--max-bytes B] [--timeout SEC] [--progress N] [--verbose]\n"
          "                          [--free-under ALG]\n");
}

static int parse_algs(options *o, const char *list) {
  if (strlen(list) >= sizeof o->alg_list) return -1;
  snprintf(o->alg_list, sizeof o->alg_list, "%s", list);
  snprintf(o->alg_names, sizeof o->alg_names, "%s", list);
  char *save = NULL;
  o->nalgs = 0;
  for (char *a = strtok_r(o->alg_names, ",", &save); a && o->nalgs < MAX_ALGS; a = strtok_r(NULL, ",", &save))
    o->algs[o->nalgs++] = a;
  return o->nalgs > 0 ? 0 : -1;
}

static int parse_number(const char *s, long long *v) {
  char *end;
  *v = strtoll(s, &end, 10);
  return *s && !*end ? 0 : -1;
}

static int parse(options *o, int argc, char **argv) {
  *o = (options){.seed = 1, .first = 0, .cases = 100, .max_bytes = 65536, .timeout_s = 60, .program = argv[0]};
  if (parse_algs(o, "native,ring,nex,rdb,bruck,lnbc,bdr,bslb,ard,auto")) return -1;
  for (int i = 1; i < argc; i++) {
    long long v = 0;
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--verbose")) {
      o->verbose = 1;
      continue;
    }
    if (!val) return -1;
    i++;
    if (!strcmp(a, "--algs")) {
      if (parse_algs(o, val)) return -1;
      continue;
    }
    if (!strcmp(a, "--free-under")) {
      o->free_under = val;
      continue;
    }
    if (parse_number(val, &v) || v < 0) return -1;
    if (!strcmp(a, "--seed")) o->seed = (uint64_t)v;
    else if (!strcmp(a, "--cases")) o->cases = v;
    else if (!strcmp(a, "--first")) o->first = v;
    else if (!strcmp(a, "--case")) o->first = v, o->cases = 1;
    else if (!strcmp(a, "--max-bytes")) o->max_bytes = (long)v;
    else if (!strcmp(a, "--timeout")) o->timeout_s = (double)v;
    else if (!strcmp(a, "--progress")) o->progress = v;
    else return -1;
  }
  return o->max_bytes >= 12 ? 0 : -1;
}

static int check_algs(const options *o) {
  for (int a = 0; a < o->nalgs; a++)
    if (PAT_UseAlg(o->algs[a]) != MPI_SUCCESS) {
      fprintf(stderr, "stress_conformance: unknown algorithm %s\n", o->algs[a]);
      return -1;
    }
  return 0;
}

/* ---- summary ---- */

static int summarize(const options *o, tally *t, double seconds, int P, int me) {
  int64_t n = o->cases, failed_cases = 0, auto_total[2][32];
  long wrong = 0;
  MPI_Allreduce(MPI_IN_PLACE, t->failed, (int)n, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&t->wrong, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(t->auto_chose, auto_total, 2 * 32, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  PAT_Stats st;
  PAT_GetStats(&st);
  long long stats[4] = {st.calls, st.predicted_calls, st.bg_steps, st.fg_steps};
  MPI_Allreduce(MPI_IN_PLACE, stats, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &t->slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  for (int64_t i = 0; i < n; i++) failed_cases += t->failed[i];
  if (me != 0) return failed_cases > 0;
  printf("stress_conformance: seed=%" PRIu64 " P=%d cases %lld..%lld: %lld cases (", o->seed, P,
         (long long)o->first, (long long)(o->first + n - 1), (long long)n);
  for (int a = 0; a < o->nalgs; a++) printf("%s%s %lld", a ? ", " : "", o->algs[a], (long long)t->per_alg[a]);
  printf("), %.1f s\n", seconds);
  printf("all-gathervs: %lld of the %lld cases\n", (long long)t->vee_cases, (long long)n);
  for (int v = 0; v < 2; v++) {
    const char *head = v ? "auto chose for the all-gathervs: " : "auto chose: ";
    int any_auto = 0;
    for (int a = 0; a < PAT_AlgCount() && a < 32; a++)
      if (auto_total[v][a]) printf("%s%s %lld", any_auto++ ? ", " : head, PAT_AlgName(a), (long long)auto_total[v][a]);
    if (any_auto) printf("\n");
  }
  printf("libpat over ranks: %lld calls, %lld with a predicted arrival, %lld schedule steps in the background, "
         "%lld in the foreground\n", (long long)stats[0], (long long)stats[1], (long long)stats[2],
         (long long)stats[3]);
  printf("slowest case: %d, %.3f s\n", t->slowest.index, t->slowest.seconds);
  printf("%lld passed, %lld failed (%ld failed (case, rank) pairs)\n", (long long)(n - failed_cases),
         (long long)failed_cases, wrong);
  for (int64_t i = 0; i < n && failed_cases; i++)
    if (t->failed[i]) printf("failed case: seed=%" PRIu64 " case=%lld\n", o->seed, (long long)(o->first + i));
  fflush(stdout);
  return failed_cases > 0;
}

/* After the cases: a hang here may need all of them to reproduce. */
static void closing(const options *o, const char *phase, int P) {
  char rerun[512], text[WATCHDOG_TEXT];
  rerun_text(o, o->first, o->cases, P, rerun, sizeof rerun);
  snprintf(text, sizeof text, "seed=%" PRIu64 " after cases %lld..%lld phase=%s\n  rerun: %s", o->seed,
           (long long)o->first, (long long)(o->first + o->cases - 1), phase, rerun);
  watchdog_enter(text);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int provided, P, me;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  options o;
  if (parse(&o, argc, argv) || P > POOL_MAXP) {
    if (me == 0) usage();
    MPI_Finalize();
    return 2;
  }
  if (PAT_Init() != MPI_SUCCESS || check_algs(&o)) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  families_init(families);
  pat_test_prediction_hook = lying_hook;
  watchdog_start(o.timeout_s, "stress_conformance");
  tally t = {calloc((size_t)o.nalgs, sizeof(int64_t)), {{0}}, 0, calloc((size_t)o.cases + 1, 1), {0, -1}, 0};
  double t0 = now_s();
  pool pl;
  watchdog_enter("creating the communicator pool");
  pool_start(&pl, o.seed, o.first);
  for (int64_t i = 0; i < o.cases; i++) {
    double start = now_s();
    int bad = run_case(&o, &pl, o.first + i, &t);
    double took = now_s() - start;
    if (took > t.slowest.seconds) t.slowest.seconds = took, t.slowest.index = (int)(o.first + i);
    if (o.verbose) printf("case %lld world rank %d: %.3f s\n", (long long)(o.first + i), me, took);
    t.wrong += bad;
    t.failed[i] = (unsigned char)bad;
    if (me == 0 && o.progress > 0 && (i + 1) % o.progress == 0) {
      printf("progress: %lld/%lld cases, %.1f s\n", (long long)(i + 1), (long long)o.cases, now_s() - t0);
      fflush(stdout);
    }
  }
  closing(&o, "freeing the pool and summing up", P);
  if (o.free_under) PAT_UseAlg(o.free_under);
  pool_finish(&pl);
  int bad = summarize(&o, &t, now_s() - t0, P, me);
  closing(&o, "PAT_Finalize (retiring the freed communicators)", P);
  PAT_Finalize();
  watchdog_stop();
  free(t.per_alg);
  free(t.failed);
  MPI_Finalize();
  return bad;
}
