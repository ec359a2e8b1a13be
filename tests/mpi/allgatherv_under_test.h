/* The all-gather-v that the correctness matrix (test_allgatherv_matrix.c)
 * checks: ALLGATHERV is PAT_Allgatherv, or, built with -DPAT_MATRIX_DROPIN
 * (tests/dropin), plain MPI_Allgatherv, which libpat_mpi intercepts;
 * error_text(rc) describes what it returned. */
#ifndef PAT_ALLGATHERV_UNDER_TEST_H
#define PAT_ALLGATHERV_UNDER_TEST_H

#include <mpi.h>

#ifdef PAT_MATRIX_DROPIN
#include "dropin_check.h"
#define ALLGATHERV MPI_Allgatherv
static inline const char *error_text(int rc) {
  static char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, text, &len);
  return text;
}
#else
#include "pat.h"
#define ALLGATHERV PAT_Allgatherv
#define error_text PAT_Error_string
#endif

#endif
