/*
 * The non-blocking all-gathers' correctness matrix (PAT_Iallgather,
 * PAT_Iallgatherv): every algorithm named on the command line x datatypes
 * {float, double, byte, strided vector, padded struct} x counts x
 * {normal, MPI_IN_PLACE} x communicators {world, reversed, halves}.  Each
 * case has three calls in flight at once: an all-gather and an all-gatherv
 * (zero blocks, gaps, blocks in reverse order) on the case's communicator
 * and an all-gather on another one; a derived datatype is freed right after
 * the posts (MPI allows it); the three are completed in one of five ways
 * (MPI_Waitall; MPI_Wait in reverse order; MPI_Test polling; MPI_Waitany;
 * MPI_Testsome polling).  Every result is compared byte by byte, holes and
 * margins included, with MPI's own blocking call.  Then 40 calls in flight
 * on one communicator (more than libpat's tag generations) completed by
 * one MPI_Waitall in reverse order of posting.  And progress without the
 * application: a posted call completes while no thread of the program
 * calls MPI (libpat's counter of completed calls is watched, up to 60 s).
 *
 * With -DPAT_MATRIX_DROPIN (tests/dropin) it is an unmodified MPI program
 * calling MPI_Iallgather(v), and checks that libpat_mpi queued its calls.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"
#ifndef PAT_MATRIX_DROPIN
#include "nbc_counts.h" /* libpat's counters of non-blocking calls */
#endif

static const int counts[] = {0, 1, 7, 1000, 20000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])
#define NMODES 5
#define NCALLS 3
#define MANY 40

static long failures, cases;
static int world_rank;

typedef struct one_call {
  const char *what;
  MPI_Comm comm;
  char *sendbuf, *ours, *ref;
  size_t total;
  int *rcounts, *displs; /* NULL for an all-gather */
} one_call;

/* An all-gather of count elements of type on comm: buffers, MPI's own result. */
static void make_allgather(one_call *c, const char *what, MPI_Comm comm, MPI_Datatype type, int count, int in_place) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  size_t block = (size_t)count * (size_t)extent;
  memset(c, 0, sizeof *c);
  c->what = what;
  c->comm = comm;
  c->total = block * (size_t)P + 64;
  c->sendbuf = malloc(block + 1);
  c->ours = malloc(c->total);
  c->ref = malloc(c->total);
  fill_pattern(c->sendbuf, block, (unsigned)(rank * 7919 + count * 31 + in_place));
  memset(c->ours, 0xA5, c->total);
  memset(c->ref, 0xA5, c->total);
  if (in_place) {
    memcpy(c->ours + rank * block, c->sendbuf, block);
    memcpy(c->ref + rank * block, c->sendbuf, block);
  }
  PMPI_Allgather(in_place ? MPI_IN_PLACE : c->sendbuf, count, type, c->ref, count, type, comm);
}

/* An all-gatherv: rank r's block is count * ((r + 1) % 3) elements (zero
 * for every third rank), blocks in reverse rank order with a one-element gap. */
static void make_allgatherv(one_call *c, const char *what, MPI_Comm comm, MPI_Datatype type, int count,
                            int in_place) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  memset(c, 0, sizeof *c);
  c->what = what;
  c->comm = comm;
  c->rcounts = malloc(2 * (size_t)P * sizeof *c->rcounts);
  c->displs = c->rcounts + P;
  int at = 1;
  for (int r = P - 1; r >= 0; r--) {
    c->rcounts[r] = count * ((r + 1) % 3);
    c->displs[r] = at;
    at += c->rcounts[r] + 1;
  }
  size_t own = (size_t)c->rcounts[rank] * (size_t)extent, where = (size_t)c->displs[rank] * (size_t)extent;
  c->total = (size_t)at * (size_t)extent + 64;
  c->sendbuf = malloc(own + 1);
  c->ours = malloc(c->total);
  c->ref = malloc(c->total);
  fill_pattern(c->sendbuf, own, (unsigned)(rank * 104729 + count * 17 + in_place));
  memset(c->ours, 0x5A, c->total);
  memset(c->ref, 0x5A, c->total);
  if (in_place) {
    memcpy(c->ours + where, c->sendbuf, own);
    memcpy(c->ref + where, c->sendbuf, own);
  }
#ifdef MPICH_VERSION
  /* MPICH before 4.1 ignores displs on a single process (test_allgatherv_matrix.c): sent to self instead */
  if (P == 1) {
    if (!in_place)
      PMPI_Sendrecv(c->sendbuf, c->rcounts[0], type, 0, 0, c->ref + where, c->rcounts[0], type, 0, 0, comm,
                    MPI_STATUS_IGNORE);
    return;
  }
#endif
  PMPI_Allgatherv(in_place ? MPI_IN_PLACE : c->sendbuf, c->rcounts[rank], type, c->ref, c->rcounts, c->displs, type,
                  comm);
}

static int post(one_call *c, MPI_Datatype type, int count, int in_place, MPI_Request *req) {
  int rank;
  MPI_Comm_rank(c->comm, &rank);
  const void *sb = in_place ? MPI_IN_PLACE : c->sendbuf;
  if (c->rcounts) return IALLGATHERV(sb, c->rcounts[rank], type, c->ours, c->rcounts, c->displs, type, c->comm, req);
  return IALLGATHER(sb, count, type, c->ours, count, type, c->comm, req);
}

static void free_call(one_call *c) {
  free(c->sendbuf);
  free(c->ours);
  free(c->ref);
  free(c->rcounts);
}

/* Complete n requests the way `mode` says; the first error's code. */
static int complete(int mode, int n, MPI_Request *req) {
  int rc = MPI_SUCCESS, left = n;
  switch (mode) {
  case 0:
    return MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  case 1:
    for (int i = n - 1; i >= 0; i--) {
      MPI_Status st;
      int r = MPI_Wait(&req[i], &st);
      if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = r;
    }
    return rc;
  case 2:
    while (left > 0)
      for (int i = 0; i < n; i++) {
        int flag = 0;
        if (req[i] == MPI_REQUEST_NULL) continue;
        int r = MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
        if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = r;
        if (flag || r != MPI_SUCCESS) left--;
        else usleep(20);
      }
    return rc;
  case 3:
    while (left-- > 0) {
      int idx;
      int r = MPI_Waitany(n, req, &idx, MPI_STATUS_IGNORE);
      if (r != MPI_SUCCESS) return r;
    }
    return rc;
  default:
    while (left > 0) {
      int outcount = 0, idx[NCALLS > MANY ? NCALLS : MANY];
      int r = MPI_Testsome(n, req, &outcount, idx, MPI_STATUSES_IGNORE);
      if (r != MPI_SUCCESS) return r;
      if (outcount == MPI_UNDEFINED) break;
      left -= outcount;
      if (outcount == 0) usleep(20);
    }
    return rc;
  }
}

static void check_case(const char *alg, const char *cname, MPI_Comm comm, MPI_Comm other, const test_type *t,
                       int count, int in_place, int mode) {
  one_call c[NCALLS];
  make_allgather(&c[0], "allgather", comm, t->type, count, in_place);
  make_allgatherv(&c[1], "allgatherv", comm, t->type, count, in_place);
  make_allgather(&c[2], "allgather (other comm)", other, t->type, count + 1, 0);
  /* the calls keep what they need of a derived type: the application may free its own at once */
  MPI_Datatype posted;
  MPI_Type_dup(t->type, &posted);
  MPI_Request req[NCALLS];
  int rc = MPI_SUCCESS;
  for (int i = 0; i < NCALLS && rc == MPI_SUCCESS; i++) {
    rc = post(&c[i], posted, i == 2 ? count + 1 : count, in_place && i < 2, &req[i]);
  }
  MPI_Type_free(&posted);
  if (rc == MPI_SUCCESS) rc = complete(mode, NCALLS, req);
  for (int i = 0; i < NCALLS; i++) {
    cases++;
    long diff = first_difference(c[i].ours, c[i].ref, c[i].total);
    if (rc != MPI_SUCCESS || diff >= 0) {
      failures++;
      if (failures <= 10)
        fprintf(stderr,
                "FAIL world rank %d: alg=%s %s comm=%s type=%s count=%d in_place=%d mode=%d rc=%d (%s) byte %ld\n",
                world_rank, alg, c[i].what, cname, t->name, count, in_place, mode, rc, error_text(rc), diff);
    }
    free_call(&c[i]);
  }
}

/* MANY calls in flight on comm, completed together in reverse order. */
static void check_many(const char *alg, MPI_Comm comm) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  int *mine = malloc(MANY * 3 * sizeof *mine), *all = malloc((size_t)MANY * 3 * (size_t)P * sizeof *all);
  MPI_Request req[MANY];
  int rc = MPI_SUCCESS;
  for (int k = 0; k < MANY; k++) {
    for (int i = 0; i < 3; i++) mine[k * 3 + i] = k * 1000 + rank * 10 + i;
    if (rc == MPI_SUCCESS) rc = IALLGATHER(mine + k * 3, 3, MPI_INT, all + (size_t)k * 3 * P, 3, MPI_INT, comm, &req[k]);
  }
  MPI_Request rev[MANY];
  for (int k = 0; k < MANY; k++) rev[k] = req[MANY - 1 - k];
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(MANY, rev, MPI_STATUSES_IGNORE);
  long bad = 0;
  for (int k = 0; k < MANY; k++)
    for (int r = 0; r < P; r++)
      for (int i = 0; i < 3; i++)
        if (all[((size_t)k * P + r) * 3 + i] != k * 1000 + r * 10 + i) bad++;
  cases++;
  if (rc != MPI_SUCCESS || bad) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: alg=%s %d calls in flight: rc=%d, %ld wrong elements\n", world_rank, alg, MANY,
            rc, bad);
  }
  free(mine);
  free(all);
}

#ifndef PAT_MATRIX_DROPIN
/* Post one call and make no MPI call until libpat's background thread says it completed it. */
static void check_progress(const char *alg, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  int n = 50000, *mine = malloc((size_t)n * sizeof *mine), *all = malloc((size_t)n * (size_t)P * sizeof *all);
  for (int i = 0; i < n; i++) mine[i] = i;
  long long before = pat_nbc_completed_calls();
  MPI_Request req;
  int rc = IALLGATHER(mine, n, MPI_INT, all, n, MPI_INT, comm, &req);
  int waited_ms = 0;
  while (rc == MPI_SUCCESS && pat_nbc_completed_calls() == before && waited_ms < 60000) {
    usleep(1000);
    waited_ms++;
  }
  int progressed = pat_nbc_completed_calls() > before;
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  cases++;
  if (rc != MPI_SUCCESS || !progressed) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: alg=%s: rc %d, the call %s without MPI calls\n", world_rank, alg, rc,
            progressed ? "completed" : "did not complete in 60 s");
  }
  free(mine);
  free(all);
}
#endif

int main(int argc, char **argv) {
  matrix m;
  matrix_start(&m, &argc, &argv, &world_rank);
  const int P = m.P;
  int n = 0;
  for (int a = 0; a < m.nalgs; a++) {
    const char *alg = m.algs[a];
    if (under_test_use(alg)) {
      failures++;
      continue;
    }
#ifndef PAT_MATRIX_DROPIN
    long long queued_before = pat_nbc_queued_calls(), ran_before = nbc_ran_by(alg);
#endif
    for (size_t c = 0; c < TEST_NCOMMS; c++)
      for (int ti = 0; ti < m.ntypes; ti++)
        for (int ci = 0; ci < NCOUNTS; ci++)
          for (int ip = 0; ip < 2; ip++, n++)
            check_case(alg, m.comms[c].name, m.comms[c].comm, m.comms[(c + 1) % TEST_NCOMMS].comm, &m.types[ti],
                       counts[ci], ip, n % NMODES);
    check_many(alg, m.comms[1].comm);
#ifndef PAT_MATRIX_DROPIN
    if (strcmp(alg, "native") != 0 && P > 1 && !(getenv("PAT_THREAD") && !strcmp(getenv("PAT_THREAD"), "0")))
      check_progress(alg, m.comms[0].comm); /* one process copies at once; without the thread MPI's own runs */
    /* a classic setting's calls run in libpat's background thread (PAT_ALG must name one at PAT_Init, or
     * auto on one node starts no thread), native's are MPI's own */
    long long queued = pat_nbc_queued_calls() - queued_before;
    cases++;
    /* without the thread (PAT_THREAD=0) every call is MPI's own */
    int mpi_own = strcmp(alg, "native") == 0 || P == 1 || (getenv("PAT_THREAD") && !strcmp(getenv("PAT_THREAD"), "0"));
    if (mpi_own != (queued == 0)) {
      failures++;
      fprintf(stderr, "FAIL world rank %d: alg=%s: libpat's background thread ran %lld of the calls\n", world_rank, alg,
              queued);
    }
    /* ... each with the setting's own schedule (arrival-aware ones too, built for balanced arrivals) */
    long long ran = nbc_ran_by(alg) - ran_before;
    cases++;
    if (!mpi_own && ran != queued) {
      failures++;
      fprintf(stderr, "FAIL world rank %d: alg=%s: %lld of the %lld queued calls ran its schedule\n", world_rank, alg,
              ran, queued);
    }
#endif
  }
#ifdef PAT_MATRIX_DROPIN
  /* under a classic setting every call with data went to libpat's queue; else MPI's own ran them */
  long long (*queued)(void) = (long long (*)(void))dropin_symbol("pat_nbc_queued_calls");
  const char *alg = getenv("PAT_ALG");
  if (!queued) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: libpat is not loaded: MPI_Iallgather was not intercepted\n", world_rank);
  } else if (alg && strcmp(alg, "auto") != 0 && strcmp(alg, "native") != 0 && P > 1 && queued() == 0) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: PAT_ALG=%s, and libpat queued none of the calls\n", world_rank, alg);
  }
#endif
  return matrix_finish(&m, "iallgather matrix", cases, failures);
}
