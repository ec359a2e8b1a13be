/*
 * The correctness matrix: every algorithm named on the command line x
 * per-rank counts {0, 1, 7, 1000, 70000} x datatypes {float, double, byte,
 * strided vector, padded struct} x {normal, MPI_IN_PLACE} x communicators
 * {world, split with reversed ranks, split into two halves}; plus send and
 * receive types that differ but have the same signature (also differing
 * between ranks).  Each result is compared byte by byte, holes included,
 * with the MPI library's own all-gather (PMPI_Allgather).
 *
 * MPI's own result of a case is made once, under the first algorithm named;
 * the others' results are compared with its hash (ref_begin in mpitest.h;
 * PAT_MATRIX_REF_EVERY=1 makes it before every call).
 *
 * With -DPAT_MATRIX_DROPIN (tests/dropin) it is an unmodified MPI program:
 * it calls plain MPI_Allgather, which libpat_mpi intercepts when preloaded,
 * runs the algorithm PAT_ALG names, and checks that libpat ran every call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* 70000: over the 64 KiB eager limit in every datatype (RELAY's pieces, rendezvous, send windows);
 * 131072 took CI half as long again and reached no other path. */
static const int counts[] = {0, 1, 7, 1000, 70000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

static long failures, cases;
static int world_rank;

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
  if (ref_begin(comm)) PMPI_Allgather(sb, count, t->type, ref, count, t->type, comm);
  int rc = ALLGATHER(sb, count, t->type, ours, count, t->type, comm);
  cases++;
  long diff;
  int same = ref_matches(ours, ref, total, &diff);
  if (rc != MPI_SUCCESS || !same) {
    failures++;
    if (failures <= 10)
      fprintf(stderr, "FAIL world rank %d: alg=%s comm=%s P=%d type=%s count=%d in_place=%d rc=%d (%s) byte %ld%s\n",
              world_rank, alg, cname, P, t->name, count, in_place, rc, error_text(rc), diff, ref_hint(same, diff));
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
  if (ref_begin(comm)) PMPI_Allgather(sendbuf, 2 * count, MPI_INT, ref, 2 * count, MPI_INT, comm);
  int rc;
  if (rank % 2 == 0)
    rc = ALLGATHER(sendbuf, 2 * count, MPI_INT, ours, count, pair, comm);
  else
    rc = ALLGATHER(sendbuf, count, pair, ours, 2 * count, MPI_INT, comm);
  cases++;
  long diff;
  int same = ref_matches(ours, ref, total, &diff);
  if (rc != MPI_SUCCESS || !same) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: alg=%s mixed types count=%d rc=%d byte %ld%s\n", world_rank, alg, count, rc,
            diff, ref_hint(same, diff));
  }
  free(sendbuf);
  free(ours);
  free(ref);
  MPI_Type_free(&pair);
}

int main(int argc, char **argv) {
  matrix m;
  matrix_start(&m, &argc, &argv, &world_rank);
  MPI_Comm reversed = m.comms[1].comm;

  for (int a = 0; a < m.nalgs; a++) {
    const char *alg = m.algs[a];
    ref_next_alg();
    if (under_test_use(alg)) {
      failures++;
      continue;
    }
    for (size_t c = 0; c < TEST_NCOMMS; c++)
      for (int ti = 0; ti < m.ntypes; ti++)
        for (int ci = 0; ci < NCOUNTS; ci++)
          for (int ip = 0; ip < 2; ip++)
            check_case(alg, m.comms[c].name, m.comms[c].comm, &m.types[ti], counts[ci], ip);
    for (int ci = 0; ci < NCOUNTS; ci++) check_mixed_types(alg, reversed, counts[ci]);
  }
#ifdef PAT_MATRIX_DROPIN
  failures += dropin_check(MPI_COMM_WORLD, m.algs[0], cases);
#endif
  return matrix_finish(&m, "allgather matrix", cases, failures);
}
