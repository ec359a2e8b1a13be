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

#endif
