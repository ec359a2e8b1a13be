/* Blocks in memory: the typed and packed views of a call's buffers (see buffers.h). */
#include "exec/buffers.h"

#include <limits.h>
#include <stdint.h>
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

int pat_buffers_set_user(pat_buffers *b, void *recvbuf, int recvcount, MPI_Datatype recvtype, const int *counts,
                         const int *displs) {
  b->recvbuf = recvbuf;
  b->recvcount = recvcount;
  b->recvtype = recvtype;
  b->counts = counts;
  b->displs = displs;
  MPI_Aint lb;
  int rc = MPI_Type_get_extent(recvtype, &lb, &b->type_extent);
  b->block_extent = b->type_extent * recvcount;
  return rc;
}

int pat_buffers_typed(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype) {
  memset(b, 0, sizeof *b);
  b->P = P;
  b->self = self;
  b->comm = comm;
  b->block_type = MPI_DATATYPE_NULL;
  return pat_buffers_set_user(b, recvbuf, recvcount, recvtype, NULL, NULL);
}

int pat_buffers_typed_v(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, const int *counts,
                        const int *displs, MPI_Datatype recvtype) {
  int rc = pat_buffers_typed(b, comm, P, self, recvbuf, 0, recvtype);
  b->counts = counts;
  b->displs = displs;
  return rc;
}

int pat_buffers_packed_v(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, const int *counts,
                         const int *displs, MPI_Datatype recvtype, size_t *stage_bytes) {
  int rc = pat_buffers_typed_v(b, comm, P, self, recvbuf, counts, displs, recvtype);
  MPI_Count size = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Type_size_x(recvtype, &size);
  if (rc != MPI_SUCCESS) return rc;
  b->packed = 1;
  b->offsets = malloc(((size_t)P + 1) * sizeof *b->offsets);
  if (!b->offsets) return MPI_ERR_NO_MEM;
  b->offsets[0] = 0;
  for (int r = 0; r < P; r++) {
    size_t bytes = (size_t)size * (size_t)counts[r]; /* counts checked >= 0; a type's size fits in memory */
    if (bytes > SIZE_MAX / 2 - b->offsets[r]) return MPI_ERR_COUNT;
    b->offsets[r + 1] = b->offsets[r] + bytes;
  }
  *stage_bytes = b->offsets[P];
  return MPI_SUCCESS;
}

int pat_buffers_packed_shape(pat_buffers *b, MPI_Comm comm, int P, int self, size_t block_bytes,
                             const int64_t *shape, size_t *stage_bytes) {
  memset(b, 0, sizeof *b);
  b->P = P;
  b->self = self;
  b->comm = comm;
  b->packed = 1;
  b->block_type = MPI_DATATYPE_NULL;
  b->recvtype = MPI_DATATYPE_NULL;
  b->block_bytes = block_bytes;
  if (!shape) {
    if (P > 0 && block_bytes > SIZE_MAX / 2 / (size_t)P) return MPI_ERR_COUNT;
    *stage_bytes = block_bytes * (size_t)P;
    return MPI_SUCCESS;
  }
  if (!(b->offsets = malloc(((size_t)P + 1) * sizeof *b->offsets))) return MPI_ERR_NO_MEM;
  b->offsets[0] = 0;
  for (int r = 0; r < P; r++) {
    if ((uint64_t)shape[r] > SIZE_MAX / 2 - b->offsets[r]) return MPI_ERR_COUNT;
    b->offsets[r + 1] = b->offsets[r] + (size_t)shape[r];
  }
  *stage_bytes = b->offsets[P];
  return MPI_SUCCESS;
}


void pat_buffers_release(pat_buffers *b) {
  if (b->block_type != MPI_DATATYPE_NULL) MPI_Type_free(&b->block_type);
  b->block_type = MPI_DATATYPE_NULL;
  free(b->offsets);
  b->offsets = NULL;
}

void *pat_buffers_block(const pat_buffers *b, int block) {
  if (b->displs) return (char *)b->recvbuf + (MPI_Aint)b->displs[block] * b->type_extent;
  return (char *)b->recvbuf + (MPI_Aint)block * b->block_extent;
}

/* ---- byte ranges as MPI messages ---- */

/* The largest count of bytes one datatype entry gets; tests lower it. */
static size_t count_limit = INT_MAX;

void pat_buffers_set_count_limit(size_t limit) { count_limit = limit >= 1 && limit <= INT_MAX ? limit : INT_MAX; }

/* A committed datatype with one entry per chunk: `count` elems, or `count`
 * units of pat_chunk_unit(count_limit) elems. */
static int chunks_type(const pat_chunk *c, int k, MPI_Datatype elem, MPI_Datatype *out) {
  int lens[PAT_MAX_RANGES * PAT_CHUNKS_PER_RANGE];
  MPI_Aint displs[PAT_MAX_RANGES * PAT_CHUNKS_PER_RANGE];
  MPI_Datatype types[PAT_MAX_RANGES * PAT_CHUNKS_PER_RANGE], unit = MPI_DATATYPE_NULL;
  int rc = MPI_Type_contiguous((int)pat_chunk_unit(count_limit), elem, &unit);
  for (int i = 0; i < k; i++) {
    lens[i] = c[i].count;
    displs[i] = (MPI_Aint)c[i].displ;
    types[i] = c[i].in_units ? unit : elem;
  }
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_struct(k, lens, displs, types, out);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(out);
  if (unit != MPI_DATATYPE_NULL) MPI_Type_free(&unit); /* the struct keeps what it needs */
  return rc;
}

int pat_bytes_message(char *base, const pat_range *r, int n, MPI_Datatype elem, pat_msg *m) {
  pat_chunk c[PAT_MAX_RANGES * PAT_CHUNKS_PER_RANGE];
  *m = (pat_msg){base, 0, elem, MPI_DATATYPE_NULL};
  if (n > PAT_MAX_RANGES) return MPI_ERR_INTERN;
  int k = pat_ranges_chunks(r, n, count_limit, c);
  if (k < 0) return MPI_ERR_COUNT;
  if (k == 0) return MPI_SUCCESS;
  if (k == 1 && !c[0].in_units) { /* the common case: one count of bytes, no datatype to make */
    m->addr = base + c[0].displ;
    m->count = c[0].count;
    return MPI_SUCCESS;
  }
  int rc = chunks_type(c, k, elem, &m->tmp);
  m->count = 1;
  m->type = m->tmp;
  return rc;
}

/* ---- local copies ---- */

/* Bytes of data in count elements of type (any size: MPI_Type_size says
 * MPI_UNDEFINED past INT_MAX). */
static MPI_Count data_bytes(MPI_Datatype type, int count) {
  MPI_Count size = 0;
  MPI_Type_size_x(type, &size);
  return size * count;
}

/* MPI moves count elements of stype at src into dcount of dtype at dst, in
 * type-map order, by a message from this rank to itself: any type maps, any
 * size int counts can describe.  (To and from the stage's packed bytes:
 * pack_pieces.) */
#define SELF_COPY_TAG 0 /* nothing else on the call's communicator comes from this rank to itself */
static int self_copy(const pat_buffers *b, const void *src, int scount, MPI_Datatype stype, void *dst, int dcount,
                     MPI_Datatype dtype) {
  int self = pat_buffers_peer(b, b->self);
  return MPI_Sendrecv(src, scount, stype, self, SELF_COPY_TAG, dst, dcount, dtype, self, SELF_COPY_TAG, b->comm,
                      MPI_STATUS_IGNORE);
}

/* count elements of type at typed <-> their packed bytes at packed, with
 * MPI_Pack (pack != 0) or MPI_Unpack, in pieces of whole elements of at
 * most count_limit bytes (MPI_Pack's sizes are ints).  Not a message from
 * the rank to itself: MPICH 4.0 truncates one sent as MPI_PACKED and
 * received as a padded derived type (or the other way) once it is too long
 * to go eagerly, on a communicator of several processes; packing sends
 * nothing.  The packed bytes are the data bytes (homogeneous MPI), as
 * everywhere in the stage. */
static int pack_one(int pack, void *t, int k, MPI_Datatype type, char *p, int bytes, MPI_Comm comm) {
  int pos = 0;
  return pack ? MPI_Pack(t, k, type, p, bytes, &pos, comm) : MPI_Unpack(p, bytes, &pos, t, k, type, comm);
}

/* A piece at MPI_BOTTOM: k elements at address `at`, the type's addresses
 * absolute.  MPICH 4.0's MPI_Pack and MPI_Unpack refuse a NULL buffer
 * whatever the type ("Null pointer in parameter inbuf"), MPI_BOTTOM
 * included, so the piece goes from its first byte (not NULL: the type
 * places data there) in a type of one entry displaced back by as much. */
static int pack_at_bottom(int pack, MPI_Aint at, int k, MPI_Datatype type, char *p, int bytes, MPI_Comm comm) {
  MPI_Aint tlb, textent;
  int rc = MPI_Type_get_true_extent(type, &tlb, &textent);
  MPI_Aint from = MPI_Aint_add(at, tlb), displ = MPI_Aint_diff(at, from);
  MPI_Datatype shifted = MPI_DATATYPE_NULL;
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_hindexed(1, &k, &displ, type, &shifted);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&shifted);
  if (rc == MPI_SUCCESS) rc = pack_one(pack, (void *)(intptr_t)from, 1, shifted, p, bytes, comm);
  if (shifted != MPI_DATATYPE_NULL) MPI_Type_free(&shifted);
  return rc;
}

static int pack_pieces(int pack, void *typed, MPI_Count count, MPI_Datatype type, char *packed, MPI_Comm comm) {
  MPI_Count size = 0;
  MPI_Aint lb, extent;
  int rc = MPI_Type_size_x(type, &size);
  if (rc == MPI_SUCCESS) rc = MPI_Type_get_extent(type, &lb, &extent);
  if (rc != MPI_SUCCESS || size == 0 || count == 0) return rc;
  MPI_Count per = (MPI_Count)count_limit / size; /* elements per piece */
  if (per < 1) per = 1;
  for (MPI_Count done = 0; done < count && rc == MPI_SUCCESS; done += per) {
    int k = (int)(count - done < per ? count - done : per), bytes = (int)(k * size);
    MPI_Aint at = MPI_Aint_add((MPI_Aint)(intptr_t)typed, (MPI_Aint)done * extent); /* typed may be MPI_BOTTOM */
    char *p = packed + done * size;
    rc = typed == MPI_BOTTOM ? pack_at_bottom(pack, at, k, type, p, bytes, comm)
                             : pack_one(pack, (void *)(intptr_t)at, k, type, p, bytes, comm);
  }
  return rc;
}

/* Typed view: the input into its block of recvbuf. */
static int put_own_typed(pat_buffers *b, const void *sendbuf, int sendcount, MPI_Datatype sendtype) {
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  MPI_Count bytes = data_bytes(sendtype, sendcount);
  int own_count = pat_buffers_block_count(b, b->self);
  if (bytes != data_bytes(b->recvtype, own_count)) return MPI_ERR_TRUNCATE;
  void *dst = pat_buffers_block(b, b->self);
  if (pat_type_is_dense(sendtype) && pat_type_is_dense(b->recvtype)) {
    memmove(dst, sendbuf, (size_t)bytes);
    return MPI_SUCCESS;
  }
  return self_copy(b, sendbuf, sendcount, sendtype, dst, own_count, b->recvtype);
}

/* Packed view: the input, packed, into its block of the stage. */
static int put_own_packed(pat_buffers *b, const void *sendbuf, int sendcount, MPI_Datatype sendtype) {
  int in_place = sendbuf == MPI_IN_PLACE;
  const void *src = in_place ? pat_buffers_block(b, b->self) : sendbuf;
  int count = in_place ? pat_buffers_block_count(b, b->self) : sendcount;
  MPI_Datatype type = in_place ? b->recvtype : sendtype;
  size_t own_bytes = pat_buffers_stage_bytes(b, b->self);
  char *own = b->stage + pat_buffers_stage_offset(b, b->self);
  if ((size_t)data_bytes(type, count) != own_bytes) return MPI_ERR_TRUNCATE;
  if (pat_type_is_dense(type)) {
    if (own_bytes > 0) memcpy(own, src, own_bytes);
    return MPI_SUCCESS;
  }
  return pack_pieces(1, (void *)src, count, type, own, b->comm);
}

int pat_buffers_put_own(pat_buffers *b, const void *sendbuf, int sendcount, MPI_Datatype sendtype) {
  if (b->recvbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER; /* there is no block to write to */
  return b->packed ? put_own_packed(b, sendbuf, sendcount, sendtype) : put_own_typed(b, sendbuf, sendcount, sendtype);
}

/* The blocks to unpack, as at most two runs (all, or all but this rank's). */
static int unpack_runs(const pat_buffers *b, int skip_own, int first[2], int count[2]) {
  int n = 0;
  if (!skip_own) {
    first[n] = 0;
    count[n++] = b->P;
    return n;
  }
  if (b->self > 0) {
    first[n] = 0;
    count[n++] = b->self;
  }
  if (b->self + 1 < b->P) {
    first[n] = b->self + 1;
    count[n++] = b->P - b->self - 1;
  }
  return n;
}

/* Derived receive type: every block to unpack, from the stage's packed
 * bytes into recvbuf as recvtype. */
static int unpack_through_mpi(pat_buffers *b, int n, const int first[2], const int count[2]) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
    rc = pack_pieces(0, pat_buffers_block(b, first[i]), (MPI_Count)count[i] * b->recvcount, b->recvtype,
                     b->stage + (size_t)first[i] * b->block_bytes, b->comm);
  return rc;
}

/* Unequal blocks: each on its own (their places in recvbuf are in any order). */
static int unpack_each(pat_buffers *b, int skip_own) {
  int dense = pat_type_is_dense(b->recvtype), rc = MPI_SUCCESS;
  for (int r = 0; r < b->P && rc == MPI_SUCCESS; r++) {
    size_t bytes = pat_buffers_stage_bytes(b, r);
    if ((skip_own && r == b->self) || bytes == 0) continue;
    char *from = b->stage + pat_buffers_stage_offset(b, r);
    if (dense)
      memcpy(pat_buffers_block(b, r), from, bytes);
    else
      rc = pack_pieces(0, pat_buffers_block(b, r), b->counts[r], b->recvtype, from, b->comm);
  }
  return rc;
}

int pat_buffers_unpack(pat_buffers *b, int skip_own) {
  if (b->recvbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER;
  if (b->counts) return unpack_each(b, skip_own);
  int first[2], count[2], n = unpack_runs(b, skip_own, first, count);
  if (n == 0 || b->block_bytes == 0) return MPI_SUCCESS;
  if (!pat_type_is_dense(b->recvtype)) return unpack_through_mpi(b, n, first, count);
  for (int i = 0; i < n; i++)
    memcpy(pat_buffers_block(b, first[i]), b->stage + (size_t)first[i] * b->block_bytes,
           (size_t)count[i] * b->block_bytes);
  return MPI_SUCCESS;
}
