/*
 * Unmodified MPI programs under libpat_mpi, one per mode (argv[1]):
 *
 *   init        MPI_Init(NULL, NULL); all-gathers on MPI_COMM_WORLD; the
 *               application sees MPI_THREAD_SINGLE, libpat's thread runs
 *   funneled    MPI_Init_thread(FUNNELED): provided and MPI_Query_thread say
 *   serialized  FUNNELED (SERIALIZED); MPI itself runs MULTIPLE and libpat's
 *               thread runs, unless PAT_THREAD=0: then MPI runs at the
 *               application's level and there is no thread
 *   none        never calls an all-gather (other collectives only)
 *   comms       50 communicators from splits and dups, used interleaved,
 *               40 freed in a shuffled order (the same on every rank), new
 *               ones made after that, 10 left for MPI_Finalize
 *   comms-rank  the same, but every rank frees in its own order (a rank
 *               frees a communicator while another still gathers on it)
 *   errors      argument errors of MPI_Allgather and MPI_Allgatherv go to
 *               the communicator's error handler (MPI_ERRORS_RETURN here)
 *               with MPI's error class
 *   fatal-v     an argument error of MPI_Allgatherv under
 *               MPI_ERRORS_ARE_FATAL: libpat_mpi names the call, MPI aborts
 *   fallback    PAT_ALG is not an algorithm: results still right, libpat off
 *   vreport ALG,ALG,...  all-gathervs of unequal blocks only, a few under
 *               each algorithm named (PAT_UseAlg): PAT_REPORT's row of the
 *               site must count every one (issue 56)
 *   before      MPI_Allgather before MPI_Init (MPI reports it)
 *   after       MPI_Allgather after MPI_Finalize (MPI reports it)
 *
 * Every all-gather is compared with PMPI_Allgather on the same input, every
 * all-gatherv with PMPI_Allgatherv.  With libpat_mpi linked (not preloaded)
 * the same modes apply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dropin_check.h"

static int rank, size;
static long calls, failures;

#define FAIL(...)                                             \
  do {                                                        \
    fprintf(stderr, "FAIL world rank %d: ", rank);            \
    fprintf(stderr, __VA_ARGS__);                             \
    fputc('\n', stderr);                                      \
    failures++;                                               \
  } while (0)

/* One all-gather of `count` ints on comm, checked against PMPI_Allgather. */
static void gather_check(MPI_Comm comm, int count, int salt) {
  int P, r;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &r);
  int *mine = malloc(sizeof(int) * (size_t)(count + 1));
  int *ours = malloc(sizeof(int) * (size_t)(count * P + 1));
  int *ref = malloc(sizeof(int) * (size_t)(count * P + 1));
  for (int i = 0; i < count; i++) mine[i] = (rank + 1) * 1000003 + i * 31 + salt;
  memset(ours, 0xA5, sizeof(int) * (size_t)(count * P));
  int rc = MPI_Allgather(mine, count, MPI_INT, ours, count, MPI_INT, comm);
  calls++;
  PMPI_Allgather(mine, count, MPI_INT, ref, count, MPI_INT, comm);
  if (rc != MPI_SUCCESS || memcmp(ours, ref, sizeof(int) * (size_t)(count * P)) != 0)
    FAIL("all-gather of %d ints on a communicator of %d differs from PMPI_Allgather (rc %d)", count, P, rc);
  free(mine);
  free(ours);
  free(ref);
}

/* One all-gatherv on comm, checked against PMPI_Allgatherv: rank r gives
 * count + r ints (none from rank 1), blocks in reverse rank order with a
 * gap before each. */
static void gatherv_check(MPI_Comm comm, int count, int salt) {
  int P, r;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &r);
  int *c = malloc(sizeof(int) * (size_t)P), *d = malloc(sizeof(int) * (size_t)P), total = 0;
  for (int q = P - 1; q >= 0; q--) {
    c[q] = q == 1 ? 0 : count + q;
    d[q] = total + 1;
    total += 1 + c[q];
  }
  int *mine = malloc(sizeof(int) * (size_t)(c[r] + 1));
  int *ours = malloc(sizeof(int) * (size_t)total), *ref = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < c[r]; i++) mine[i] = (rank + 1) * 1000003 + i * 31 + salt;
  memset(ours, 0xA5, sizeof(int) * (size_t)total);
  memset(ref, 0xA5, sizeof(int) * (size_t)total);
  int rc = MPI_Allgatherv(mine, c[r], MPI_INT, ours, c, d, MPI_INT, comm);
  calls++;
  PMPI_Allgatherv(mine, c[r], MPI_INT, ref, c, d, MPI_INT, comm);
  if (rc != MPI_SUCCESS || memcmp(ours, ref, sizeof(int) * (size_t)total) != 0)
    FAIL("all-gatherv of %d.. ints on a communicator of %d differs from PMPI_Allgatherv (rc %d)", count, P, rc);
  free(c);
  free(d);
  free(mine);
  free(ours);
  free(ref);
}

static int bg_thread_ran(void) {
  PAT_Stats st;
  for (int i = 0; i < 100; i++) { /* its wall time, read live by PAT_GetStats, is positive once it runs */
    if (dropin_stats(&st) != 0) return 0;
    if (st.bg_wall_seconds > 0) return 1;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  return 0;
}

static void check_levels(int asked, int provided) {
  int query, mpi_level;
  MPI_Query_thread(&query);
  PMPI_Query_thread(&mpi_level);
  const char *t = getenv("PAT_THREAD"), *one = getenv("PAT_ONE_NODE");
  /* PAT_ONE_NODE=native (the default; CTest sets auto): auto on this one-node
   * job, model file or not, runs no thread and asks for no level, unless
   * PAT_NODE_SIZE cuts the node into several */
  const char *node_size = getenv("PAT_NODE_SIZE");
  int k = node_size ? atoi(node_size) : 0;
  int one_node_native = !(one && strcmp(one, "auto") == 0) && !(k > 0 && k < size);
  int thread_wanted = !(t && *t && atoi(t) == 0) && !one_node_native;
  if (provided != asked) FAIL("provided %d, asked for %d", provided, asked);
  if (query != asked) FAIL("MPI_Query_thread says %d, the application asked for %d", query, asked);
  if (thread_wanted && mpi_level != MPI_THREAD_MULTIPLE)
    FAIL("MPI runs at level %d, libpat_mpi should have asked for MPI_THREAD_MULTIPLE", mpi_level);
  if (!thread_wanted && mpi_level != asked)
    FAIL("without the thread (PAT_THREAD=0 or PAT_ONE_NODE=native): MPI runs at level %d, not the application's %d",
         mpi_level, asked);
  for (int i = 0; i < 20; i++) gather_check(MPI_COMM_WORLD, 1 + i % 5, i);
  for (int i = 0; i < 5; i++) gatherv_check(MPI_COMM_WORLD, 1 + i, i);
  int ran = bg_thread_ran();
  if (ran != thread_wanted)
    FAIL("libpat's background thread %s", ran ? "ran (PAT_THREAD=0 or PAT_ONE_NODE=native)" : "did not run");
  failures += dropin_check(MPI_COMM_WORLD, "auto", calls);
}

/* Fisher-Yates with a small LCG, so that every rank can draw the same
 * permutation (or its own). */
static void shuffle(int *v, int n, unsigned seed) {
  for (int i = 0; i < n; i++) v[i] = i;
  for (int i = n - 1; i > 0; i--) {
    seed = seed * 1103515245u + 12345u;
    int j = (int)((seed >> 8) % (unsigned)(i + 1));
    int t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

#define NCOMMS 50
#define NKEPT 10

static void many_comms(int per_rank_order) {
  MPI_Comm c[NCOMMS];
  for (int i = 0; i < NCOMMS; i++) {
    switch (i % 5) {
      case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c[i]); break;
      case 1: MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c[i]); break;   /* halves, reversed */
      case 2: MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0, rank, &c[i]); break; /* uneven */
      case 3: MPI_Comm_dup(c[i - 2], &c[i]); break;                              /* dup of a split */
      default: MPI_Comm_split(MPI_COMM_WORLD, 0, (rank * 7 + i) % size, &c[i]); break; /* permuted */
    }
  }
  /* interleaved use, several call sites each */
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < NCOMMS; i++) gather_check(c[i], 1 + (i + pass) % 3 * 100, pass * NCOMMS + i);
  /* free 40 of them: in one shuffled order on every rank, or each rank
   * its own order (then every rank keeps the first 10) */
  int order[NCOMMS];
  if (per_rank_order) {
    shuffle(order, NCOMMS - NKEPT, 77u + (unsigned)rank * 7919u);
    for (int k = 0; k < NCOMMS - NKEPT; k++) order[k] += NKEPT;
    for (int k = 0; k < NKEPT; k++) order[NCOMMS - NKEPT + k] = k;
  } else
    shuffle(order, NCOMMS, 77u);
  for (int k = 0; k < NCOMMS - NKEPT; k++) MPI_Comm_free(&c[order[k]]);
  for (int k = NCOMMS - NKEPT; k < NCOMMS; k++) gather_check(c[order[k]], 3, k);
  /* new communicators after the frees (handles get reused) */
  for (int i = 0; i < 5; i++) {
    MPI_Comm d;
    MPI_Comm_split(MPI_COMM_WORLD, (rank + i) % 2, rank, &d);
    gather_check(d, 2, 1000 + i);
    gather_check(d, 2, 2000 + i);
    MPI_Comm_free(&d);
  }
  gather_check(MPI_COMM_WORLD, 4, 9);
  failures += dropin_check(MPI_COMM_WORLD, "auto", calls);
  /* the 10 left are never freed: MPI_Finalize (and PAT_Finalize before it) clean up */
}

static int handler_calls;
static void count_handler_call(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
  handler_calls++;
}

/* A mistake libpat's checks let through (a derived type never committed:
 * no MPI call tells) and MPI's own rejects.  Where the call is MPI's own
 * (the pass-through, NATIVE), MPI raises the error on the communicator's
 * handler itself, and the drop-in must not raise it again: the handler
 * runs once per failed call, never for one that succeeded. */
static void raised_once(MPI_Comm comm) {
  MPI_Errhandler counting;
  MPI_Comm_create_errhandler(count_handler_call, &counting);
  MPI_Comm_set_errhandler(comm, counting);
  MPI_Datatype uncommitted;
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  int buf[2] = {rank, rank}, out[2 * 64], counts[64], displs[64];
  for (int r = 0; r < size; r++) {
    counts[r] = 1;
    displs[r] = 2 * r;
  }
  for (int v = 0; v < 2; v++) {
    handler_calls = 0;
    int rc = v ? MPI_Allgatherv(buf, 1, uncommitted, out, counts, displs, uncommitted, comm)
               : MPI_Allgather(buf, 1, uncommitted, out, 1, uncommitted, comm);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (handler_calls != (rc != MPI_SUCCESS))
      FAIL("uncommitted type: %s returned class %d, and the handler ran %d times", v ? "MPI_Allgatherv" : "MPI_Allgather",
           cls, handler_calls);
    if (rc != MPI_SUCCESS && cls != MPI_ERR_TYPE)
      FAIL("uncommitted type: %s returned class %d, not MPI_ERR_TYPE", v ? "MPI_Allgatherv" : "MPI_Allgather", cls);
  }
  calls += 2; /* libpat counts both: each ran an algorithm (MPI's own, where it failed) */
  MPI_Type_free(&uncommitted);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&counting);
}

/* MPI's own error class for the same mistake, and libpat_mpi's */
static void errors(void) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* correct calls first: the communicator then has a state, and under auto on one node
   * (PAT_ONE_NODE=native) the calls below meet the pass-through's screen */
  gather_check(comm, 3, 1);
  gatherv_check(comm, 3, 1);
  int buf[64] = {0}, out[64 * 64];
  struct {
    const char *what;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Comm comm;
  } cases[] = {
      {"negative receive count", 1, -1, MPI_INT, MPI_INT, comm},
      {"negative send count", -1, 1, MPI_INT, MPI_INT, comm},
      {"null receive type", 1, 1, MPI_INT, MPI_DATATYPE_NULL, comm},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int rc = MPI_Allgather(buf, cases[k].scount, cases[k].stype, out, cases[k].rcount, cases[k].rtype, cases[k].comm);
    int ref = PMPI_Allgather(buf, cases[k].scount, cases[k].stype, out, cases[k].rcount, cases[k].rtype,
                             cases[k].comm);
    int cls = -1, ref_cls = -1;
    MPI_Error_class(rc, &cls);
    MPI_Error_class(ref, &ref_cls);
    if (rc == MPI_SUCCESS || cls != ref_cls)
      FAIL("%s: MPI_Allgather returned class %d, MPI's own returns class %d", cases[k].what, cls, ref_cls);
  }
  /* MPI_COMM_NULL: Open MPI 4.1's own MPI_Allgather crashes on it, so there is
   * nothing to compare with; libpat_mpi raises MPI_ERR_COMM on MPI_COMM_WORLD */
  int cls = -1, rc = MPI_Allgather(buf, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_NULL);
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_COMM) FAIL("null communicator: class %d, not MPI_ERR_COMM", cls);
  /* MPI_Allgatherv: the classes MPICH's own returns (Open MPI 4.1's does not
   * check the counts: it runs the call, and the next ones go wrong), every
   * rank passing the same mistake */
  int counts[64], displs[64];
  for (int r = 0; r < size; r++) {
    counts[r] = 1;
    displs[r] = r;
  }
  struct {
    const char *what;
    int scount, bad_rcount, want;
    MPI_Datatype stype, rtype;
    MPI_Comm comm;
  } vcases[] = {
      {"negative receive count", 1, -1, MPI_ERR_COUNT, MPI_INT, MPI_INT, comm},
      {"negative send count", -1, 1, MPI_ERR_COUNT, MPI_INT, MPI_INT, comm},
      {"null receive type", 1, 1, MPI_ERR_TYPE, MPI_INT, MPI_DATATYPE_NULL, comm},
      {"null send type", 1, 1, MPI_ERR_TYPE, MPI_DATATYPE_NULL, MPI_INT, comm},
      {"null communicator", 1, 1, MPI_ERR_COMM, MPI_INT, MPI_INT, MPI_COMM_NULL},
  };
  for (size_t k = 0; k < sizeof vcases / sizeof vcases[0]; k++) {
    counts[size - 1] = vcases[k].bad_rcount;
    rc = MPI_Allgatherv(buf, vcases[k].scount, vcases[k].stype, out, counts, displs, vcases[k].rtype, vcases[k].comm);
    counts[size - 1] = 1;
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS || cls != vcases[k].want)
      FAIL("%s: MPI_Allgatherv returned class %d, not %d", vcases[k].what, cls, vcases[k].want);
  }
  raised_once(comm);
  gather_check(comm, 5, 1); /* still usable */
  gatherv_check(comm, 5, 2);
  failures += dropin_check(comm, "auto", calls); /* the refused calls are not counted */
  MPI_Comm_free(&comm);
}

/* A few all-gathervs of unequal blocks under each algorithm of the
 * comma-separated list, switched by PAT_UseAlg at the same point on every
 * rank: all of them are one call site, whose report row names each. */
static void vreport(const char *list) {
  int (*use_alg)(const char *) = (int (*)(const char *))dropin_symbol("PAT_UseAlg");
  if (!use_alg) {
    FAIL("PAT_UseAlg not found");
    return;
  }
  char names[256];
  snprintf(names, sizeof names, "%s", list);
  for (char *save = NULL, *alg = strtok_r(names, ",", &save); alg; alg = strtok_r(NULL, ",", &save)) {
    if (use_alg(alg) != MPI_SUCCESS) FAIL("PAT_UseAlg(%s) failed", alg);
    for (int i = 0; i < 3; i++) gatherv_check(MPI_COMM_WORLD, 5, i);
  }
}

static int finish(const char *mode) {
  long worst = 0;
  MPI_Allreduce(&failures, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("dropin %s, P=%d: %ld all-gathers per rank, %s\n", mode, size, calls, worst ? "FAILED" : "passed");
  MPI_Finalize();
  return worst ? 1 : 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "init";
  int provided = -1;
  if (strcmp(mode, "before") == 0) {
    int x = 1, y[8];
    MPI_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    printf("MPI_Allgather before MPI_Init returned\n");
    return 0;
  }
  if (strcmp(mode, "funneled") == 0 || strcmp(mode, "serialized") == 0) {
    int asked = mode[0] == 'f' ? MPI_THREAD_FUNNELED : MPI_THREAD_SERIALIZED;
    MPI_Init_thread(&argc, &argv, asked, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_levels(asked, provided);
    return finish(mode);
  }
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "init") == 0)
    check_levels(MPI_THREAD_SINGLE, MPI_THREAD_SINGLE);
  else if (strcmp(mode, "none") == 0) {
    int x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) FAIL("allreduce");
    failures += dropin_check(MPI_COMM_WORLD, "auto", 0);
  } else if (strcmp(mode, "comms") == 0)
    many_comms(0);
  else if (strcmp(mode, "comms-rank") == 0)
    many_comms(1);
  else if (strcmp(mode, "errors") == 0)
    errors();
  else if (strcmp(mode, "fatal-v") == 0) {
    int x[2] = {rank, rank}, y[64 * 2], counts[64], displs[64];
    for (int r = 0; r < size; r++) {
      counts[r] = r == size - 1 ? -2 : 2;
      displs[r] = 2 * r;
    }
    MPI_Allgatherv(x, 2, MPI_INT, y, counts, displs, MPI_INT, MPI_COMM_WORLD);
    printf("MPI_Allgatherv with a negative count returned under MPI_ERRORS_ARE_FATAL\n");
  } else if (strcmp(mode, "fallback") == 0) {
    for (int i = 0; i < 10; i++) gather_check(MPI_COMM_WORLD, 1 + i, i);
    for (int i = 0; i < 3; i++) gatherv_check(MPI_COMM_WORLD, 1 + i, i);
    int (*initialized)(int *) = (int (*)(int *))dropin_symbol("PAT_Initialized");
    int on = -1;
    if (!initialized || initialized(&on) != MPI_SUCCESS || on != 0)
      FAIL("libpat should be loaded but not initialised (PAT_Initialized says %d)", on);
  } else if (strcmp(mode, "vreport") == 0 && argc > 2) {
    vreport(argv[2]);
  } else if (strcmp(mode, "after") == 0) {
    gather_check(MPI_COMM_WORLD, 2, 0);
    MPI_Finalize();
    int x = 1, y[64];
    MPI_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    printf("MPI_Allgather after MPI_Finalize returned\n");
    return 0;
  } else {
    FAIL("unknown mode %s", mode);
  }
  return finish(mode);
}
