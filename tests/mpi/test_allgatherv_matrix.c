/*
 * The correctness matrix of the all-gather-v: every algorithm named on the
 * command line x per-rank count patterns {all zero, all 7, a ramp with
 * zeros, one rank huge, zeros on even ranks, random} x block placements
 * {packed in rank order, reversed block order, rotated order with holes
 * before, between and after the blocks} x datatypes {float, double, byte,
 * strided vector, padded struct; the huge pattern with byte and vector
 * only} x {normal, MPI_IN_PLACE} x communicators
 * {world, split with reversed ranks, split into two halves}; plus send and
 * receive types that differ but have the same signature (also differing
 * between ranks).  Each receive buffer starts as 0xA5 bytes and is compared
 * byte by byte, holes included, with the MPI library's own all-gather-v
 * (PMPI_Allgatherv) on an identical buffer: made once per case, under the
 * first algorithm named, the others' results compared with its hash
 * (ref_begin in mpitest.h; PAT_MATRIX_REF_EVERY=1: before every call).
 * PAT_LastAlg must name the algorithm asked for.
 *
 * With -DPAT_MATRIX_DROPIN (tests/dropin) it is an unmodified MPI program:
 * it calls plain MPI_Allgatherv, which libpat_mpi intercepts when preloaded,
 * runs the algorithm PAT_ALG names, and checks that libpat ran every call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

#define HUGE_COUNT 70000

enum { ZERO, EQUAL7, RAMP, HUGE_ONE, SOME_ZERO, RANDOM, NPATTERNS };
static const char *pattern_names[NPATTERNS] = {"zero", "equal7", "ramp", "huge-one", "zero-on-even", "random"};
enum { PACKED, REVERSED, GAPPED, NORDERS };
static const char *order_names[NORDERS] = {"packed", "reversed", "gapped"};

/* The huge pattern runs with MPI_BYTE (contiguous) and the strided vector
 * (holes in every element, 2 MiB): under MPICH, whose ranks poll without
 * yielding, its calls are most of the run time (at P = 3 on 2 cores, 32 of
 * 35 s per algorithm with all five types). */
static int huge_type(const test_type *t) { return t->type == MPI_BYTE || strncmp(t->name, "vector", 6) == 0; }

static long failures, cases;
static int world_rank;

/* Elements rank r contributes under a pattern, the same on every rank of a
 * communicator of P ranks. */
static void make_counts(int pattern, int P, int *c) {
  unsigned x = 12345u + 31u * (unsigned)P;
  for (int r = 0; r < P; r++) switch (pattern) {
      case ZERO: c[r] = 0; break;
      case EQUAL7: c[r] = 7; break;
      case RAMP: c[r] = r % 3 == 1 ? 0 : 5 * r + 1; break;
      case HUGE_ONE: c[r] = r == P / 2 ? HUGE_COUNT : 3; break;
      case SOME_ZERO: c[r] = r % 2 == 0 ? 0 : 1000; break;
      default: /* RANDOM: a quarter zeros, the others 1..1500 */
        x = x * 1103515245u + 12345u;
        c[r] = (x >> 16) % 4 == 0 ? 0 : (int)((x >> 8) % 1500) + 1;
    }
}

/* Displacements (in elements) of the blocks under an order; returns the
 * number of elements the receive buffer spans. */
static long make_displs(int order, int P, const int *c, int *d) {
  long pos = 0;
  for (int k = 0; k < P; k++) {
    int r = order == PACKED ? k : order == REVERSED ? P - 1 - k : (k + P / 2) % P;
    if (order == GAPPED) pos += 1 + k % 3; /* a hole before every block */
    d[r] = (int)pos;
    pos += c[r];
  }
  return order == GAPPED ? pos + 2 : pos; /* and one after the last */
}

/* Where byte `at` of the receive buffer lies: in rank r's block or a hole. */
static void locate(long at, MPI_Aint extent, int P, const int *c, const int *d, char *out, size_t n) {
  if (at < 0) {
    snprintf(out, n, "-");
    return;
  }
  for (int r = 0; r < P; r++)
    if (at >= d[r] * extent && at < (d[r] + (long)c[r]) * extent) {
      snprintf(out, n, "block of rank %d, element %ld, byte %ld of it", r, (long)(at / extent - d[r]),
               (long)(at % extent));
      return;
    }
  snprintf(out, n, "a hole, outside every block");
}

/* Whether alg hands the call to the MPI library's own all-gather-v (on more
 * than one process): "native" and "auto" do. */
static int runs_mpi_own(const char *alg) { return strcmp(alg, "native") == 0 || strcmp(alg, "auto") == 0; }

/* The reference: the MPI library's own all-gather-v on the same arguments.
 * MPICH before 4.1 ignores displs on a single process (its early return
 * copies the send buffer to recvbuf itself: pmodels/mpich#6374, seen with
 * 4.0.2 writing a gapped order's leading hole): there the block is sent to
 * self instead, as libpat does on a single process under every setting. */
static void reference(const void *sb, int scount, MPI_Datatype stype, void *rb, const int *c, const int *d,
                      MPI_Datatype rtype, MPI_Comm comm) {
#ifdef MPICH_VERSION
  int P;
  MPI_Comm_size(comm, &P);
  if (P == 1) {
    MPI_Aint lb, extent;
    MPI_Type_get_extent(rtype, &lb, &extent);
    if (sb != MPI_IN_PLACE)
      PMPI_Sendrecv(sb, scount, stype, 0, 0, (char *)rb + (MPI_Aint)d[0] * extent, c[0], rtype, 0, 0, comm,
                    MPI_STATUS_IGNORE);
    return;
  }
#endif
  PMPI_Allgatherv(sb, scount, stype, rb, c, d, rtype, comm);
}

#ifdef PAT_MATRIX_DROPIN
/* libpat ran all `calls` all-gather-v calls, and the last one on world ran
 * alg (dropin_check).  MPI's own all-gather-v ("native", and auto's usual
 * choice) makes no libpat state for a communicator, whose PAT_LastAlg then
 * stays "": for those only the number of calls is checked. */
static long check_dropin(const char *alg, long calls) {
  if (strcmp(alg, "auto") != 0 && strcmp(alg, "native") != 0) return dropin_check(MPI_COMM_WORLD, alg, calls);
  PAT_Stats st;
  return dropin_check_count(calls, &st);
}
#else
static long auto_ran_libpat; /* calls in which auto ran one of libpat's algorithms */

/* Every rank of comm ran the same algorithm: its name's hash agrees. */
static int same_on_every_rank(const char *name, MPI_Comm comm) {
  long h = 5381, lo, hi;
  for (const char *p = name; *p; p++) h = h * 33 + (unsigned char)*p;
  MPI_Allreduce(&h, &lo, 1, MPI_LONG, MPI_MIN, comm);
  MPI_Allreduce(&h, &hi, 1, MPI_LONG, MPI_MAX, comm);
  return lo == hi;
}

/* The algorithm the call ran is the one asked for: libpat runs ring on a
 * single process; "auto" may run any algorithm, the same on every rank
 * (with a model file it chooses from the counts: vchoice.h); PAT_ALG=native
 * makes no libpat state for a communicator, whose PAT_LastAlg then stays "". */
static int ran_as_asked(const char *alg, MPI_Comm comm, int P, const char **ran) {
  *ran = PAT_LastAlg(comm);
  if (strcmp(alg, "auto") == 0) {
    if (P > 1 && strcmp(*ran, "native") != 0) auto_ran_libpat++;
    return same_on_every_rank(*ran, comm);
  }
  if (strcmp(alg, "native") == 0 && !**ran) return 1;
  return strcmp(*ran, alg) == 0 || (P == 1 && strcmp(*ran, "ring") == 0);
}
#endif

static void check_case(const char *alg, const char *cname, MPI_Comm comm, const test_type *t, int pattern, int order,
                       int in_place) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t->type, &lb, &extent);
  int *c = malloc((size_t)P * sizeof *c), *d = malloc((size_t)P * sizeof *d);
  make_counts(pattern, P, c);
  long span = make_displs(order, P, c, d);
  size_t block = (size_t)c[rank] * (size_t)extent, total = (size_t)span * (size_t)extent + 64;
  unsigned seed = (unsigned)(rank * 7919 + pattern * 131 + order * 17 + in_place);
  char *sendbuf = malloc(block + 1), *ours = malloc(total), *ref = malloc(total);
  fill_pattern(sendbuf, block, seed);
  memset(ours, 0xA5, total);
  memset(ref, 0xA5, total);
  if (in_place) {
    memcpy(ours + (size_t)d[rank] * extent, sendbuf, block);
    memcpy(ref + (size_t)d[rank] * extent, sendbuf, block);
  }
  const void *sb = in_place ? MPI_IN_PLACE : sendbuf;
  if (ref_begin(comm)) reference(sb, c[rank], t->type, ref, c, d, t->type, comm);
  int rc = ALLGATHERV(sb, c[rank], t->type, ours, c, d, t->type, comm);
  cases++;
  long diff;
  int same = ref_matches(ours, ref, total, &diff);
  const char *ran = "";
  int ran_ok = 1;
#ifndef PAT_MATRIX_DROPIN
  ran_ok = ran_as_asked(alg, comm, P, &ran);
#endif
  if (rc != MPI_SUCCESS || !same || !ran_ok) {
    failures++;
    if (failures <= 10) {
      char where[128];
      locate(diff, extent, P, c, d, where, sizeof where);
      fprintf(stderr,
              "FAIL world rank %d: alg=%s (ran '%s') comm=%s P=%d rank=%d pattern=%s order=%s type=%s in_place=%d "
              "rc=%d (%s) byte %ld (%s)%s\n",
              world_rank, alg, ran, cname, P, rank, pattern_names[pattern], order_names[order], t->name, in_place, rc,
              rc == MPI_SUCCESS ? "success" : error_text(rc), diff, where, ref_hint(same, diff));
    }
  }
  free(sendbuf);
  free(ours);
  free(ref);
  free(c);
  free(d);
}

/* Send 2c ints, receive c pairs of ints (counts and displacements in
 * pairs); odd ranks use the types the other way round (counts and
 * displacements in ints), so even the receive types differ between ranks.
 *
 * Except where the MPI library's own all-gather-v runs ("native", and
 * "auto", which runs it on one node): Open MPI 4.1's tuned component
 * chooses its algorithm from size(sendtype) x sum(recvcounts) (coll_tuned_
 * decision_fixed.c), 4 x sum(c) bytes on the even ranks and 16 x sum(c) on
 * the odd ones, so ranks choose different algorithms and hang (seen at P = 3
 * with one rank's 131072 pairs: ring on two ranks, bruck on the third).
 * There every rank sends ints and receives pairs. */
static void check_mixed_types(const char *alg, MPI_Comm comm, int pattern) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  int flip = rank % 2 == 1;
#ifdef OPEN_MPI
  if (runs_mpi_own(alg)) flip = 0;
#endif
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int *c = malloc((size_t)P * sizeof *c), *d = malloc((size_t)P * sizeof *d);
  int *c2 = malloc((size_t)P * sizeof *c2), *d2 = malloc((size_t)P * sizeof *d2);
  make_counts(pattern, P, c);
  long span = make_displs(GAPPED, P, c, d);
  for (int r = 0; r < P; r++) {
    c2[r] = 2 * c[r];
    d2[r] = 2 * d[r];
  }
  size_t block = (size_t)c[rank] * 2 * sizeof(int), total = (size_t)span * 2 * sizeof(int) + 64;
  char *sendbuf = malloc(block + 4), *ours = malloc(total), *ref = malloc(total);
  fill_pattern(sendbuf, block, (unsigned)rank + 99 + 7 * (unsigned)pattern);
  memset(ours, 0xA5, total);
  memset(ref, 0xA5, total);
  if (ref_begin(comm)) reference(sendbuf, c2[rank], MPI_INT, ref, c2, d2, MPI_INT, comm);
  int rc;
  if (!flip)
    rc = ALLGATHERV(sendbuf, c2[rank], MPI_INT, ours, c, d, pair, comm);
  else
    rc = ALLGATHERV(sendbuf, c[rank], pair, ours, c2, d2, MPI_INT, comm);
  cases++;
  long diff;
  int same = ref_matches(ours, ref, total, &diff);
  if (rc != MPI_SUCCESS || !same) {
    failures++;
    char where[128];
    locate(diff, 2 * sizeof(int), P, c, d, where, sizeof where);
    fprintf(stderr, "FAIL world rank %d: alg=%s mixed types P=%d pattern=%s rc=%d (%s) byte %ld (%s)%s\n", world_rank,
            alg, P, pattern_names[pattern], rc, rc == MPI_SUCCESS ? "success" : error_text(rc), diff, where,
            ref_hint(same, diff));
  }
  free(sendbuf);
  free(ours);
  free(ref);
  free(c);
  free(d);
  free(c2);
  free(d2);
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
    for (size_t ci = 0; ci < TEST_NCOMMS; ci++)
      for (int pat = 0; pat < NPATTERNS; pat++)
        for (int ti = 0; ti < m.ntypes; ti++) {
          if (pat == HUGE_ONE && !huge_type(&m.types[ti])) continue;
          for (int o = 0; o < NORDERS; o++)
            for (int ip = 0; ip < 2; ip++)
              check_case(alg, m.comms[ci].name, m.comms[ci].comm, &m.types[ti], pat, o, ip);
        }
    for (int pat = 0; pat < NPATTERNS; pat++) check_mixed_types(alg, reversed, pat);
  }
#ifdef PAT_MATRIX_DROPIN
  failures += check_dropin(m.algs[0], cases);
#else
  /* with PAT_VMATRIX_CHOOSES (set beside the test's made-up model file), auto
   * must have chosen libpat's algorithms for some of the counts */
  if (getenv("PAT_VMATRIX_CHOOSES") && auto_ran_libpat == 0) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: auto ran MPI's own all-gather-v for every count pattern\n", world_rank);
  }
  if (getenv("PAT_VMATRIX_CHOOSES") && world_rank == 0)
    printf("auto ran libpat's algorithms in %ld of %ld cases on rank 0\n", auto_ran_libpat, cases);
#endif
  return matrix_finish(&m, "allgatherv matrix", cases, failures);
}
