/*
 * The checks of an all-gather's and an all-gatherv's arguments, one set for
 * every call form: buffers that hold data, the size of an element, counts,
 * in-place use, sizes that must agree.
 */
#ifndef PAT_ARGS_H
#define PAT_ARGS_H

#include <mpi.h>
#include <stdint.h>

/* One call's arguments, any collective's and any form's (blocking,
 * non-blocking, persistent; fill it with designated initializers: the
 * fields not named are zero): an all-gather's, an all-gatherv's (counts and
 * displs, NULL for an all-gather), or an all-reduce's (reduce set:
 * recvcount elements of recvtype combined with op, sendbuf the rank's
 * contribution or MPI_IN_PLACE). */
typedef struct pat_call_args {
  const void *sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void *recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  const int *counts, *displs;
  int gatherv; /* an all-gatherv's call, whose counts and displs may be NULL (an erroneous one) */
  int reduce;
  MPI_Op op;
  MPI_Comm comm;
  const char *name; /* the call, in error messages */
  /* What the entry learns, as the blocking all-gather's path takes it. */
  long long bytes; /* per block; an all-gatherv's of unequal blocks: their mean, rounded up (pat/shape.h) */
  int64_t arrival; /* when the call was entered (common clock) */
  /* what tells the call apart (call sites, exchange records, plans): its
   * block size, or for unequal blocks the shape key of shape[0..P-1], the
   * blocks' bytes, with their exact hash (pat/shape.h); shape is NULL and
   * shape_hash 0 for equal blocks */
  int64_t key;
  const int64_t *shape;
  uint64_t shape_hash;
  const int64_t *predicted; /* an arrival-aware all-reduce's predicted arrivals: the previous such call's
                             * stamps (P, the common clock; NULL: none, the builder's default) */
} pat_call_args;

/* The arguments of an all-gather and of an all-gatherv, as every form's entry takes them (call: the
 * function's name, in messages). */
static inline pat_call_args pat_allgather_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                               const char *call) {
  return (pat_call_args){.sendbuf = sendbuf,
                         .sendcount = sendcount,
                         .sendtype = sendtype,
                         .recvbuf = recvbuf,
                         .recvcount = recvcount,
                         .recvtype = recvtype,
                         .comm = comm,
                         .name = call};
}

static inline pat_call_args pat_allgatherv_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                                void *recvbuf, const int counts[], const int displs[],
                                                MPI_Datatype recvtype, MPI_Comm comm, const char *call) {
  return (pat_call_args){.sendbuf = sendbuf,
                         .sendcount = sendcount,
                         .sendtype = sendtype,
                         .recvbuf = recvbuf,
                         .recvtype = recvtype,
                         .counts = counts,
                         .displs = displs,
                         .gatherv = 1,
                         .comm = comm,
                         .name = call};
}

/* Is buf NULL where it must point at data?  MPI_BOTTOM with absolute
 * addresses in the datatype is legal; NULL with a datatype starting at 0 is not. */
int pat_null_buffer(const void *buf, MPI_Datatype type);

/* The size of one element of type (MPI_Type_size_x: a type may exceed
 * 2 GiB); -1 if MPI cannot say. */
int pat_type_size(MPI_Datatype type, MPI_Count *size);

/* The send side of an all-gather whose sendbuf is not MPI_IN_PLACE: a
 * count and type with data, whose bytes must be own_bytes (this rank's
 * receive block), and a buffer that is not NULL and whose data do not
 * start where the receive buffer's do (args.c: MPI_BOTTOM as both buffers
 * is legal).  rsize is recvtype's size: the usual call passes the same
 * handle for both, which is then not asked again.  counts and displs are
 * an all-gatherv's (P of each), NULL for an all-gather.  call names the
 * function in messages.  A call that every rank makes alike is refused by
 * every rank or by none, whatever its own count. */
int pat_check_send(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                   MPI_Datatype recvtype, MPI_Count rsize, long long own_bytes, int P, const int counts[],
                   const int displs[]);

/* Every check of an intra-communicator all-gather's arguments, as MPI
 * would make them, for every call form (blocking, non-blocking, persistent):
 * *bytes is the block's bytes.  call names the function in messages. */
int pat_check_allgather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        const void *recvbuf, int recvcount, MPI_Datatype recvtype, long long *bytes);
/* ... and an all-gatherv's of P ranks, this rank `rank`: *rsize is
 * recvtype's size, *total the bytes of every block. */
int pat_check_allgatherv(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         const void *recvbuf, const int counts[], const int displs[], MPI_Datatype recvtype, int P,
                         int rank, MPI_Count *rsize, long long *total);

/* The pass-through's screen (call.h): arguments the checks above and each
 * call's own plainly accept, told without asking MPI anything.  The checks
 * ask MPI for the types' sizes and extents, which made up most of a 1 B
 * pass-through's cost (about 420 instructions on top of MPI's 1700,
 * measured with callgrind); the screen asks for one send type the
 * same as the receive type and sendcount equal to this rank's block, and
 * passes everything else (another send type, NULL buffers, a negative
 * count, a wrong size) to the full checks, which say what is wrong. */
static inline int pat_send_plainly_valid(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         const void *recvbuf, MPI_Datatype recvtype, int own_count) {
  return sendbuf == MPI_IN_PLACE || (sendbuf && sendbuf != recvbuf && sendtype == recvtype && sendcount == own_count);
}

static inline int pat_allgather_plainly_valid(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                              const void *recvbuf, int recvcount, MPI_Datatype recvtype) {
  return recvbuf && recvbuf != MPI_IN_PLACE && recvcount >= 0 && recvtype != MPI_DATATYPE_NULL &&
         pat_send_plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvtype, recvcount);
}

static inline int pat_allgatherv_plainly_valid(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                               const void *recvbuf, const int counts[], const int displs[],
                                               MPI_Datatype recvtype, int P, int rank) {
  if (!recvbuf || recvbuf == MPI_IN_PLACE || !counts || !displs || recvtype == MPI_DATATYPE_NULL) return 0;
  int sign = 0; /* a negative count sets it */
  for (int r = 0; r < P; r++) sign |= counts[r];
  return sign >= 0 && pat_send_plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvtype, counts[rank]);
}

#endif
