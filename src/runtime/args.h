/*
 * What PAT_Allgather and PAT_Allgatherv check of their arguments alike:
 * buffers that hold data and the size of an element.  Each call's own rules
 * (counts, in-place, sizes that must agree) stay with it.
 */
#ifndef PAT_ARGS_H
#define PAT_ARGS_H

#include <mpi.h>

/* Is buf NULL where it must point at data?  MPI_BOTTOM with absolute
 * addresses in the datatype is legal; NULL with a datatype starting at 0 is not. */
int pat_null_buffer(const void *buf, MPI_Datatype type);

/* The size of one element of type (MPI_Type_size_x: a type may exceed
 * 2 GiB); -1 if MPI cannot say. */
int pat_type_size(MPI_Datatype type, MPI_Count *size);

#endif
