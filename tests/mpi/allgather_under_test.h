/* The all-gather that the correctness matrices (test_allgather_matrix.c,
 * test_allgatherv_matrix.c) and the datatype test (test_datatypes.c) check:
 * ALLGATHER and ALLGATHERV are PAT_Allgather and PAT_Allgatherv, or, built
 * with -DPAT_MATRIX_DROPIN (tests/dropin), plain MPI_Allgather and
 * MPI_Allgatherv, which libpat_mpi intercepts; error_text(rc) describes what
 * they returned. */
#ifndef PAT_ALLGATHER_UNDER_TEST_H
#define PAT_ALLGATHER_UNDER_TEST_H

#include <mpi.h>

#ifdef PAT_MATRIX_DROPIN
#include "dropin_check.h"
#define ALLGATHER MPI_Allgather
#define ALLGATHERV MPI_Allgatherv
static inline const char *error_text(int rc) {
  static char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, text, &len);
  return text;
}
#else
#include "pat.h"
#define ALLGATHER PAT_Allgather
#define ALLGATHERV PAT_Allgatherv
#define error_text PAT_Error_string
#endif

#endif
