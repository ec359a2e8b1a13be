/* dropin_check (dropin_check.h) for the Fortran programs: the communicator
 * as a Fortran handle, the algorithm expected from PAT_ALG (auto if unset). */
#include <stdlib.h>

#include "dropin_check.h"

int fdropin_check(MPI_Fint comm, long calls);

int fdropin_check(MPI_Fint comm, long calls) {
  const char *alg = getenv("PAT_ALG");
  return (int)dropin_check(MPI_Comm_f2c(comm), alg && *alg ? alg : "auto", calls);
}
