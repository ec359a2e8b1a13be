/* dropin_check (dropin_check.h) for the Fortran programs: the communicator
 * as a Fortran handle, the algorithm expected from PAT_ALG (auto if unset). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin_check.h"

int fdropin_check(MPI_Fint comm, long calls);

int fdropin_check(MPI_Fint comm, long calls) {
  const char *alg = getenv("PAT_ALG");
  return (int)dropin_check(MPI_Comm_f2c(comm), alg && *alg ? alg : "auto", calls);
}

/* 0 if libpat queued the program's MPI_IALLGATHER(V) (or the starts of
 * its persistent all-gathers) for its background thread, as every setting but auto and native does with several processes
 * (the request is then libpat's); else 1, with a message. */
int fdropin_check_queued(void);

int fdropin_check_queued(void) {
  long long (*queued)(void) = (long long (*)(void))dropin_symbol("pat_nbc_queued_calls");
  const char *alg = getenv("PAT_ALG");
  int P = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!queued) {
    fprintf(stderr, "FAIL world rank %d: libpat is not loaded\n", rank);
    return 1;
  }
  if (P > 1 && alg && *alg && strcmp(alg, "auto") != 0 && strcmp(alg, "native") != 0 && queued() == 0) {
    fprintf(stderr, "FAIL world rank %d: PAT_ALG=%s, and libpat queued none of the MPI_IALLGATHER(V) calls\n", rank,
            alg);
    return 1;
  }
  return 0;
}

/* 1 if the request (a Fortran handle) is one of libpat's persistent
 * all-gathers, 0 if not, -1 if libpat is not loaded. */
int fdropin_is_libpat(MPI_Fint request);

int fdropin_is_libpat(MPI_Fint request) {
  int (*is_libpat)(MPI_Request) = (int (*)(MPI_Request))dropin_symbol("pat_persist_is_libpat");
  return is_libpat ? is_libpat(MPI_Request_f2c(request)) != 0 : -1;
}
