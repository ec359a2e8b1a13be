/* Blocks in memory: the typed and packed views of a call's buffers (see buffers.h). */
#include "exec/buffers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A predefined type is dense when it has no holes (MPI_DOUBLE_INT, say, has
 * some); its type map is then in memory order. */
static int named_type_is_dense(MPI_Datatype type) {
  MPI_Count size;
  MPI_Aint lb, extent, tlb, textent;
  if (MPI_Type_size_x(type, &size) != MPI_SUCCESS) return 0;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &tlb, &textent);
  return lb == 0 && tlb == 0 && size == extent && extent == textent;
}

/* The type a contiguous or dup type is made of (to be released with
 * release_inner), or MPI_DATATYPE_NULL for any other constructor. */
static MPI_Datatype inner_type(MPI_Datatype type, int combiner) {
  if (combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) return MPI_DATATYPE_NULL;
  int ints[1];
  MPI_Aint addrs[1];
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  if (MPI_Type_get_contents(type, 1, 0, 1, ints, addrs, &inner) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
  return inner;
}

/* get_contents hands out derived types as new handles; predefined ones must not be freed. */
static void release_inner(MPI_Datatype inner) {
  int ni, na, nd, combiner;
  MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner);
  if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&inner);
}

/* Size, extent and true extent agreeing is not enough: indexed(2, {1,1},
 * {1,0}, MPI_INT) has no holes, but MPI moves its ints in the other order.
 * So only predefined types, and contiguous or dup types of dense types,
 * count; any other constructor may reorder, and goes through MPI. */
int pat_type_is_dense(MPI_Datatype type) {
  int ni, na, nd, combiner;
  if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return 0;
  if (combiner == MPI_COMBINER_NAMED) return named_type_is_dense(type);
  MPI_Datatype inner = inner_type(type, combiner);
  if (inner == MPI_DATATYPE_NULL) return 0;
  int dense = pat_type_is_dense(inner);
  release_inner(inner);
  return dense;
}

int pat_buffers_typed(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype) {
  memset(b, 0, sizeof *b);
  b->P = P;
  b->self = self;
  b->comm = comm;
  b->recvbuf = recvbuf;
  b->recvcount = recvcount;
  b->recvtype = recvtype;
  b->block_type = MPI_DATATYPE_NULL;
  MPI_Aint lb, extent;
  int rc = MPI_Type_get_extent(recvtype, &lb, &extent);
  b->block_extent = extent * recvcount;
  return rc;
}

void pat_buffers_release(pat_buffers *b) {
  if (b->block_type != MPI_DATATYPE_NULL) MPI_Type_free(&b->block_type);
  b->block_type = MPI_DATATYPE_NULL;
}

void *pat_buffers_block(const pat_buffers *b, int block) {
  return (char *)b->recvbuf + (MPI_Aint)block * b->block_extent;
}

/* Local copy of count x type at src into count' x type' at dst with the same
 * type signature: memcpy when both are dense, pack/unpack otherwise. */
static int local_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int dcount, MPI_Datatype dtype,
                      MPI_Comm comm) {
  int ssize, dsize;
  MPI_Type_size(stype, &ssize);
  MPI_Type_size(dtype, &dsize);
  if ((long long)ssize * scount != (long long)dsize * dcount) return MPI_ERR_TRUNCATE;
  if (pat_type_is_dense(stype) && pat_type_is_dense(dtype)) {
    memmove(dst, src, (size_t)ssize * scount);
    return MPI_SUCCESS;
  }
  int packsize, pos = 0, rc;
  rc = MPI_Pack_size(scount, stype, comm, &packsize);
  if (rc != MPI_SUCCESS) return rc;
  char *tmp = malloc(packsize > 0 ? (size_t)packsize : 1);
  if (!tmp) return MPI_ERR_NO_MEM;
  rc = MPI_Pack(src, scount, stype, tmp, packsize, &pos, comm);
  int upos = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Unpack(tmp, pos, &upos, dst, dcount, dtype, comm);
  free(tmp);
  return rc;
}

int pat_buffers_put_own(pat_buffers *b, const void *sendbuf, int sendcount, MPI_Datatype sendtype) {
  if (!b->packed) {
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return local_copy(sendbuf, sendcount, sendtype, pat_buffers_block(b, b->self), b->recvcount, b->recvtype, b->comm);
  }
  const void *src = sendbuf == MPI_IN_PLACE ? pat_buffers_block(b, b->self) : sendbuf;
  int count = sendbuf == MPI_IN_PLACE ? b->recvcount : sendcount;
  MPI_Datatype type = sendbuf == MPI_IN_PLACE ? b->recvtype : sendtype;
  char *dst = b->stage + (size_t)b->self * b->block_bytes;
  int size;
  MPI_Type_size(type, &size);
  if ((size_t)size * (size_t)count != b->block_bytes) return MPI_ERR_TRUNCATE;
  if (pat_type_is_dense(type)) {
    memcpy(dst, src, b->block_bytes);
    return MPI_SUCCESS;
  }
  int pos = 0;
  if (b->block_bytes > INT_MAX) return MPI_ERR_COUNT;
  int rc = MPI_Pack(src, count, type, dst, (int)b->block_bytes, &pos, b->comm);
  if (rc == MPI_SUCCESS && (size_t)pos != b->block_bytes) rc = MPI_ERR_TRUNCATE;
  return rc;
}

int pat_buffers_unpack(pat_buffers *b, int skip_own) {
  int dense = pat_type_is_dense(b->recvtype);
  for (int blk = 0; blk < b->P; blk++) {
    if (skip_own && blk == b->self) continue;
    const char *src = b->stage + (size_t)blk * b->block_bytes;
    if (dense) {
      memcpy(pat_buffers_block(b, blk), src, b->block_bytes);
      continue;
    }
    int pos = 0;
    int rc = MPI_Unpack(src, (int)b->block_bytes, &pos, pat_buffers_block(b, blk), b->recvcount, b->recvtype, b->comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

