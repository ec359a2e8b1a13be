/*
 * nbody: a replicated-data particle code whose ranks arrive at the
 * all-gather at different times, and who is late drifts, for trying libpat
 * on a kernel from the field.
 *
 * N = P*n particles in a periodic box; rank r owns particles [r*n, (r+1)*n)
 * for the whole run (fixed ownership by index, as in a replicated-data
 * molecular dynamics code).  Every rank holds every position.  Each step a
 * rank computes the forces on its own particles from all particles within
 * the cut-off radius, moves its particles, and all-gathers the positions (3
 * doubles per particle), so that every rank again holds all of them.
 *
 * Forces: a smooth short-range pair force with a soft repulsive core and an
 * attractive shell, cut off at rc.  It is a Gaussian mixture evaluated term
 * by term (-w terms, one exp each, as a coarse-grained potential fitted by
 * Gaussians would be): the cost of one interaction is the knob for how much
 * work a neighbour brings.  Candidates come from a cell list (cells of at
 * least rc, the 27 around a particle), so a rank's work is proportional to
 * the number of neighbours of its particles, not to N*n.
 *
 * Natural, drifting imbalance: particles start in -c Gaussian clusters,
 * generated cluster by cluster, so a rank owns particles of one or two
 * clusters.  The clusters have different densities (the densest -x times
 * the sparsest; -k sets the neighbours of a particle of the sparsest one),
 * so ranks that own dense clusters have more neighbours per particle, more
 * work, and arrive late.  The clusters lie along the long axis of the box
 * and each drifts along it at its own speed (alternating directions, the
 * fastest at -d cut-off radii per step): in the periodic box they pass
 * through one another now and then, and while two overlap both sides' ranks
 * have more neighbours.  Who is late therefore changes over tens to
 * hundreds of steps; the forces themselves change the clusters only slowly.
 *
 * Deterministic: the initial state comes from a fixed seed and is generated
 * identically on every rank; the force on a particle is summed in an order
 * that depends only on the positions (cells in a fixed order, particles by
 * index within a cell), and the all-gather only moves bytes, so the final
 * positions, hashed, are the same in every mode and with every algorithm.
 *
 * Built twice from this source:
 *   nbody       plain MPI (MPI_Init, MPI_Allgather): run it as is, or under
 *               `mpirun -x LD_PRELOAD=libpat_mpi.so` to get libpat unmodified;
 *   nbody-pat   -DNBODY_PAT: PAT_Init, PAT_ProcessingStart at the start of
 *               the force loop, PAT_Edge when half of the rank's estimated
 *               work is done, PAT_ProcessingEnd before the all-gather,
 *               PAT_Allgather.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tools/cli.h"
#ifdef NBODY_PAT
#include "pat.h"
#define ALLGATHER PAT_Allgather
#define BUILD "instrumented"
#else
#define ALLGATHER MPI_Allgather
#define BUILD "plain-mpi"
#endif

#define MAX_CLUSTERS 64
#define PI 3.14159265358979323846 /* M_PI is not ISO C */
#define MAX_TERMS 1024

typedef struct options {
  int n;             /* particles per rank */
  int steps;
  int clusters;      /* Gaussian clusters */
  int terms;         /* Gaussian terms per interaction: the work of one neighbour */
  int profile;       /* print each rank's work every `profile` steps (0: never) */
  double cutoff;     /* rc, in units of the potential's length scale */
  double neighbours; /* mean neighbours within rc of a particle in the sparsest cluster */
  double contrast;   /* density of the densest cluster / the sparsest */
  double drift;      /* speed of the fastest cluster, in cut-off radii per step */
  uint64_t seed;
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: nbody [-n particles_per_rank] [-i steps] [-c clusters] [-k neighbours] [-x contrast]\n"
          "             [-d drift] [-r cutoff] [-w terms] [-s seed] [--profile every]\n"
          "  -n  particles per rank (3 doubles each are all-gathered every step)\n"
          "  -i  time steps\n"
          "  -c  Gaussian clusters, generated one after the other (ranks own consecutive particles)\n"
          "  -k  mean neighbours within the cut-off of a particle of the sparsest cluster\n"
          "  -x  density contrast: densest cluster / sparsest (1 = all alike)\n"
          "  -d  drift speed of the fastest cluster, cut-off radii per step (0 = clusters at rest)\n"
          "  -r  cut-off radius, in units of the potential's length\n"
          "  -w  Gaussian terms evaluated per interaction (work per neighbour)\n"
          "  -s  random seed of the initial state\n"
          "  --profile K  every K steps, rank 0 prints each rank's neighbours, compute and all-gather time\n"
          "defaults: -n 10000 -i 200 -c 4 -k 24 -x 2 -d 0.2 -r 2.5 -w 4 -s 1\n");
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  options *o = opts;
  uint64_t seed;
  if (cli_args_is(a, "-n")) return cli_args_int(a, 1, 1 << 26, &o->n, err);
  if (cli_args_is(a, "-i")) return cli_args_int(a, 0, 1 << 30, &o->steps, err);
  if (cli_args_is(a, "-c")) return cli_args_int(a, 1, MAX_CLUSTERS, &o->clusters, err);
  if (cli_args_is(a, "-w")) return cli_args_int(a, 1, MAX_TERMS, &o->terms, err);
  if (cli_args_is(a, "--profile")) return cli_args_int(a, 0, 1 << 30, &o->profile, err);
  if (cli_args_is(a, "-r")) return cli_args_real(a, 0.1, 100.0, &o->cutoff, err);
  if (cli_args_is(a, "-k")) return cli_args_real(a, 0.01, 1e4, &o->neighbours, err);
  if (cli_args_is(a, "-x")) return cli_args_real(a, 1.0, 1e3, &o->contrast, err);
  if (cli_args_is(a, "-d")) return cli_args_real(a, 0.0, 1.0, &o->drift, err);
  if (cli_args_is(a, "-s")) {
    if (cli_args_count(a, 0, UINT64_MAX, &seed, err)) return -1;
    o->seed = seed;
    return 0;
  }
  return cli_args_unknown(a, err);
}

/* The options: 0, 1 for -h, or -1 with a message in *err. */
static int parse(int argc, char **argv, options *o, cli_error *err) {
  *o = (options){.n = 10000, .steps = 200, .clusters = 4, .terms = 4, .profile = 0, .cutoff = 2.5,
                 .neighbours = 24.0, .contrast = 2.0, .drift = 0.2, .seed = 1};
  return cli_args_parse(argc, argv, parse_option, o, err);
}

/* ---- deterministic random numbers (splitmix64) ---------------------------- */

static uint64_t next_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in (0, 1): never 0, so log() below is finite. */
static double uniform(uint64_t *state) { return ((double)(next_u64(state) >> 11) + 0.5) * 0x1.0p-53; }

/* Standard normal (Box-Muller, one value per call: simple and reproducible). */
static double gaussian(uint64_t *state) {
  double u = uniform(state), v = uniform(state);
  return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

/* ---- the system ----------------------------------------------------------- */

/* The physical constants: kept fixed so that options change the workload
 * (sizes, densities, speeds, cost) and not the integrator's stability. */
#define DT 0.05           /* time step */
#define STRENGTH 0.02     /* force scale */
#define THERMAL 0.02      /* initial random speed per component, in cut-off radii per time unit */
#define BETA_LO 0.25      /* Gaussian exponents of the mixture, in 1/length^2 ... */
#define BETA_HI 4.0
#define BETA_ZERO 1.5     /* ... terms with larger exponents repel, smaller ones attract */

typedef struct cluster {
  double centre[3], sigma, speed; /* speed along x */
  int first, count;               /* particles [first, first + count) */
} cluster;

typedef struct pair_force {
  int terms;
  double rc2;
  double beta[MAX_TERMS], coef[MAX_TERMS];
} pair_force;

typedef struct cell_list {
  int dim[3], ncells;
  double size[3];
  int *start;       /* ncells + 1: cell c holds sorted entries [start[c], start[c+1]) */
  int *index;       /* N: particle of each sorted entry */
  double *x, *y, *z; /* N: positions in sorted order, for contiguous scans */
  int *fill;        /* ncells: scratch for the counting sort */
} cell_list;

typedef struct sim {
  int rank, P, n, N;
  double box[3];
  double *pos;   /* 3N, every particle, replicated */
  double *mine;  /* 3n, this rank's particles after the step (the send buffer) */
  double *vel;   /* 3n, this rank's particles */
  double *force; /* 3n */
  double *cost;  /* n: estimated work per own particle */
  pair_force pf;
  cell_list cells;
} sim;

/* The force's Gaussian terms: a midpoint rule over the exponents, so more
 * terms cost more but describe about the same force. */
static void pair_force_init(pair_force *pf, const options *o) {
  pf->terms = o->terms;
  pf->rc2 = o->cutoff * o->cutoff;
  for (int k = 0; k < o->terms; k++) {
    double beta = BETA_LO + (k + 0.5) * (BETA_HI - BETA_LO) / o->terms;
    pf->beta[k] = beta;
    pf->coef[k] = STRENGTH * (beta - BETA_ZERO) / o->terms;
  }
}

/* Force on a particle divided by the distance (positive: repulsive), smoothly
 * switched off at rc; r2 < rc^2. */
static double pair_force_over_r(const pair_force *pf, double r2) {
  double sum = 0.0;
  for (int k = 0; k < pf->terms; k++) sum += pf->coef[k] * exp(-pf->beta[k] * r2);
  double s = 1.0 - r2 / pf->rc2;
  return sum * s * s;
}

/* Width of a Gaussian cluster of `count` particles whose particles have on
 * average `neighbours` others within rc: the density a particle sees,
 * averaged over the cluster, is count / (4 pi sigma^2)^(3/2). */
static double cluster_sigma(double count, double neighbours, double rc) {
  double sphere = 4.0 / 3.0 * PI * rc * rc * rc;
  return pow(count * sphere / (neighbours * pow(4.0 * PI, 1.5)), 1.0 / 3.0);
}

/* Clusters of (about) equal counts, densities from contrast (densest first)
 * down to 1, centred on the long (x) axis of the box at equal spacing, with
 * speeds +1/K, -2/K, +3/K, ... times the drift: every pair meets sooner or
 * later, at different times.  Sets the box. */
static void clusters_init(cluster *cl, sim *s, const options *o) {
  int K = o->clusters;
  double sparsest = cluster_sigma((double)s->N / K, o->neighbours, o->cutoff);
  double side = fmax(6.0 * sparsest, 3.0 * o->cutoff); /* +-3 sigma; >= 3 cells */
  s->box[0] = fmax(K * side, 3.0 * o->cutoff);
  s->box[1] = s->box[2] = side;
  for (int k = 0; k < K; k++) {
    double density = K > 1 ? pow(o->contrast, (double)(K - 1 - k) / (K - 1)) : 1.0;
    cl[k].first = (int)((int64_t)s->N * k / K);
    cl[k].count = (int)((int64_t)s->N * (k + 1) / K) - cl[k].first;
    cl[k].sigma = sparsest / cbrt(density);
    cl[k].centre[0] = (k + 0.5) * s->box[0] / K;
    cl[k].centre[1] = cl[k].centre[2] = 0.5 * side;
    cl[k].speed = (k % 2 ? -1.0 : 1.0) * (k + 1.0) / K * o->drift * o->cutoff / DT;
  }
}

/* Into [0, length). */
static double wrap(double x, double length) {
  x -= length * floor(x / length);
  return x < length ? x : 0.0; /* floor rounding can leave x == length */
}

/* Every rank draws every particle in the same order (the same numbers), and
 * keeps the velocities of its own. */
static void particles_init(sim *s, const cluster *cl, const options *o) {
  uint64_t state = o->seed;
  for (int k = 0; k < o->clusters; k++)
    for (int i = cl[k].first; i < cl[k].first + cl[k].count; i++) {
      double v[3];
      for (int d = 0; d < 3; d++) s->pos[3 * i + d] = wrap(cl[k].centre[d] + cl[k].sigma * gaussian(&state), s->box[d]);
      for (int d = 0; d < 3; d++) v[d] = THERMAL * o->cutoff * gaussian(&state);
      v[0] += cl[k].speed;
      int own = i - s->rank * s->n;
      if (own >= 0 && own < s->n) memcpy(s->vel + 3 * own, v, sizeof v);
    }
}

/* ---- cell list ------------------------------------------------------------ */

#define MAX_CELLS (1 << 26) /* 256 MiB of cell starts: a box far too sparse for its cut-off */

static int cells_init(cell_list *c, const double *box, double rc, int N) {
  double cells = 1.0;
  for (int d = 0; d < 3; d++) {
    double dim = floor(box[d] / rc);
    if (dim < 3) return -1; /* the 27 neighbours must be distinct cells */
    cells *= dim;
    if (cells > MAX_CELLS) return -1;
    c->dim[d] = (int)dim;
    c->size[d] = box[d] / dim;
  }
  c->ncells = (int)cells;
  c->start = calloc((size_t)c->ncells + 1, sizeof *c->start);
  c->fill = calloc((size_t)c->ncells, sizeof *c->fill);
  c->index = malloc((size_t)N * sizeof *c->index);
  c->x = malloc((size_t)N * sizeof *c->x);
  c->y = malloc((size_t)N * sizeof *c->y);
  c->z = malloc((size_t)N * sizeof *c->z);
  return c->start && c->fill && c->index && c->x && c->y && c->z ? 0 : -1;
}

static void cells_free(cell_list *c) {
  free(c->start);
  free(c->fill);
  free(c->index);
  free(c->x);
  free(c->y);
  free(c->z);
}

static int cell_coord(double x, double size, int dim) {
  int c = (int)(x / size);
  return c < dim ? c : dim - 1;
}

static int cell_of(const cell_list *c, const double *p) {
  int cx = cell_coord(p[0], c->size[0], c->dim[0]);
  int cy = cell_coord(p[1], c->size[1], c->dim[1]);
  int cz = cell_coord(p[2], c->size[2], c->dim[2]);
  return (cz * c->dim[1] + cy) * c->dim[0] + cx;
}

/* Counting sort of all particles by cell; stable, so a cell lists its
 * particles by index and the scan order depends only on the positions. */
static void cells_build(cell_list *c, const double *pos, int N) {
  memset(c->start, 0, ((size_t)c->ncells + 1) * sizeof *c->start);
  for (int i = 0; i < N; i++) c->start[cell_of(c, pos + 3 * i) + 1]++;
  for (int k = 0; k < c->ncells; k++) c->start[k + 1] += c->start[k];
  memcpy(c->fill, c->start, (size_t)c->ncells * sizeof *c->fill);
  for (int i = 0; i < N; i++) {
    int e = c->fill[cell_of(c, pos + 3 * i)]++;
    c->index[e] = i;
    c->x[e] = pos[3 * i];
    c->y[e] = pos[3 * i + 1];
    c->z[e] = pos[3 * i + 2];
  }
}

/* Neighbour cell `offset` (-1, 0, 1) of coordinate `at` in a periodic
 * dimension, and the shift that brings its particles next to `at`. */
static int neighbour_coord(int at, int offset, int dim, double length, double *shift) {
  int c = at + offset;
  *shift = c < 0 ? -length : c >= dim ? length : 0.0;
  return c < 0 ? c + dim : c >= dim ? c - dim : c;
}

/* ---- forces ----------------------------------------------------------- */

/* Force on particle i (global index) from the particles of one cell, seen
 * through the periodic shift; returns the interactions (pairs within rc). */
static int64_t force_from_cell(const sim *s, int i, const double *p, int cell, const double *shift, double *f) {
  const cell_list *c = &s->cells;
  int64_t hits = 0;
  for (int e = c->start[cell]; e < c->start[cell + 1]; e++) {
    double dx = p[0] - (c->x[e] + shift[0]), dy = p[1] - (c->y[e] + shift[1]), dz = p[2] - (c->z[e] + shift[2]);
    double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= s->pf.rc2 || c->index[e] == i) continue;
    double g = pair_force_over_r(&s->pf, r2);
    f[0] += g * dx;
    f[1] += g * dy;
    f[2] += g * dz;
    hits++;
  }
  return hits;
}

/* Visits the 27 cells around particle i's (in a fixed order) and calls
 * visit(s, i, p, cell, shift, ctx) for each; returns the sum of what the
 * calls return. */
typedef int64_t (*cell_visit)(const sim *s, int i, const double *p, int cell, const double *shift, double *ctx);

static int64_t around(const sim *s, int i, cell_visit visit, double *ctx) {
  const cell_list *c = &s->cells;
  const double *p = s->pos + 3 * (size_t)i;
  int at[3] = {cell_coord(p[0], c->size[0], c->dim[0]), cell_coord(p[1], c->size[1], c->dim[1]),
               cell_coord(p[2], c->size[2], c->dim[2])};
  int64_t sum = 0;
  for (int oz = -1; oz <= 1; oz++)
    for (int oy = -1; oy <= 1; oy++)
      for (int ox = -1; ox <= 1; ox++) {
        double shift[3];
        int cx = neighbour_coord(at[0], ox, c->dim[0], s->box[0], &shift[0]);
        int cy = neighbour_coord(at[1], oy, c->dim[1], s->box[1], &shift[1]);
        int cz = neighbour_coord(at[2], oz, c->dim[2], s->box[2], &shift[2]);
        sum += visit(s, i, p, (cz * c->dim[1] + cy) * c->dim[0] + cx, shift, ctx);
      }
  return sum;
}

static int64_t count_cell(const sim *s, int i, const double *p, int cell, const double *shift, double *ctx) {
  (void)i, (void)p, (void)shift, (void)ctx;
  return s->cells.start[cell + 1] - s->cells.start[cell];
}

/* The work of each own particle, estimated by its candidates (particles in
 * the 27 cells around it): the scan costs that much and a fixed share of the
 * candidates are within rc.  Returns the total. */
static double estimate_work(sim *s) {
  double total = 0.0;
  for (int k = 0; k < s->n; k++) {
    s->cost[k] = (double)around(s, s->rank * s->n + k, count_cell, NULL);
    total += s->cost[k];
  }
  return total;
}

/* Forces on own particles [from, to); returns their interactions. */
static int64_t forces(sim *s, int from, int to) {
  int64_t hits = 0;
  for (int k = from; k < to; k++) {
    double *f = s->force + 3 * (size_t)k;
    f[0] = f[1] = f[2] = 0.0;
    hits += around(s, s->rank * s->n + k, force_from_cell, f);
  }
  return hits;
}

/* The own particle after which half of the estimated work is done, and how
 * much that is, in percent. */
static int half_point(const sim *s, double total, double *percent) {
  double done = 0.0;
  int k = 0;
  while (k < s->n - 1 && done + s->cost[k] < 0.5 * total) done += s->cost[k++];
  done += s->cost[k];
  *percent = total > 0.0 ? 100.0 * done / total : 0.0;
  return k + 1;
}

/* Symplectic Euler: kick with the force, drift, wrap into the box; the new
 * positions go to the send buffer. */
static void integrate(sim *s) {
  const double *own = s->pos + 3 * (size_t)s->rank * s->n;
  for (int k = 0; k < 3 * s->n; k++) {
    s->vel[k] += DT * s->force[k];
    s->mine[k] = wrap(own[k] + DT * s->vel[k], s->box[k % 3]);
  }
}

/* ---- instrumentation: nothing in the plain build -------------------------- */

static void phase_start(void) {
#ifdef NBODY_PAT
  PAT_ProcessingStart();
#endif
}

static void phase_edge(double percent) {
#ifdef NBODY_PAT
  if (percent > 0.0 && percent < 100.0) PAT_Edge(percent);
#else
  (void)percent;
#endif
}

static void phase_end(void) {
#ifdef NBODY_PAT
  PAT_ProcessingEnd();
#endif
}

/* ---- the run ------------------------------------------------------------ */

typedef struct totals {
  double gather, compute;             /* summed over the steps */
  double last_gather, last_compute;   /* the last step's */
  int64_t interactions;
} totals;

/* One time step: forces on own particles (the edge when half of the
 * estimated work is done), move them, all-gather the positions.  Returns
 * the step's interactions; accumulates the times. */
static int64_t step(sim *s, totals *t) {
  double tc = MPI_Wtime();
  cells_build(&s->cells, s->pos, s->N);
  double percent, total = estimate_work(s);
  int half = half_point(s, total, &percent);
  phase_start();
  int64_t hits = forces(s, 0, half);
  phase_edge(percent);
  hits += forces(s, half, s->n);
  integrate(s);
  phase_end();
  double tg = MPI_Wtime();
  int rc = ALLGATHER(s->mine, 3 * s->n, MPI_DOUBLE, s->pos, 3 * s->n, MPI_DOUBLE, MPI_COMM_WORLD);
  t->last_compute = tg - tc;
  t->last_gather = MPI_Wtime() - tg;
  t->compute += t->last_compute;
  t->gather += t->last_gather;
  if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
  t->interactions += hits;
  return hits;
}

/* --profile: each rank's interactions per particle, compute time and time
 * in the all-gather of this step, on rank 0 (an extra gather: for looking at
 * the imbalance, not for timing). */
static void profile(const sim *s, int it, int64_t hits, const totals *t) {
  enum { FIELDS = 3 };
  double mine[FIELDS] = {(double)hits / s->n, t->last_compute * 1e3, t->last_gather * 1e3}, *all = NULL;
  if (s->rank == 0 && !(all = malloc(FIELDS * (size_t)s->P * sizeof *all))) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Gather(mine, FIELDS, MPI_DOUBLE, all, FIELDS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (s->rank != 0) return;
  static const char *const name[FIELDS] = {"neighbours/particle:", "  compute ms:", "  all-gather ms:"};
  printf("nbody profile step=%d ", it);
  for (int f = 0; f < FIELDS; f++) {
    printf("%s", name[f]);
    for (int r = 0; r < s->P; r++) printf(" %.1f", all[FIELDS * r + f]);
  }
  printf("\n");
  free(all);
}

static int sim_init(sim *s, const options *o) {
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s->P);
  if ((int64_t)o->n * s->P > (1 << 28)) return -1;
  s->n = o->n;
  s->N = o->n * s->P;
  s->pos = malloc(3 * (size_t)s->N * sizeof *s->pos);
  s->mine = malloc(3 * (size_t)s->n * sizeof *s->mine);
  s->vel = malloc(3 * (size_t)s->n * sizeof *s->vel);
  s->force = malloc(3 * (size_t)s->n * sizeof *s->force);
  s->cost = malloc((size_t)s->n * sizeof *s->cost);
  if (!s->pos || !s->mine || !s->vel || !s->force || !s->cost) return -1;
  cluster cl[MAX_CLUSTERS];
  clusters_init(cl, s, o);
  particles_init(s, cl, o);
  pair_force_init(&s->pf, o);
  return cells_init(&s->cells, s->box, o->cutoff, s->N);
}

static void sim_free(sim *s) {
  free(s->pos);
  free(s->mine);
  free(s->vel);
  free(s->force);
  free(s->cost);
  cells_free(&s->cells);
}

static uint64_t fnv1a(const void *data, size_t bytes) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* Radius of gyration of all particles about the box centre (a physical
 * summary every rank computes alike from the replicated positions). */
static double gyration(const sim *s) {
  double sum = 0.0;
  for (int i = 0; i < s->N; i++)
    for (int d = 0; d < 3; d++) {
      double x = s->pos[3 * i + d] - 0.5 * s->box[d];
      sum += x * x;
    }
  return sqrt(sum / s->N);
}

/* " algs=ring:300,ard:2" from libpat's statistics (instrumented build). */
static void describe_algorithms(char *out, size_t size) {
  out[0] = '\0';
#ifdef NBODY_PAT
  PAT_Stats st;
  if (PAT_GetStats(&st) != MPI_SUCCESS) return;
  size_t len = 0;
  for (int a = 0; a < PAT_AlgCount() && a < 16; a++)
    if (st.calls_per_alg[a] > 0 && len < size)
      len += (size_t)snprintf(out + len, size - len, "%s%s:%lld", len ? "," : " algs=", PAT_AlgName(a),
                              st.calls_per_alg[a]);
  const char *last = PAT_LastAlg(MPI_COMM_WORLD);
  if (len < size && last && *last) snprintf(out + len, size - len, " last=%s", last);
#else
  (void)size;
#endif
}

/* Prints the results on rank 0; returns whether every rank ends with the same
 * positions. */
static int report(const sim *s, const options *o, double t_total, const totals *t) {
  uint64_t h = fnv1a(s->pos, 3 * (size_t)s->N * sizeof *s->pos), hmin, hmax;
  MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  double in[3] = {t_total, t->gather, t->compute}, mx[3], sum[3];
  MPI_Reduce(in, mx, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(in, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int64_t hits_max, hits_sum; /* integers: the same in every mode */
  MPI_Reduce(&t->interactions, &hits_max, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t->interactions, &hits_sum, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double rg = gyration(s);
  char algs[256];
  describe_algorithms(algs, sizeof algs);
  if (s->rank != 0) return hmin == hmax;
  const char *alg = getenv("PAT_ALG");
  printf("nbody build=%s P=%d n=%d N=%d steps=%d clusters=%d neighbours=%g contrast=%g drift=%g cutoff=%g "
         "terms=%d seed=%llu PAT_ALG=%s\n",
         BUILD, s->P, s->n, s->N, o->steps, o->clusters, o->neighbours, o->contrast, o->drift, o->cutoff, o->terms,
         (unsigned long long)o->seed, alg && *alg ? alg : "-");
  printf("nbody total_s=%.4f allgather_max_s=%.4f allgather_mean_s=%.4f compute_max_s=%.4f compute_mean_s=%.4f "
         "interactions=%lld work_imbalance=%.3f rg=%.9g checksum=%016llx %s%s\n",
         mx[0], mx[1], sum[1] / s->P, mx[2], sum[2] / s->P, (long long)hits_sum,
         hits_sum > 0 ? (double)hits_max * s->P / (double)hits_sum : 1.0, rg, (unsigned long long)h,
         hmin == hmax ? "ranks-agree" : "RANKS-DIFFER", algs);
  return hmin == hmax;
}

/* The options, or exit: 0 after -h, 2 after a bad option. */
static void options_or_exit(int argc, char **argv, int rank, options *o) {
  cli_error err;
  int parsed = parse(argc, argv, o, &err);
  if (parsed == 0) return;
  if (rank == 0 && parsed < 0) fprintf(stderr, "nbody: %s\n", err.text);
  if (rank == 0) usage();
  MPI_Finalize();
  exit(parsed < 0 ? 2 : 0);
}

int main(int argc, char **argv) {
#ifdef NBODY_PAT
  int provided; /* libpat's background thread needs MPI_THREAD_MULTIPLE */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#else
  MPI_Init(&argc, &argv);
#endif
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  options o;
  options_or_exit(argc, argv, rank, &o);
#ifdef NBODY_PAT
  if (PAT_Init() != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "nbody: PAT_Init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#endif
  sim s = {0};
  if (sim_init(&s, &o)) {
    if (rank == 0) fprintf(stderr, "nbody: out of memory, or too many particles or cells (-n, -k, -r)\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  totals t = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < o.steps; it++) {
    int64_t hits = step(&s, &t);
    if (o.profile > 0 && (it % o.profile == 0 || it == o.steps - 1)) profile(&s, it, hits, &t);
  }
  double t_total = MPI_Wtime() - t0;
  int agree = report(&s, &o, t_total, &t);
#ifdef NBODY_PAT
  PAT_Finalize();
#endif
  sim_free(&s);
  MPI_Finalize();
  return agree ? 0 : 1;
}
