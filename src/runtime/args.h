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

/* The send side of an all-gather whose sendbuf is not MPI_IN_PLACE: a
 * count and type with data, whose bytes must be own_bytes (this rank's
 * receive block), and a buffer that is neither NULL nor recvbuf.  rsize is
 * recvtype's size: the usual call passes the same handle for both, which is
 * then not asked again.  call names the function in messages. */
int pat_check_send(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                   MPI_Datatype recvtype, MPI_Count rsize, long long own_bytes);

#endif
