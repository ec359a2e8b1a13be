/*
 * A call's buffers, and how blocks map to memory.  Two views:
 *  - typed: block b is recvcount elements of recvtype at recvbuf +
 *    b*recvcount*extent; messages use the user's datatype (classic
 *    algorithms);
 *  - packed: block b is block_bytes bytes at stage + b*block_bytes, in MPI's
 *    packed representation, moved as MPI_BYTE; pieces of blocks are byte
 *    ranges.  The result is unpacked into recvbuf at the end.  Every rank of
 *    a call uses the same view (it follows from the schedule's flags).
 */
#ifndef PAT_BUFFERS_H
#define PAT_BUFFERS_H

#include <mpi.h>
#include <stddef.h>

typedef struct pat_buffers {
  int P, self;
  MPI_Comm comm; /* private communicator of the call */
  int packed;    /* 1: packed mode, 0: typed mode */
  /* typed view */
  void *recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  MPI_Aint block_extent; /* recvcount * extent(recvtype) */
  MPI_Datatype block_type; /* contiguous(recvcount, recvtype), made on demand */
  /* packed view */
  char *stage;
  size_t block_bytes;
} pat_buffers;

/* Buffer set-up helpers */
int pat_buffers_typed(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype);
void pat_buffers_release(pat_buffers *b);

/* Copy this rank's input into its own block (typed mode: into recvbuf;
 * packed mode: into the stage).  sendbuf may be MPI_IN_PLACE. */
int pat_buffers_put_own(pat_buffers *b, const void *sendbuf, int sendcount, MPI_Datatype sendtype);

/* Packed mode: unpack every block of the stage into recvbuf. */
int pat_buffers_unpack(pat_buffers *b, int skip_own);

/* Are count elements of the type count * size bytes from the buffer's
 * address on, in type-map order, so that one memcpy moves them as MPI
 * would?  True for predefined types without holes and contiguous or dup
 * types of them; other types go through MPI. */
int pat_type_is_dense(MPI_Datatype type);

/* Address of block `block` in the typed view. */
void *pat_buffers_block(const pat_buffers *b, int block);

#endif
