/* What the correctness matrices (test_allgather_matrix.c, test_allgatherv_matrix.c,
 * test_iallgather_matrix.c) set up and tear down alike: the algorithms under
 * test, the matrix's datatypes and communicators, and the closing report.
 * Inline, as allgather_under_test.h: tests/dropin builds them with
 * -DPAT_MATRIX_DROPIN. */
#ifndef PAT_MATRIX_H
#define PAT_MATRIX_H

#include <stdio.h>

#include "allgather_under_test.h"
#include "mpitest.h"

typedef struct matrix {
  const char *const *algs; /* the algorithms to check (under_test_start) */
  int nalgs;
  int P; /* processes in MPI_COMM_WORLD */
  test_type types[5];
  int ntypes;
  test_comm comms[TEST_NCOMMS];
} matrix;

/* MPI and libpat started, *world_rank this process's rank in MPI_COMM_WORLD. */
static inline void matrix_start(matrix *m, int *argc, char ***argv, int *world_rank) {
  m->nalgs = under_test_start(argc, argv, &m->algs);
  MPI_Comm_rank(MPI_COMM_WORLD, world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->P);
  m->ntypes = test_types_create(m->types);
  test_comms_create(m->comms);
}

/* The closing lines ("<name>, P=<P>: <n> cases", then passed and failed),
 * what matrix_start made freed, libpat and MPI finalized; the exit status. */
static inline int matrix_finish(matrix *m, const char *name, long cases, long failures) {
  char what[64];
  snprintf(what, sizeof what, "%s, P=%d", name, m->P);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  test_comms_free(m->comms);
  test_types_free(m->types, m->ntypes);
  under_test_finish();
  return bad;
}

#endif
