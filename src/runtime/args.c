/* Argument checks shared by the calls (see args.h). */
#include "runtime/args.h"

#include <stddef.h>

int pat_null_buffer(const void *buf, MPI_Datatype type) {
  if (buf != NULL) return 0;
  MPI_Aint tlb, textent;
  MPI_Type_get_true_extent(type, &tlb, &textent);
  return tlb == 0;
}

int pat_type_size(MPI_Datatype type, MPI_Count *size) {
  *size = 0;
  return MPI_Type_size_x(type, size) != MPI_SUCCESS || *size == MPI_UNDEFINED ? -1 : 0;
}
