/*
 * pat_info: what libpat sees on this machine and job.
 *   mpirun -np N pat_info     (or just pat_info)
 * Prints the version, the algorithms, the settings in effect, the network
 * parameters and where they came from, each rank's clock offset, the hwloc
 * topology, where each rank is bound, and ranks per node.
 *   pat_info --settings-table   the table of settings of docs/settings.md (markdown)
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "model/measured.h"
#include "model/model_file.h"
#include "pat.h"
#include "pat/clock.h"
#include "runtime/netparams.h"
#include "runtime/process.h"
#include "runtime/settings.h"
#include "tools/platform.h"

static void print_topology(hwloc_topology_t topo) {
  int depth_types[] = {HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_CORE, HWLOC_OBJ_PU};
  const char *names[] = {"packages", "NUMA nodes", "cores", "PUs"};
  printf("topology (hwloc %s):", HWLOC_VERSION);
  for (int i = 0; i < 4; i++) printf(" %d %s%s", hwloc_get_nbobjs_by_type(topo, depth_types[i]), names[i], i < 3 ? "," : "\n");
  int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  printf("  hyperthreads: %s\n", pus > cores ? "yes" : "no");
}

/* Where this rank runs, one line; *nodes: how many nodes the job spans. */
static void describe_rank(hwloc_topology_t topo, int rank, char *line, size_t size, int *nodes) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_rank, node_size, is_leader;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  is_leader = node_rank == 0;
  MPI_Allreduce(&is_leader, nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_free(&node);
  char host[MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(host, &len);
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  char where[256] = "unknown";
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) hwloc_bitmap_list_snprintf(where, sizeof where, set);
  hwloc_bitmap_free(set);
  snprintf(line, size, "  rank %d: host %s, node rank %d of %d, cpus %s, clock offset %+.3f us (rtt %.1f us)", rank,
           host, node_rank, node_size, where, 1e-3 * (double)pat_clock_offset_ns(),
           1e-3 * (double)pat_clock_best_rtt_ns());
}

static void print_versions(int provided) {
  printf("libpat %d.%d.%d\n", PAT_VERSION_MAJOR, PAT_VERSION_MINOR, PAT_VERSION_PATCH);
  char mpiver[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(mpiver, &len);
  printf("MPI: %.*s", (int)strcspn(mpiver, "\n"), mpiver);
  printf("\nthread level: %s (background thread %s)\n",
         provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MPI_THREAD_MULTIPLE",
         pat_proc.background ? "running" : "off");
}

static void print_algorithms(void) {
  printf("\nalgorithms:\n");
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    printf("  %-7s %s%s\n", pat_algorithms[i].name, pat_algorithms[i].summary,
           pat_algorithms[i].flags & PAT_ALGF_ARRIVAL ? " [arrival-aware]" : "");
  printf("  %-7s let the cost model choose per call\n", "auto");
}

static void print_settings(void) {
  printf("\nsettings:\n");
  pat_settings_print(stdout, "  ");
}

/* The model's measured times: at each measured size, the fastest algorithm
 * (and native's time beside it); or why there are none. */
static void print_measured(const pat_model_params *mp) {
  const char *note = pat_model_measured_note(mp);
  if (note) {
    printf("  %s\n", note);
    return;
  }
  const pat_measured *t = &mp->measured;
  int ref = 0, algs = 0; /* the sizes shown: those of the algorithm with the most */
  for (int a = 0; a < PAT_ALG_COUNT; a++) {
    algs += t->alg[a].n > 0;
    if (t->alg[a].n > t->alg[ref].n) ref = a;
  }
  const pat_measured_alg *r = &t->alg[ref];
  printf("  measured times: P=%d, balanced arrivals, %d algorithms, %d sizes %.0f..%.0f B; fastest at each size:\n",
         t->P, algs, r->n, r->bytes[0], r->bytes[r->n - 1]);
  for (int i = 0; i < r->n; i++) {
    double best_s, native_s;
    int best = pat_model_measured_best(mp, 0, t->P, r->bytes[i], &best_s);
    printf("    %9.0f B  %-7s %10.3f us", r->bytes[i], pat_algorithms[best].name, best_s * 1e6);
    if (pat_model_measured_time(mp, PAT_ALG_NATIVE, t->P, r->bytes[i], &native_s))
      printf("  (native %.3f us)", native_s * 1e6);
    printf("\n");
  }
}

/* What PAT_ALG=auto does with this model (docs/settings.md, "What auto does"). */
static void print_auto(const pat_model_params *mp) {
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int table = mp->measured.P == P;
  printf("  auto: per call site (communicator, block size) the first call exchanges arrivals; balanced sites run\n"
         "        %s without exchanges (probing now and then);\n"
         "        imbalanced ones exchange ahead of each call and run what the model predicts fastest%s\n",
         table ? "the fastest measured algorithm of the table above"
               : (mp->measured.P ? "native (the table is for another process count)" : "native (no measured times)"),
         table ? "" : ";\n        calibrate (pat-calibrate + pat-fit, or bench/demo.sh) for measured levels");
}

/* Where the model file comes from, and a warning where that is not here: a file calibrated by
 * another libpat or on another platform ranks the algorithms as they did (auto checks a model's
 * static choice against MPI's own at every call site, docs/guardrail.md, but a stale file still
 * costs those checks). */
static void print_origin(const pat_model_params *mp) {
  char version[32], platform[160], note[512];
  snprintf(version, sizeof version, "%d.%d.%d", PAT_VERSION_MAJOR, PAT_VERSION_MINOR, PAT_VERSION_PATCH);
  pat_platform_signature(platform, sizeof platform);
  printf("  made by libpat %s on %s\n", mp->libpat_version[0] ? mp->libpat_version : "(unknown version)",
         mp->platform[0] ? mp->platform : "(platform not recorded)");
  if (pat_model_origin_note(mp, version, platform, note, sizeof note))
    printf("  warning: the model file was %s; recalibrate (pat-calibrate, then pat-fit) for a model of this one\n",
           note);
}

static void print_cost_model(void) {
  const pat_model_params *mp = pat_netparams();
  printf("\ncost model: %s\n", pat_netparams_source());
  if (pat_netparams_have_model()) print_origin(mp);
  printf("  default: alpha %.3f us, beta %.4f ns/byte (%.2f GB/s)\n", mp->dflt.inter.alpha * 1e6,
         mp->dflt.inter.beta * 1e9, 1e-9 / mp->dflt.inter.beta);
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (mp->alg[i].set)
      printf("  %-7s alpha %.3f us, beta %.4f ns/byte%s\n", pat_algorithms[i].name, mp->alg[i].inter.alpha * 1e6,
             mp->alg[i].inter.beta * 1e9, mp->alg[i].has_intra ? " (+ intra-node pair)" : "");
  if (mp->link_set) /* beta may be 0 (the file allows it): no rate then */
    printf("  link:   alpha %.3f us, beta %.4f ns/byte (one pair alone on the network, ping-pong)\n",
           mp->link.alpha * 1e6, mp->link.beta * 1e9);
  printf("  gamma:  %.4f ns/byte (a reduction's combination, MPI_Reduce_local)%s\n", mp->gamma * 1e9,
         mp->gamma_set ? "" : "; not measured:");
  if (!mp->gamma_set) printf("          %s\n", pat_model_gamma_note(mp));
  print_measured(mp);
  print_auto(mp);
  printf("\n");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--settings-table") == 0) { /* docs/settings.md's table; no MPI needed */
    pat_settings_markdown(stdout);
    return 0;
  }
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int rc = PAT_Init();
  if (rc != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "pat_info: PAT_Init failed: %s\n", PAT_Error_string(rc));
    MPI_Finalize();
    return 1;
  }
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  char line[600];
  int nodes;
  describe_rank(topo, rank, line, sizeof line, &nodes);
  char *lines = rank == 0 ? malloc((size_t)P * sizeof line) : NULL;
  MPI_Gather(line, sizeof line, MPI_CHAR, lines, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    print_versions(provided);
    print_algorithms();
    print_settings();
    print_cost_model();
    print_topology(topo);
    printf("job: %d ranks on %d node(s)\n", P, nodes);
    for (int r = 0; r < P; r++) printf("%s\n", lines + (size_t)r * sizeof line);
    free(lines);
  }
  hwloc_topology_destroy(topo);
  PAT_Finalize();
  MPI_Finalize();
  return 0;
}
