/*
 * The correctness matrix: every algorithm named on the command line x
 * per-rank counts {0, 1, 7, 1000, 131072} x datatypes {float, double, byte,
 * strided vector, padded struct} x {normal, MPI_IN_PLACE} x communicators
 * {world, split with reversed ranks, split into two halves}; plus send and
 * receive types that differ but have the same signature (also differing
 * between ranks).  Each result is compared byte by byte, holes included,
 * with the MPI library's own all-gather (PMPI_Allgather).
 *
 * MPI's own result of a case does not depend on the algorithm: it is made
 * once, under the first algorithm named, and the others' results are
 * compared with a 64-bit hash of it (every byte of the buffer, holes and the
 * 64 bytes after it included: a wrong result passes with a chance of about
 * 2^-64); a PMPI_Barrier takes the reference's place before their calls,
 * so that every call starts with the ranks released together, as before.
 * That leaves out most of a run's data movement by MPI's own all-gather
 * without changing one of libpat's calls or their order.  A mismatch fails
 * the case; PAT_MATRIX_REF_EVERY=1 makes the reference before every call
 * (as before 2026-11-26) and names the first differing byte.
 *
 * With -DPAT_MATRIX_DROPIN (tests/dropin) it is an unmodified MPI program:
 * it calls plain MPI_Allgather, which libpat_mpi intercepts when preloaded,
 * runs the algorithm PAT_ALG names, and checks that libpat ran every call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allgather_under_test.h"
#include "mpitest.h"

static const int counts[] = {0, 1, 7, 1000, 131072};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static long failures, cases;
static int world_rank;

/* The references of one algorithm's cases, in the order it runs them: the
 * hash of MPI's own result, once made (the same sequence on every rank, so
 * every rank calls PMPI_Allgather for the same cases). */
static struct {
  int every;  /* PAT_MATRIX_REF_EVERY: PMPI_Allgather before every call */
  int next;   /* this algorithm's next case */
  int n, cap; /* cases with a reference */
  uint64_t *hash;
} refs;

/* 64 bits of every byte of buf[0..n) */
static uint64_t buffer_hash(const void *buf, size_t n) {
  const unsigned char *p = buf;
  uint64_t h = 0x243F6A8885A308D3u ^ (uint64_t)n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15u;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = ((h ^ p[i]) * 0x100000001B3u) ^ (h >> 31);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDu;
  return h ^ (h >> 33);
}

/* Before a case's call: makes MPI's own result into `ref` (total bytes, set
 * up as `ours` is) with PMPI_Allgather, collective over comm, the first time
 * the case runs, or every time under PAT_MATRIX_REF_EVERY; otherwise a
 * PMPI_Barrier in its place, so that every call starts, as before, with the
 * ranks just released together.  Returns the case's index. */
static int reference_before(const void *sb, int count, MPI_Datatype sendtype, int rcount, MPI_Datatype recvtype,
                            MPI_Comm comm, char *ref) {
  int k = refs.next++;
  if (refs.every || k >= refs.n)
    PMPI_Allgather(sb, count, sendtype, ref, rcount, recvtype, comm);
  else
    PMPI_Barrier(comm);
  return k;
}

/* After the call: is `ours` MPI's own result of case k?  *diff is the first
 * differing byte where the reference was made now, -1 where only its hash
 * was compared. */
static int reference_matches(int k, const char *ours, const char *ref, size_t total, long *diff) {
  *diff = -1;
  if (!refs.every && k < refs.n) return buffer_hash(ours, total) == refs.hash[k];
  if (!refs.every) {
    if (refs.n == refs.cap) {
      refs.cap = refs.cap ? 2 * refs.cap : 256;
      refs.hash = realloc(refs.hash, refs.cap * sizeof *refs.hash);
    }
    refs.hash[refs.n++] = buffer_hash(ref, total);
  }
  *diff = first_difference(ours, ref, total);
  return *diff < 0;
}

static const char *byte_hint(int same, long diff) {
  return same || diff >= 0 ? "" : " (differs from MPI's own result; PAT_MATRIX_REF_EVERY=1 names the byte)";
}

static void check_case(const char *alg, const char *cname, MPI_Comm comm, const test_type *t, int count,
                       int in_place) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t->type, &lb, &extent);
  size_t block = (size_t)count * (size_t)extent, total = block * (size_t)P + 64;
  unsigned seed = (unsigned)(rank * 7919 + count * 31 + in_place);
  char *sendbuf = malloc(block + 1), *ours = malloc(total), *ref = malloc(total);
  fill_pattern(sendbuf, block, seed);
  memset(ours, 0xA5, total);
  memset(ref, 0xA5, total);
  if (in_place) {
    memcpy(ours + rank * block, sendbuf, block);
    memcpy(ref + rank * block, sendbuf, block);
  }
  const void *sb = in_place ? MPI_IN_PLACE : sendbuf;
  int k = reference_before(sb, count, t->type, count, t->type, comm, ref);
  int rc = ALLGATHER(sb, count, t->type, ours, count, t->type, comm);
  cases++;
  long diff;
  int same = reference_matches(k, ours, ref, total, &diff);
  if (rc != MPI_SUCCESS || !same) {
    failures++;
    if (failures <= 10)
      fprintf(stderr, "FAIL world rank %d: alg=%s comm=%s P=%d type=%s count=%d in_place=%d rc=%d (%s) byte %ld%s\n",
              world_rank, alg, cname, P, t->name, count, in_place, rc, error_text(rc), diff, byte_hint(same, diff));
  }
  free(sendbuf);
  free(ours);
  free(ref);
}

/* Send 2c ints, receive c pairs of ints; odd ranks use the types the other
 * way round, so even the receive types differ between ranks. */
static void check_mixed_types(const char *alg, MPI_Comm comm, int count) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  size_t block = (size_t)count * 2 * sizeof(int), total = block * P;
  int *sendbuf = malloc(block + 4), *ours = malloc(total + 4), *ref = malloc(total + 4);
  fill_pattern(sendbuf, block, (unsigned)rank + 99);
  memset(ours, 0, total);
  memset(ref, 0, total);
  int k = reference_before(sendbuf, 2 * count, MPI_INT, 2 * count, MPI_INT, comm, (char *)ref), rc;
  if (rank % 2 == 0)
    rc = ALLGATHER(sendbuf, 2 * count, MPI_INT, ours, count, pair, comm);
  else
    rc = ALLGATHER(sendbuf, count, pair, ours, 2 * count, MPI_INT, comm);
  cases++;
  long diff;
  int same = reference_matches(k, (const char *)ours, (const char *)ref, total, &diff);
  if (rc != MPI_SUCCESS || !same) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: alg=%s mixed types count=%d rc=%d byte %ld%s\n", world_rank, alg, count, rc,
            diff, byte_hint(same, diff));
  }
  free(sendbuf);
  free(ours);
  free(ref);
  MPI_Type_free(&pair);
}

int main(int argc, char **argv) {
  const char *const *algs;
  int nalgs = under_test_start(&argc, &argv, &algs);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  test_type types[5];
  int ntypes = test_types_create(types);
  test_comm comms[TEST_NCOMMS];
  test_comms_create(comms);
  MPI_Comm reversed = comms[1].comm;

  const char *every = getenv("PAT_MATRIX_REF_EVERY");
  refs.every = every && *every && strcmp(every, "0") != 0;
  for (int a = 0; a < nalgs; a++) {
    const char *alg = algs[a];
    refs.next = 0;
    if (under_test_use(alg)) {
      failures++;
      continue;
    }
    for (size_t c = 0; c < TEST_NCOMMS; c++)
      for (int ti = 0; ti < ntypes; ti++)
        for (int ci = 0; ci < NCOUNTS; ci++)
          for (int ip = 0; ip < 2; ip++) check_case(alg, comms[c].name, comms[c].comm, &types[ti], counts[ci], ip);
    for (int ci = 0; ci < NCOUNTS; ci++) check_mixed_types(alg, reversed, counts[ci]);
  }
#ifdef PAT_MATRIX_DROPIN
  failures += dropin_check(MPI_COMM_WORLD, algs[0], cases);
#endif
  char what[64];
  snprintf(what, sizeof what, "allgather matrix, P=%d", P);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  test_comms_free(comms);
  test_types_free(types, ntypes);
  free(refs.hash);
  under_test_finish();
  return bad;
}
