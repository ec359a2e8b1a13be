/* Helpers shared by the MPI tests: datatypes of the correctness matrix,
 * deterministic fill patterns, and failure counting across ranks. */
#ifndef PAT_MPITEST_H
#define PAT_MPITEST_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

typedef struct test_type {
  const char *name;
  MPI_Datatype type; /* committed */
} test_type;

/* The five datatypes of the matrix: float, double, byte, a strided vector
 * (holes between elements) and a padded struct. */
int test_types_create(test_type *types);
void test_types_free(test_type *types, int n);

typedef struct test_comm {
  const char *name;
  MPI_Comm comm;
} test_comm;

/* The matrix's communicators: "world", "reversed" (world's ranks in reverse
 * order) and "half" (even and odd world ranks apart, each reversed).
 * Collective over world. */
#define TEST_NCOMMS 3
void test_comms_create(test_comm comms[TEST_NCOMMS]);
void test_comms_free(test_comm comms[TEST_NCOMMS]);

/* Fill n bytes with a pattern that depends on (seed, offset). */
void fill_pattern(void *buf, size_t n, unsigned seed);

/* First differing byte or -1. */
long first_difference(const void *a, const void *b, size_t n);

/* Sum of local failures over comm, printed by rank 0 as the closing line. */
int report_failures(const char *what, long cases, long local_failures, MPI_Comm comm);

/* Counts a case and reports it on stderr if cond is false; the test declares
 * `long cases, failures` and `int rank`. */
#define CHECK(cond, ...)                                         \
  do {                                                           \
    cases++;                                                     \
    if (!(cond)) {                                               \
      failures++;                                                \
      fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                              \
      fputc('\n', stderr);                                       \
    }                                                            \
  } while (0)

/* The start of a test's main: MPI_Init_thread asking for MPI_THREAD_MULTIPLE
 * (what MPI provides is not checked), this process's rank in MPI_COMM_WORLD
 * and its size in *rank and *P.  Returns the test's mode: argv[1], or dflt
 * without one. */
const char *test_init(int *argc, char ***argv, int *rank, int *P, const char *dflt);

/* Sleeps ms milliseconds (a compute phase, a skewed arrival). */
void sleep_ms(double ms);

/* MPI's own result of a matrix case, made once.  It does not depend on the
 * algorithm under test, so the matrices make it (PMPI_Allgather(v) into a
 * buffer of their own) the first time a case runs, under the first algorithm
 * of the run, and compare the later algorithms' results with a 64-bit hash
 * of it: every byte of the buffer, holes and margins included (a wrong
 * result passes with a chance of about 2^-64).  A PMPI_Barrier takes the
 * reference's place before those calls, so that every call starts with the
 * ranks released together, as with a reference before every call.  With
 * PAT_MATRIX_REF_EVERY=1 the reference is made before every call and the
 * first differing byte is named (as before 2026-11-26).
 *
 *   ref_next_alg();                 before an algorithm's first case
 *   if (ref_begin(comm)) PMPI_Allgather(..., ref, ...);   else a barrier ran
 *   rc = ALLGATHER(..., ours, ...);
 *   ok = ref_matches(ours, ref, total, &diff);
 *
 * Every rank runs the same sequence of cases, so every rank makes the same
 * references (collective calls). */
void ref_next_alg(void);
int ref_begin(MPI_Comm comm);
/* *diff: the first differing byte where the reference was made now, else -1 */
int ref_matches(const void *ours, const void *ref, size_t total, long *diff);
/* ... and the hint for a failure's message where only the hash was compared */
const char *ref_hint(int matched, long diff);

#endif
