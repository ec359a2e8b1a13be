/*
 * Non-blocking all-gathers among the application's other non-blocking
 * collectives, as an unmodified program under libpat_mpi (every call here is
 * legal MPI, and MPI's own library runs it):
 *   freed  - MPI_Iallgather and MPI_Iallgatherv posted on a new communicator
 *            as its first calls, the communicator freed at once, then waited;
 *   channels - more communicators with libpat's schedules at once than the
 *            process has channels (PAT_CHANNELS=3): the one past them fails on every
 *            rank with an error, and persistent all-gathers, which take none, run;
 *   mixed  - all-gathers of small and large blocks outstanding together with
 *            every other kind of non-blocking collective on the same
 *            communicators (world, a duplicate, a split).  (Not freed with
 *            all of those outstanding: Open MPI 4.1's own libnbc crashes
 *            then, without libpat.)
 * Before libpat made its communicators only at MPI_Init, both hung or crashed
 * under every setting running libpat's schedules (an MPI_Comm_idup of the
 * application's communicator, made at its first MPI_Iallgather, does not mix
 * with collectives outstanding on it in Open MPI 4.1).  Every result is
 * checked; the last line says "N passed, 0 failed", and libpat's count of
 * queued calls shows that its schedules ran where the setting says so.
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#include <mpi-ext.h> /* Open MPI 4.1: MPIX_Allgather_init */
#define MPI_Allgather_init MPIX_Allgather_init
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin_check.h"

static long checks, failures;

static void expect(int ok, const char *what, int rank) {
  checks++;
  if (!ok) {
    failures++;
    if (failures < 10) fprintf(stderr, "FAIL rank %d: %s\n", rank, what);
  }
}

/* Block of rank r in call c: n ints, each telling where it belongs. */
static int value(int c, int r, int i) { return c * 1000003 + r * 7919 + i; }

static void fill(int *buf, int c, int r, int n) {
  for (int i = 0; i < n; i++) buf[i] = value(c, r, i);
}

static int gathered_ok(const int *buf, int c, int P, const int *counts, const int *displs) {
  for (int r = 0; r < P; r++)
    for (int i = 0; i < counts[r]; i++)
      if (buf[displs[r] + i] != value(c, r, i)) return 0;
  return 1;
}

/* An all-gather of n ints a rank and an all-gatherv of rank-dependent
 * counts, posted on comm; freed after: the caller frees its buffers. */
typedef struct gathers {
  int n, P, *send, *recv, *vsend, *vrecv, *counts, *displs;
} gathers;

static void post_gathers(gathers *g, int c, int n, MPI_Comm comm, MPI_Request *req) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &g->P);
  g->n = n;
  g->send = malloc(sizeof(int) * n);
  g->recv = malloc(sizeof(int) * n * g->P);
  g->counts = malloc(sizeof(int) * g->P);
  g->displs = malloc(sizeof(int) * g->P);
  int total = 0;
  for (int r = 0; r < g->P; r++) {
    g->counts[r] = n / 2 + r % 3;
    g->displs[r] = total + 1; /* a gap before each block */
    total += g->counts[r] + 1;
  }
  g->vsend = malloc(sizeof(int) * g->counts[rank]);
  g->vrecv = calloc((size_t)total + 1, sizeof(int));
  fill(g->send, c, rank, n);
  fill(g->vsend, c + 1, rank, g->counts[rank]);
  MPI_Iallgather(g->send, n, MPI_INT, g->recv, n, MPI_INT, comm, &req[0]);
  MPI_Iallgatherv(g->vsend, g->counts[rank], MPI_INT, g->vrecv, g->counts, g->displs, MPI_INT, comm, &req[1]);
}

static void check_gathers(gathers *g, int c, int rank, const char *what) {
  int *counts = malloc(sizeof(int) * g->P), *displs = malloc(sizeof(int) * g->P);
  for (int r = 0; r < g->P; r++) {
    counts[r] = g->n;
    displs[r] = r * g->n;
  }
  char msg[160];
  snprintf(msg, sizeof msg, "%s: MPI_Iallgather of %d ints", what, g->n);
  expect(gathered_ok(g->recv, c, g->P, counts, displs), msg, rank);
  snprintf(msg, sizeof msg, "%s: MPI_Iallgatherv of about %d ints", what, g->n / 2);
  expect(gathered_ok(g->vrecv, c + 1, g->P, g->counts, g->displs), msg, rank);
  free(counts);
  free(displs);
  free(g->send);
  free(g->recv);
  free(g->vsend);
  free(g->vrecv);
  free(g->counts);
  free(g->displs);
}

/* freed: the first calls on a new communicator, and the communicator freed before they are waited. */
static void freed(int world_rank) {
  const int sizes[] = {4, 40000}; /* 16 B and 160 KiB blocks: MPI's own and libpat's schedules under auto */
  for (int round = 0; round < 6; round++) {
    int n = sizes[round % 2];
    MPI_Comm comm;
    if (round % 3 == 2) MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &comm); /* reversed ranks */
    else MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Request req[2];
    gathers g;
    post_gathers(&g, round * 10, n, comm, req);
    MPI_Comm_free(&comm);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    check_gathers(&g, round * 10, rank, "freed");
  }
}

/* mixed: rounds of many non-blocking collectives outstanding at once, of every kind, on three communicators. */
enum { KINDS = 8 };
static void mixed(int world_rank, int world_size) {
  for (int round = 0; round < 4; round++) {
    MPI_Comm comms[3];
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank, &comms[2]);
    MPI_Request req[3 * (KINDS + 4)];
    int nreq = 0;
    gathers small[3], large[3];
    int bval[3], sum[3], scan[3], red[3], one[3];
    int *gath[3], *a2a_send[3], *a2a_recv[3];
    for (int k = 0; k < 3; k++) {
      MPI_Comm comm = comms[k];
      int rank, P;
      MPI_Comm_rank(comm, &rank);
      MPI_Comm_size(comm, &P);
      int c = 100 * round + 10 * k;
      one[k] = rank + 1;
      bval[k] = rank == 0 ? c + 5 : -1;
      gath[k] = malloc(sizeof(int) * P);
      a2a_send[k] = malloc(sizeof(int) * P);
      a2a_recv[k] = malloc(sizeof(int) * P);
      for (int r = 0; r < P; r++) a2a_send[k][r] = rank * 100 + r;
      MPI_Ibarrier(comm, &req[nreq++]);
      post_gathers(&small[k], c, 3, comm, &req[nreq]);
      nreq += 2;
      MPI_Ibcast(&bval[k], 1, MPI_INT, 0, comm, &req[nreq++]);
      MPI_Iallreduce(&one[k], &sum[k], 1, MPI_INT, MPI_SUM, comm, &req[nreq++]);
      post_gathers(&large[k], c + 3, 20000, comm, &req[nreq]);
      nreq += 2;
      MPI_Igather(&one[k], 1, MPI_INT, gath[k], 1, MPI_INT, P - 1, comm, &req[nreq++]);
      MPI_Ialltoall(a2a_send[k], 1, MPI_INT, a2a_recv[k], 1, MPI_INT, comm, &req[nreq++]);
      MPI_Iscan(&one[k], &scan[k], 1, MPI_INT, MPI_SUM, comm, &req[nreq++]);
      MPI_Ireduce(&one[k], &red[k], 1, MPI_INT, MPI_MAX, 0, comm, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 3; k++) {
      int P = small[k].P, rank = a2a_send[k][0] / 100;
      int c = 100 * round + 10 * k;
      check_gathers(&small[k], c, rank, "mixed, small");
      check_gathers(&large[k], c + 3, rank, "mixed, large");
      expect(bval[k] == c + 5, "mixed: MPI_Ibcast", rank);
      expect(sum[k] == P * (P + 1) / 2, "mixed: MPI_Iallreduce", rank);
      expect(scan[k] == (rank + 1) * (rank + 2) / 2, "mixed: MPI_Iscan", rank);
      if (rank == 0) expect(red[k] == P, "mixed: MPI_Ireduce", rank);
      if (rank == P - 1)
        for (int r = 0; r < P; r++) expect(gath[k][r] == r + 1, "mixed: MPI_Igather", rank);
      for (int r = 0; r < P; r++) expect(a2a_recv[k][r] == r * 100 + rank, "mixed: MPI_Ialltoall", rank);
      free(gath[k]);
      free(a2a_send[k]);
      free(a2a_recv[k]);
    }
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
  }
}

/* channels (run with PAT_CHANNELS=3 under a setting that runs libpat's schedules): three communicators
 * hold the three channels, one more fails its calls on every rank with an error (and nothing hangs),
 * and ten persistent all-gathers, which take no channel, run. */
static void channels(int world_rank) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm comms[4];
  for (int k = 0; k < 4; k++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
    MPI_Comm_set_errhandler(comms[k], MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(comms[k], &rank);
    MPI_Request req[2];
    gathers g;
    post_gathers(&g, k * 10, 8, comms[k], req);
    int rc = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    if (k < 3) {
      expect(rc == MPI_SUCCESS, "channels: a communicator of the first three failed", rank);
      check_gathers(&g, k * 10, rank, "channels");
    } else {
      expect(rc != MPI_SUCCESS, "channels: the communicator past the channels did not fail its calls", rank);
      free(g.send), free(g.recv), free(g.vsend), free(g.vrecv), free(g.counts), free(g.displs);
    }
  }
  for (int k = 0; k < 4; k++) MPI_Comm_free(&comms[k]);
  enum { N = 10, n = 6 };
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int *send = malloc(sizeof(int) * N * n), *recv = malloc(sizeof(int) * N * n * P);
  MPI_Request req[N];
  for (int q = 0; q < N; q++)
    MPI_Allgather_init(send + q * n, n, MPI_INT, recv + q * n * P, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[q]);
  for (int round = 0; round < 3; round++) {
    for (int q = 0; q < N; q++) fill(send + q * n, 50 + q + round, world_rank, n);
    MPI_Startall(N, req);
    expect(MPI_Waitall(N, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "channels: persistent all-gathers failed",
           world_rank);
    for (int q = 0; q < N; q++) {
      int counts[64], displs[64];
      for (int r = 0; r < P && r < 64; r++) counts[r] = n, displs[r] = r * n;
      expect(gathered_ok(recv + q * n * P, 50 + q + round, P, counts, displs), "channels: persistent all-gather",
             world_rank);
    }
  }
  for (int q = 0; q < N; q++) MPI_Request_free(&req[q]);
  free(send);
  free(recv);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  long long (*queued)(void) = (long long (*)(void))dropin_symbol("pat_nbc_queued_calls");
  expect(queued != NULL, "libpat_mpi is not loaded", rank);
  long long before = queued ? queued() : 0;
  if (!strcmp(mode, "freed")) freed(rank);
  else if (!strcmp(mode, "mixed")) mixed(rank, size);
  else if (!strcmp(mode, "channels")) channels(rank);
  else {
    fprintf(stderr, "usage: %s freed|mixed|channels [min-queued]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* the setting's schedules ran: at least this many calls reached libpat's queue on this rank */
  long long want = argc > 2 ? atoll(argv[2]) : 0, got = queued ? queued() - before : 0;
  if (got < want) {
    char msg[120];
    snprintf(msg, sizeof msg, "%lld calls queued for libpat's schedules, %lld expected at least", got, want);
    expect(0, msg, rank);
  }
  long all[2] = {checks, failures}, sum[2];
  MPI_Allreduce(all, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("non-blocking mix (%s), P=%d: %ld passed, %ld failed\n", mode, size, sum[0] - sum[1], sum[1]);
  MPI_Finalize();
  return sum[1] != 0;
}
