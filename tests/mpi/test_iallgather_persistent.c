/*
 * Persistent all-gathers (PAT_Allgather_init, PAT_Allgatherv_init,
 * PAT_Start, PAT_Request_free; under the drop-in MPI_Allgather(v)_init,
 * MPI_Start(all), MPI_Request_free): on each of the matrix's communicators, an all-gather of a
 * padded struct type (freed by the application right after the set-up) and
 * an all-gatherv of doubles (zero blocks, reverse order, gaps), in place
 * and not, set up once and started ITERS times with new data each time;
 * both in flight together, a short compute phase between start and wait,
 * completed by MPI_Waitall (or MPI_Wait in reverse order, or MPI_Test
 * polling) on the persistent requests themselves, which stay allocated and
 * inactive (MPI_Test on an inactive one says done at once).  The communicator is freed by the application before the
 * persistent calls (MPI allows it); the persistent requests are freed
 * inactive, after their last start completed, and then (PAT_ API, with the
 * background thread) one is started and freed while active: its call must
 * still complete, correct.  Every result is compared byte by
 * byte with MPI's own blocking call on the same data.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"
#include "persistent_calls.h"
#ifdef PAT_MATRIX_DROPIN /* an unmodified program under libpat_mpi (tests/dropin) */
#include "dropin_check.h"
#else
#include "nbc_counts.h" /* nbc_alg_index */
#include "runtime/nbc_queue.h" /* pat_nbc_completed_calls */
/* starts that completed, whatever ran them: libpat's schedule or MPI's own (signalled by the background
 * thread, or at the start where MPI's call was already complete) */
static long long completed_calls(void) { return pat_nbc_completed_calls() + pat_nbc_signalled(); }
#endif

#define ITERS 6

static long failures, cases;
static int world_rank;
static const char *alg_in_use;
static int block_count = 300; /* elements of a block; TEST_COUNT in the environment */

static void compare(const char *what, const char *cname, int it, int rc, const void *ours, const void *ref,
                    size_t n) {
  cases++;
  long diff = first_difference(ours, ref, n);
  if (rc != MPI_SUCCESS || diff >= 0) {
    failures++;
    if (failures <= 10)
      fprintf(stderr, "FAIL world rank %d: %s comm=%s iteration %d rc=%d byte %ld\n", world_rank, what, cname, it, rc,
              diff);
  }
}

static void check_comm(const char *cname, MPI_Comm parent, const test_type *t, int in_place) {
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t->type, &lb, &extent);
  int count = block_count;
  size_t block = (size_t)count * (size_t)extent, total = block * (size_t)P + 32;
  char *send = malloc(block + 1), *ours = malloc(total), *ref = malloc(total);
  memset(ours, 0x11, total);
  /* v: doubles, rank r gives 50 * ((r + 2) % 3) (zero for every third), reverse order, one-element gaps */
  int *vc = malloc(2 * (size_t)P * sizeof *vc), *vd = vc + P, at = 1;
  for (int r = P - 1; r >= 0; r--) {
    vc[r] = 50 * ((r + 2) % 3);
    vd[r] = at;
    at += vc[r] + 1;
  }
  double *vsend = malloc(((size_t)vc[rank] + 1) * sizeof *vsend), *vours = malloc(((size_t)at + 4) * sizeof *vours),
         *vref = malloc(((size_t)at + 4) * sizeof *vref);
  for (int i = 0; i < at + 4; i++) vours[i] = -1.0;
  MPI_Datatype mine;
  MPI_Type_dup(t->type, &mine);
  MPI_Request pa = MPI_REQUEST_NULL, pv = MPI_REQUEST_NULL;
  int rc = ALLGATHER_INIT(in_place ? MPI_IN_PLACE : send, count, mine, ours, count, mine, comm, MPI_INFO_NULL, &pa);
  if (rc == MPI_SUCCESS)
    rc = ALLGATHERV_INIT(in_place ? MPI_IN_PLACE : vsend, vc[rank], MPI_DOUBLE, vours, vc, vd, MPI_DOUBLE, comm,
                             MPI_INFO_NULL, &pv);
  MPI_Type_free(&mine);   /* the persistent call keeps its own */
  MPI_Comm_free(&comm);   /* ... and its own communicator */
  for (int it = 0; it < ITERS && rc == MPI_SUCCESS; it++) {
    fill_pattern(send, block, (unsigned)(rank * 31 + it * 7 + in_place));
    for (int i = 0; i < vc[rank]; i++) vsend[i] = rank * 1000.0 + it + i * 0.5;
    /* the reference, on the same data (in place: the own block put in both) */
    memcpy(ref, ours, total);
    memcpy(vref, vours, ((size_t)at + 4) * sizeof *vref);
    if (in_place) {
      memcpy(ours + rank * block, send, block);
      memcpy(ref + rank * block, send, block);
      memcpy(vours + vd[rank], vsend, (size_t)vc[rank] * sizeof *vsend);
      memcpy(vref + vd[rank], vsend, (size_t)vc[rank] * sizeof *vsend);
    }
    PMPI_Allgather(in_place ? MPI_IN_PLACE : send, count, t->type, ref, count, t->type, parent);
#ifdef MPICH_VERSION
    if (P == 1) { /* MPICH before 4.1 ignores displs on one process (test_allgatherv_matrix.c) */
      if (!in_place) memcpy(vref + vd[0], vsend, (size_t)vc[0] * sizeof *vsend);
    } else
#endif
      PMPI_Allgatherv(in_place ? MPI_IN_PLACE : vsend, vc[rank], MPI_DOUBLE, vref, vc, vd, MPI_DOUBLE, parent);
    MPI_Request req[2] = {pa, pv};
    rc = it % 2 ? STARTALL(2, req) : START(&req[0]);
    if (rc == MPI_SUCCESS && it % 2 == 0) rc = START(&req[1]);
    if (rc != MPI_SUCCESS) break;
    usleep(200 * (unsigned)((rank + it) % 3)); /* compute, unequal */
    if (it % 3 == 0) {
      rc = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    } else if (it % 3 == 1) {
      rc = MPI_Wait(&req[1], MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    } else {
      int left = 2, done[2] = {0, 0};
      while (left > 0 && rc == MPI_SUCCESS)
        for (int i = 0; i < 2; i++) {
          int flag = 0;
          if (done[i]) continue;
          rc = MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
          if (flag) left--, done[i] = 1;
          else usleep(20);
        }
    }
    /* persistent: the handles stay, inactive; a test of an inactive one is done at once */
    for (int i = 0; i < 2; i++) {
      int flag = 0;
      cases++;
      if (req[i] != (i ? pv : pa) || MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) {
        failures++;
        fprintf(stderr, "FAIL world rank %d: comm=%s: request %d is not an inactive persistent one\n", world_rank,
                cname, i);
      }
    }
    compare(t->name, cname, it, rc, ours, ref, total);
    compare("allgatherv of doubles", cname, it, rc, vours, vref, ((size_t)at + 4) * sizeof *vref);
  }
#ifndef PAT_MATRIX_DROPIN
  /* freed while active (MPI allows it): the call still completes.  The program cannot know when (as with
   * MPI), so the test watches libpat's counter of calls its thread completed before it frees the buffers */
  const char *thread = getenv("PAT_THREAD");
  if (rc == MPI_SUCCESS && P > 1 && strcmp(alg_in_use, "native") != 0 && !(thread && !strcmp(thread, "0"))) {
    long long before = completed_calls();
    fill_pattern(send, block, (unsigned)(rank * 31 + 99 + in_place));
    memcpy(ref, ours, total);
    if (in_place) {
      memcpy(ours + rank * block, send, block);
      memcpy(ref + rank * block, send, block);
    }
    PMPI_Allgather(in_place ? MPI_IN_PLACE : send, count, t->type, ref, count, t->type, parent);
    MPI_Request r = pa;
    rc = START(&r);
    if (rc == MPI_SUCCESS) rc = REQUEST_FREE(&r);
    pa = MPI_REQUEST_NULL;
    int waited_ms = 0;
    while (rc == MPI_SUCCESS && completed_calls() == before && waited_ms++ < 60000) usleep(1000);
    cases++;
    if (rc != MPI_SUCCESS || r != MPI_REQUEST_NULL || completed_calls() == before ||
        first_difference(ours, ref, total) >= 0) {
      failures++;
      fprintf(stderr, "FAIL world rank %d: comm=%s: a persistent call freed while active: rc %d, %s\n", world_rank,
              cname, rc, completed_calls() == before ? "not completed in 60 s" : "wrong result");
    }
  }
#endif
  if (rc != MPI_SUCCESS) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: comm=%s: rc %d\n", world_rank, cname, rc);
  }
#ifdef PAT_MATRIX_DROPIN
  /* libpat_mpi's: the handles are libpat's */
  int (*is_libpat)(MPI_Request) = (int (*)(MPI_Request))dropin_symbol("pat_persist_is_libpat");
  cases++;
  if (!is_libpat || !is_libpat(pa) || !is_libpat(pv)) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: the persistent requests are not libpat's\n", world_rank);
  }
#endif
  if (pa != MPI_REQUEST_NULL) REQUEST_FREE(&pa);
  if (pv != MPI_REQUEST_NULL) REQUEST_FREE(&pv);
  free(send);
  free(ours);
  free(ref);
  free(vc);
  free(vsend);
  free(vours);
  free(vref);
}

int main(int argc, char **argv) {
  int P;
  const char *alg = test_init(&argc, &argv, &world_rank, &P, "ring");
  alg_in_use = alg;
  if (getenv("TEST_COUNT")) block_count = atoi(getenv("TEST_COUNT"));
#ifdef PAT_MATRIX_DROPIN
  alg = getenv("PAT_ALG") ? getenv("PAT_ALG") : "auto";
#else
  if (PAT_Init() != MPI_SUCCESS || PAT_UseAlg(alg) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
#endif
  test_type types[5];
  int ntypes = test_types_create(types);
  test_comm comms[TEST_NCOMMS];
  test_comms_create(comms);
  for (int c = 0; c < TEST_NCOMMS; c++)
    for (int ip = 0; ip < 2; ip++) check_comm(comms[c].name, comms[c].comm, &types[(c + 3 + ip) % ntypes], ip);
#ifndef PAT_MATRIX_DROPIN
  /* TEST_EXPECT_RAN=ALG: some starts ran that schedule (auto's choice for these blocks on these nodes) */
  const char *expect = getenv("TEST_EXPECT_RAN");
  if (expect) {
    long long mine = pat_nbc_completed_by(nbc_alg_index(expect)), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    cases++;
    if (all == 0) {
      failures++;
      if (world_rank == 0) fprintf(stderr, "FAIL: no start ran %s\n", expect);
    }
  }
#endif
  char what[64];
  snprintf(what, sizeof what, "persistent all-gathers, P=%d, %s", P, alg);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  test_comms_free(comms);
  test_types_free(types, ntypes);
#ifndef PAT_MATRIX_DROPIN
  PAT_Finalize();
#endif
  MPI_Finalize();
  return bad;
}
