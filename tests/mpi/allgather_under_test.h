/* The all-gather that the correctness matrices (test_allgather_matrix.c,
 * test_allgatherv_matrix.c) and the datatype test (test_datatypes.c) check:
 * ALLGATHER and ALLGATHERV are PAT_Allgather and PAT_Allgatherv, or, built
 * with -DPAT_MATRIX_DROPIN (tests/dropin), plain MPI_Allgather and
 * MPI_Allgatherv (IALLGATHER and IALLGATHERV the same for the non-blocking
 * ones), which libpat_mpi intercepts; error_text(rc) describes what
 * they returned. */
#ifndef PAT_ALLGATHER_UNDER_TEST_H
#define PAT_ALLGATHER_UNDER_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef PAT_MATRIX_DROPIN
#include "dropin_check.h"
#define ALLGATHER MPI_Allgather
#define ALLGATHERV MPI_Allgatherv
#define IALLGATHER MPI_Iallgather
#define IALLGATHERV MPI_Iallgatherv
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
#define IALLGATHER PAT_Iallgather
#define IALLGATHERV PAT_Iallgatherv
#define error_text PAT_Error_string
#endif

/* The start of a check: MPI (MPI_THREAD_MULTIPLE), and the algorithms to
 * check in *algs, returning their number: under the drop-in the one PAT_ALG
 * names (auto if unset), which libpat_mpi took at MPI_Init; otherwise the
 * arguments, after PAT_Init. */
static inline int under_test_start(int *argc, char ***argv, const char *const **algs) {
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
#ifdef PAT_MATRIX_DROPIN
  static const char *from_env[1];
  const char *env = getenv("PAT_ALG");
  from_env[0] = env && *env ? env : "auto";
  *algs = from_env;
  return 1;
#else
  if (PAT_Init() != MPI_SUCCESS) {
    fprintf(stderr, "PAT_Init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  *algs = (const char *const *)(*argv + 1);
  return *argc - 1;
#endif
}

/* The calls under test run alg from now on (under the drop-in PAT_ALG
 * chose it already).  0, or 1 after saying that alg is unknown. */
static inline int under_test_use(const char *alg) {
#ifdef PAT_MATRIX_DROPIN
  (void)alg;
#else
  if (PAT_UseAlg(alg) != MPI_SUCCESS) {
    fprintf(stderr, "unknown algorithm %s\n", alg);
    return 1;
  }
#endif
  return 0;
}

/* The end of a check: PAT_Finalize (under the drop-in MPI_Finalize runs
 * it), then MPI_Finalize. */
static inline void under_test_finish(void) {
#ifndef PAT_MATRIX_DROPIN
  PAT_Finalize();
#endif
  MPI_Finalize();
}

#endif
