/*
 * bfs: level-synchronous breadth-first search on a replicated random graph,
 * an irregular code whose arrivals at the all-gather libpat cannot predict.
 * Plain MPI, no libpat call: run it as is, or under
 * `mpirun -x LD_PRELOAD=libpat_mpi.so` to get libpat unmodified.
 *
 * Every rank builds the same graph from the seed (N = P*v vertices, about
 * N*d/2 undirected edges; one endpoint of each edge is drawn with a skew
 * towards "hub" vertices, which a fixed permutation spreads over the ranks,
 * so degrees are uneven).  Rank r owns vertices [r*v, (r+1)*v).  A search
 * from a random root goes level by level, bottom-up: each rank scans its own
 * unvisited vertices for a neighbour in the current frontier (a replicated
 * bitmap), marks those it finds in its part of the next frontier, then
 *
 *   MPI_Allgather of the frontier bitmaps (v/64 unsigned longs per rank), and
 *   MPI_Allgather of a small summary (4 long longs per rank: vertices found,
 *   edges scanned, the level, a digest of the vertices found),
 *
 * and the search ends when no rank found a vertex.  How much a rank scans at
 * a level depends on how many of its vertices are unvisited, their degrees
 * and where the frontier is: it changes from level to level and from search
 * to search, so who arrives late is not what arrived late before.
 *
 * Deterministic: every rank holds every vertex's level, the all-gathers only
 * move bytes, so the checksum of all levels of all searches is the same in
 * every mode and with every algorithm.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tools/cli.h"

#define SUMMARY 4 /* long longs per rank in the summary all-gather */
#define BITS 64   /* bits per unsigned long in the bitmaps (checked in main) */

typedef struct options {
  int v;         /* vertices per rank */
  int searches;
  double degree; /* mean degree */
  uint64_t seed;
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: bfs [-v vertices_per_rank] [-d mean_degree] [-n searches] [-s seed]\n"
          "  -v  vertices per rank, a multiple of 64 (the frontier bitmap all-gathers v/64 unsigned longs per rank)\n"
          "  -d  mean degree of the random graph\n"
          "  -n  searches, each from a random root\n"
          "  -s  random seed of the graph and the roots\n"
          "defaults: -v 32768 -d 16 -n 32 -s 1\n");
}

static int parse(int argc, char **argv, options *o, cli_error *err) {
  *o = (options){.v = 32768, .searches = 32, .degree = 16.0, .seed = 1};
  cli_args a;
  cli_args_init(&a, argc, argv);
  while (cli_args_next(&a)) {
    uint64_t seed;
    if (cli_args_is(&a, "-h|--help")) return 1;
    if (cli_args_is(&a, "-v")) {
      if (cli_args_int(&a, 64, 1 << 24, &o->v, err)) return -1;
    } else if (cli_args_is(&a, "-n")) {
      if (cli_args_int(&a, 1, 1 << 20, &o->searches, err)) return -1;
    } else if (cli_args_is(&a, "-d")) {
      if (cli_args_real(&a, 0.5, 1000.0, &o->degree, err)) return -1;
    } else if (cli_args_is(&a, "-s")) {
      if (cli_args_count(&a, 0, UINT64_MAX, &seed, err)) return -1;
      o->seed = seed;
    } else if (cli_args_unknown(&a, err)) {
      return -1;
    }
  }
  if (o->v % BITS) {
    snprintf(err->text, sizeof err->text, "-v %d is not a multiple of %d", o->v, BITS);
    return -1;
  }
  return 0;
}

/* splitmix64: the same stream on every rank */
static uint64_t next_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double uniform(uint64_t *state) { return (double)(next_u64(state) >> 11) / 9007199254740992.0; }

/* The graph in compressed rows (both directions of every edge). */
typedef struct graph {
  int64_t N;
  int64_t *start; /* N + 1 */
  int32_t *adj;
} graph;

/* A fixed permutation of [0, N): multiplication by a prime that does not
 * divide N is a bijection modulo N; it spreads the hubs over the ranks. */
static int64_t spread(int64_t x, int64_t N) {
  const int64_t prime = N % 1000003 ? 1000003 : 999983;
  return (int64_t)(((unsigned __int128)x * (unsigned)prime) % (uint64_t)N);
}

static int build_graph(graph *g, int64_t N, double degree, uint64_t seed) {
  int64_t m = (int64_t)(N * degree / 2);
  int64_t *eu = malloc((size_t)m * sizeof *eu), *ew = malloc((size_t)m * sizeof *ew);
  g->N = N;
  g->start = calloc((size_t)N + 1, sizeof *g->start);
  g->adj = malloc((size_t)(2 * m > 0 ? 2 * m : 1) * sizeof *g->adj);
  if (!eu || !ew || !g->start || !g->adj) return -1;
  uint64_t st = seed * 0x2545f4914f6cdd1dull + 17;
  for (int64_t e = 0; e < m; e++) {
    double x = uniform(&st);
    eu[e] = spread((int64_t)(x * x * x * (double)N), N); /* skewed: low ids before the permutation are hubs */
    ew[e] = (int64_t)(uniform(&st) * (double)N);
    g->start[eu[e] + 1]++;
    g->start[ew[e] + 1]++;
  }
  for (int64_t u = 0; u < N; u++) g->start[u + 1] += g->start[u];
  int64_t *fill = malloc((size_t)N * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, g->start, (size_t)N * sizeof *fill);
  for (int64_t e = 0; e < m; e++) { /* in edge order: the same rows on every rank */
    g->adj[fill[eu[e]]++] = (int32_t)ew[e];
    g->adj[fill[ew[e]]++] = (int32_t)eu[e];
  }
  free(fill);
  free(eu);
  free(ew);
  return 0;
}

static int has_bit(const unsigned long *map, int64_t u) { return (int)((map[u / BITS] >> (u % BITS)) & 1ul); }

typedef struct totals {
  double gather, compute;
  long long levels, reached;
} totals;

/* One search from `root`; levels[u] = the level of u, or -1.  Returns 0, or
 * an MPI error code. */
static int search(const graph *g, int rank, int P, int v, int64_t root, int32_t *levels, unsigned long *frontier,
                  unsigned long *mine, long long *summary, totals *t) {
  const int W = v / BITS; /* unsigned longs per rank */
  for (int64_t u = 0; u < g->N; u++) levels[u] = -1;
  memset(frontier, 0, (size_t)W * P * sizeof *frontier);
  levels[root] = 0;
  frontier[root / BITS] |= 1ul << (root % BITS);
  t->reached++;
  for (int level = 1;; level++) {
    double tc = MPI_Wtime();
    memset(mine, 0, (size_t)W * sizeof *mine);
    long long found = 0, scanned = 0, digest = 0;
    for (int i = 0; i < v; i++) {
      int64_t u = (int64_t)rank * v + i;
      if (levels[u] >= 0) continue;
      for (int64_t k = g->start[u]; k < g->start[u + 1]; k++) {
        scanned++;
        if (has_bit(frontier, g->adj[k])) {
          mine[i / BITS] |= 1ul << (i % BITS);
          found++;
          digest += u;
          break;
        }
      }
    }
    double tg = MPI_Wtime();
    t->compute += tg - tc;
    int rc = MPI_Allgather(mine, W, MPI_UNSIGNED_LONG, frontier, W, MPI_UNSIGNED_LONG, MPI_COMM_WORLD);
    long long row[SUMMARY] = {found, scanned, level, digest};
    if (rc == MPI_SUCCESS)
      rc = MPI_Allgather(row, SUMMARY, MPI_LONG_LONG, summary, SUMMARY, MPI_LONG_LONG, MPI_COMM_WORLD);
    t->gather += MPI_Wtime() - tg;
    if (rc != MPI_SUCCESS) return rc;
    long long total = 0;
    for (int r = 0; r < P; r++) total += summary[SUMMARY * r];
    if (total == 0) return MPI_SUCCESS;
    t->levels++;
    t->reached += total;
    for (int64_t w = 0; w < (int64_t)W * P; w++) /* rank r's part of the bitmap covers its vertices */
      for (unsigned long bits = frontier[w]; bits; bits &= bits - 1) {
        int64_t u = (w / W) * v + (w % W) * BITS + __builtin_ctzl(bits);
        levels[u] = level;
      }
  }
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *p = data;
  for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  options o;
  cli_error err;
  int parsed = sizeof(unsigned long) * 8 == BITS ? parse(argc, argv, &o, &err) : -1;
  if (parsed != 0) {
    if (rank == 0 && parsed < 0) fprintf(stderr, "bfs: %s\n", err.text);
    if (rank == 0) usage();
    MPI_Finalize();
    return parsed < 0 ? 2 : 0;
  }
  graph g = {0};
  int64_t N = (int64_t)P * o.v;
  int32_t *levels = malloc((size_t)N * sizeof *levels);
  unsigned long *frontier = malloc((size_t)N / BITS * sizeof *frontier);
  unsigned long *mine = malloc((size_t)o.v / BITS * sizeof *mine);
  long long *summary = malloc((size_t)P * SUMMARY * sizeof *summary);
  double *times = malloc((size_t)o.searches * sizeof *times), *times_max = malloc((size_t)o.searches * sizeof *times);
  if (N > INT32_MAX || build_graph(&g, N, o.degree, o.seed) || !levels || !frontier || !mine || !summary || !times ||
      !times_max) {
    if (rank == 0) fprintf(stderr, "bfs: out of memory, or too many vertices (-v)\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  totals t = {0};
  uint64_t h = 1469598103934665603ull, roots = o.seed * 0x9e3779b97f4a7c15ull + 5;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < o.searches; s++) {
    int64_t root;
    do root = (int64_t)(uniform(&roots) * (double)N); /* a root with an edge */
    while (g.start[root + 1] == g.start[root]);
    MPI_Barrier(MPI_COMM_WORLD); /* searches start together, as the program times each */
    double ts = MPI_Wtime();
    int rc = search(&g, rank, P, o.v, root, levels, frontier, mine, summary, &t);
    times[s] = MPI_Wtime() - ts;
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "bfs: rank %d: MPI_Allgather failed (%d)\n", rank, rc);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    h = fnv1a(h, levels, (size_t)N * sizeof *levels);
  }
  double total = MPI_Wtime() - t0;
  uint64_t hmin, hmax;
  MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  double in[3] = {total, t.gather, t.compute}, mx[3], sum[3];
  MPI_Reduce(in, mx, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(in, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(times, times_max, o.searches, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(times_max, (size_t)o.searches, sizeof *times_max, cmp_double);
    double median = o.searches % 2 ? times_max[o.searches / 2]
                                   : 0.5 * (times_max[o.searches / 2 - 1] + times_max[o.searches / 2]);
    const char *alg = getenv("PAT_ALG");
    printf("bfs build=plain-mpi P=%d vertices_per_rank=%d N=%lld degree=%g searches=%d seed=%llu PAT_ALG=%s\n", P,
           o.v, (long long)N, o.degree, o.searches, (unsigned long long)o.seed, alg && *alg ? alg : "-");
    printf("bfs total_s=%.4f allgather_max_s=%.4f allgather_mean_s=%.4f compute_max_s=%.4f compute_mean_s=%.4f "
           "search_median_s=%.6f levels=%lld reached=%lld checksum=%016llx %s\n",
           mx[0], mx[1], sum[1] / P, mx[2], sum[2] / P, median, t.levels, t.reached, (unsigned long long)h,
           hmin == hmax ? "ranks-agree" : "RANKS-DIFFER");
  }
  free(g.start);
  free(g.adj);
  free(levels);
  free(frontier);
  free(mine);
  free(summary);
  free(times);
  free(times_max);
  MPI_Finalize();
  return hmin == hmax ? 0 : 1;
}
