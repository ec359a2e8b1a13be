/* Blocks in memory: the typed and packed views of a call's buffers (see buffers.h). */
#include "exec/buffers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int pat_type_is_dense(MPI_Datatype type, MPI_Aint *lb) {
  int size;
  MPI_Aint l, extent, tlb, textent;
  if (MPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  MPI_Type_get_extent(type, &l, &extent);
  MPI_Type_get_true_extent(type, &tlb, &textent);
  *lb = tlb;
  return (MPI_Aint)size == extent && extent == textent && tlb == l;
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
  MPI_Aint slb, dlb;
  int ssize, dsize;
  MPI_Type_size(stype, &ssize);
  MPI_Type_size(dtype, &dsize);
  if ((long long)ssize * scount != (long long)dsize * dcount) return MPI_ERR_TRUNCATE;
  if (pat_type_is_dense(stype, &slb) && pat_type_is_dense(dtype, &dlb)) {
    memmove((char *)dst + dlb, (const char *)src + slb, (size_t)ssize * scount);
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
  MPI_Aint lb;
  int size;
  MPI_Type_size(type, &size);
  if ((size_t)size * (size_t)count != b->block_bytes) return MPI_ERR_TRUNCATE;
  if (pat_type_is_dense(type, &lb)) {
    memcpy(dst, (const char *)src + lb, b->block_bytes);
    return MPI_SUCCESS;
  }
  int pos = 0;
  if (b->block_bytes > INT_MAX) return MPI_ERR_COUNT;
  int rc = MPI_Pack(src, count, type, dst, (int)b->block_bytes, &pos, b->comm);
  if (rc == MPI_SUCCESS && (size_t)pos != b->block_bytes) rc = MPI_ERR_TRUNCATE;
  return rc;
}

int pat_buffers_unpack(pat_buffers *b, int skip_own) {
  MPI_Aint lb;
  int dense = pat_type_is_dense(b->recvtype, &lb);
  for (int blk = 0; blk < b->P; blk++) {
    if (skip_own && blk == b->self) continue;
    const char *src = b->stage + (size_t)blk * b->block_bytes;
    if (dense) {
      memcpy((char *)pat_buffers_block(b, blk) + lb, src, b->block_bytes);
      continue;
    }
    int pos = 0;
    int rc = MPI_Unpack(src, (int)b->block_bytes, &pos, pat_buffers_block(b, blk), b->recvcount, b->recvtype, b->comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

