/*
 * heat1d: an iterative code whose ranks arrive at the all-gather at
 * different times, for trying libpat on a real kernel.
 *
 * A rod of P*n cells, split into P chunks of n cells.  Every rank holds the
 * whole temperature field; each iteration it advances its own chunk by one
 * time step of u_t = D u_xx - lambda u + S(x, t) (explicit finite
 * differences, halo cells taken from the field), then all-gathers the chunks
 * so that every rank again holds the whole field.  The field is also used
 * globally: the source is throttled by the rod's total heat.
 *
 * The source is a hot spot that moves along the rod (--drift, ranks per
 * iteration).  Chunks within the hot spot need smaller time steps there, so
 * their step is split into base*(1+imbalance) sub-steps instead of base:
 * those ranks compute longer and arrive late, and which ranks they are
 * drifts with the spot.
 *
 * Built twice from this source:
 *   heat1d       plain MPI (MPI_Init, MPI_Allgather): run it as is, or under
 *                `mpirun -x LD_PRELOAD=libpat_mpi.so` to get libpat unmodified;
 *   heat1d-pat   -DHEAT1D_PAT: PAT_Init, PAT_ProcessingStart / PAT_Edge(50) /
 *                PAT_ProcessingEnd around the compute phase, PAT_Allgather.
 * Both print the same checksum of the final field for the same options,
 * whatever the algorithm: the all-gather only moves bytes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tools/cli.h"
#ifdef HEAT1D_PAT
#include "pat.h"
#define ALLGATHER PAT_Allgather
#define BUILD "instrumented"
#else
#define ALLGATHER MPI_Allgather
#define BUILD "plain-mpi"
#endif

typedef struct options {
  int n;            /* cells per rank (doubles all-gathered per rank) */
  int iters;
  int base;         /* sub-steps per iteration outside the hot spot */
  double imbalance; /* extra sub-steps in the hot spot, as a multiple of base */
  double hot;       /* width of the hot spot, in ranks */
  double drift;     /* speed of the hot spot, in ranks per iteration */
  double start;     /* where the hot spot starts, in ranks */
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: heat1d [-n cells_per_rank] [-i iterations] [-b base_substeps] [-x imbalance]\n"
          "              [-w hot_width_ranks] [-d drift_ranks_per_iter] [-s start_rank]\n"
          "defaults: -n 8192 -i 300 -b 20 -x 3 -w 1 -d 0.02 -s 0\n");
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  options *o = opts;
  if (cli_args_is(a, "-n")) return cli_args_int(a, 1, 1 << 30, &o->n, err);
  if (cli_args_is(a, "-i")) return cli_args_int(a, 1, 1 << 30, &o->iters, err);
  if (cli_args_is(a, "-b")) return cli_args_int(a, 1, 1 << 30, &o->base, err);
  if (cli_args_is(a, "-x")) return cli_args_real(a, 0, 1e6, &o->imbalance, err);
  if (cli_args_is(a, "-w")) return cli_args_real(a, 0, INFINITY, &o->hot, err);
  if (cli_args_is(a, "-d")) return cli_args_real(a, -INFINITY, INFINITY, &o->drift, err);
  if (cli_args_is(a, "-s")) return cli_args_real(a, -INFINITY, INFINITY, &o->start, err);
  return cli_args_unknown(a, err);
}

/* The options: 0, 1 for -h, or -1 with a message in *err. */
static int parse(int argc, char **argv, options *o, cli_error *err) {
  *o = (options){8192, 300, 20, 3.0, 1.0, 0.02, 0.0};
  return cli_args_parse(argc, argv, parse_option, o, err);
}

/* Centre of the hot spot (in cells) at iteration it: moves around the rod. */
static double spot_centre(const options *o, int P, int it) {
  double ranks = fmod(o->start + 0.5 + o->drift * it, (double)P);
  if (ranks < 0) ranks += P;
  return ranks * o->n;
}

/* Distance between two cells on the periodic rod. */
static double ring_distance(double a, double b, double length) {
  double d = fabs(a - b);
  return d < length - d ? d : length - d;
}

/* Sub-steps of this rank's chunk: more where the hot spot is. */
static int substeps(const options *o, int P, int rank, int it) {
  double length = (double)P * o->n, centre = spot_centre(o, P, it);
  double lo = (double)rank * o->n, hi = lo + o->n;
  double nearest = centre >= lo && centre < hi ? 0.0
                                               : fmin(ring_distance(centre, lo, length),
                                                      ring_distance(centre, hi - 1, length));
  int in_spot = nearest <= 0.5 * o->hot * o->n;
  return o->base + (in_spot ? (int)lround(o->imbalance * o->base) : 0);
}

/* Advance cells [0, n) of `mine` by `steps` sub-steps of dt/steps; halo
 * values left/right stay fixed for the step.  `scratch` has n+2 cells. */
static void advance(double *mine, double *scratch, int n, double left, double right, int from, int to, int steps,
                    double x0, double centre, double length, double strength) {
  const double D = 0.4, lambda = 0.01, dt = 1.0, width = 0.02 * length;
  const double h = dt / steps, r = D * h; /* dx = 1: r <= 0.4 keeps the scheme stable */
  double *u = scratch + 1;
  memcpy(u, mine, (size_t)n * sizeof *u);
  u[-1] = left;
  u[n] = right;
  for (int s = from; s < to; s++) {
    double prev = u[-1];
    for (int i = 0; i < n; i++) {
      double d = ring_distance(x0 + i, centre, length) / width;
      double source = d < 4.0 ? strength * exp(-d * d) : 0.0;
      double next = u[i] + r * (prev - 2.0 * u[i] + u[i + 1]) + h * (source - lambda * u[i]);
      prev = u[i];
      u[i] = next;
    }
  }
  memcpy(mine, u, (size_t)n * sizeof *u);
}

static uint64_t fnv1a(const void *data, size_t bytes) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int main(int argc, char **argv) {
#ifdef HEAT1D_PAT
  int provided; /* libpat's background thread needs MPI_THREAD_MULTIPLE */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#else
  MPI_Init(&argc, &argv);
#endif
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  options o;
  cli_error err;
  int parsed = parse(argc, argv, &o, &err);
  if (parsed != 0) {
    if (rank == 0 && parsed < 0) fprintf(stderr, "heat1d: %s\n", err.text);
    if (rank == 0) usage();
    MPI_Finalize();
    return parsed < 0 ? 2 : 0;
  }
#ifdef HEAT1D_PAT
  if (PAT_Init() != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "heat1d: PAT_Init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#endif
  const int n = o.n;
  const double length = (double)P * n;
  double *field = calloc((size_t)P * n, sizeof *field);
  double *mine = malloc((size_t)n * sizeof *mine);
  double *scratch = malloc((size_t)(n + 2) * sizeof *scratch);
  if (!field || !mine || !scratch) MPI_Abort(MPI_COMM_WORLD, 3);

  double t_gather = 0.0, t_compute = 0.0, heat = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < o.iters; it++) {
    double tc = MPI_Wtime();
    int steps = substeps(&o, P, rank, it);
    double centre = spot_centre(&o, P, it);
    double strength = 1.0 / (1.0 + heat / length); /* throttled by the rod's total heat */
    double left = field[(rank * n - 1 + P * n) % (P * n)], right = field[((rank + 1) * n) % (P * n)];
    memcpy(mine, field + (size_t)rank * n, (size_t)n * sizeof *mine);
#ifdef HEAT1D_PAT
    PAT_ProcessingStart();
#endif
    advance(mine, scratch, n, left, right, 0, steps / 2, steps, (double)rank * n, centre, length, strength);
#ifdef HEAT1D_PAT
    if (steps / 2 > 0) PAT_Edge(100.0 * (steps / 2) / steps); /* the sub-steps cost the same */
#endif
    advance(mine, scratch, n, left, right, steps / 2, steps, steps, (double)rank * n, centre, length, strength);
#ifdef HEAT1D_PAT
    PAT_ProcessingEnd();
#endif
    double tg = MPI_Wtime();
    t_compute += tg - tc;
    int rc = ALLGATHER(mine, n, MPI_DOUBLE, field, n, MPI_DOUBLE, MPI_COMM_WORLD);
    t_gather += MPI_Wtime() - tg;
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
    heat = 0.0;
    for (int i = 0; i < P * n; i++) heat += field[i];
  }
  double t_total = MPI_Wtime() - t0;

  /* every rank must hold the same field: compare the hashes */
  uint64_t h = fnv1a(field, (size_t)P * n * sizeof *field), hmin, hmax;
  MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  double in[3] = {t_total, t_gather, t_compute}, mx[3], sum[3];
  MPI_Reduce(in, mx, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(in, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  char algs[256] = "";
#ifdef HEAT1D_PAT
  PAT_Stats st;
  if (PAT_GetStats(&st) == MPI_SUCCESS) {
    size_t len = 0;
    for (int a = 0; a < PAT_AlgCount() && a < 16; a++)
      if (st.calls_per_alg[a] > 0 && len < sizeof algs)
        len += (size_t)snprintf(algs + len, sizeof algs - len, "%s%s:%lld", len ? "," : " algs=", PAT_AlgName(a),
                                st.calls_per_alg[a]);
  }
  PAT_Finalize();
#endif
  if (rank == 0) {
    const char *alg = getenv("PAT_ALG");
    printf("heat1d build=%s P=%d n=%d iters=%d base=%d imbalance=%g hot=%g drift=%g PAT_ALG=%s\n", BUILD, P, n,
           o.iters, o.base, o.imbalance, o.hot, o.drift, alg && *alg ? alg : "-");
    printf("heat1d total_s=%.4f allgather_max_s=%.4f allgather_mean_s=%.4f compute_max_s=%.4f compute_mean_s=%.4f "
           "heat=%.9g checksum=%016llx %s%s\n",
           mx[0], mx[1], sum[1] / P, mx[2], sum[2] / P, heat, (unsigned long long)h,
           hmin == hmax ? "ranks-agree" : "RANKS-DIFFER", algs);
  }
  free(field);
  free(mine);
  free(scratch);
  MPI_Finalize();
  return hmin == hmax ? 0 : 1;
}
