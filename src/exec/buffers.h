/*
 * A call's buffers, and how blocks map to memory.  Two views:
 *  - typed: block b is recvcount elements of recvtype at recvbuf +
 *    b*recvcount*extent; messages use the user's datatype (classic
 *    algorithms);
 *  - packed: block b is block_bytes bytes at stage + b*block_bytes, in MPI's
 *    packed representation, moved as MPI_BYTE; pieces of blocks are byte
 *    ranges.  The result is unpacked into recvbuf at the end.  Every rank of
 *    a call uses the same view (it follows from the schedule's flags).
 *    A dense type (pat_type_is_dense) is packed and unpacked by memcpy,
 *    which assumes what the packed view already does: the ranks share one
 *    data representation, in which MPI's packed form of a type is its data
 *    bytes in type-map order.
 * An all-gatherv's blocks differ in size: block b is counts[b] elements at
 * recvbuf + displs[b] * extent (typed), offsets[b] .. offsets[b + 1] of the
 * stage (packed, blocks in rank order); an all-gather's are the case where
 * counts is NULL.
 */
#ifndef PAT_BUFFERS_H
#define PAT_BUFFERS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/ranges.h"

/* Where a call's messages go when its ranks are not those of one
 * communicator of libpat's (a non-blocking call's context, runtime/channels.h):
 * peer r is rank rank[r] of comm[r], to which this rank sends; every message
 * to this rank arrives on the buffers' comm, from rank[r]. */
typedef struct pat_route {
  const int *rank;
  const MPI_Comm *comm;
} pat_route;
/* Peer r's rank where its messages go and come from, and the communicator a
 * message to it goes on (`local`: the one where there is no route). */
static inline int pat_route_rank(const pat_route *route, int r) { return route ? route->rank[r] : r; }
static inline MPI_Comm pat_route_comm(const pat_route *route, int r, MPI_Comm local) {
  return route ? route->comm[r] : local;
}

typedef struct pat_buffers {
  int P, self;
  MPI_Comm comm; /* private communicator of the call: its messages arrive there */
  const pat_route *route; /* NULL: peer r is rank r of comm */
  /* every rank's node id (P entries, the communicator's map), NULL: none
   * known; pacing counts only the messages that leave the node (flow.c) */
  const int *node;
  int packed;    /* 1: packed mode, 0: typed mode */
  /* typed view */
  void *recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  MPI_Aint type_extent;  /* extent(recvtype) */
  MPI_Aint block_extent; /* recvcount * type_extent */
  MPI_Datatype block_type; /* contiguous(recvcount, recvtype), made on demand */
  /* packed view */
  char *stage;
  size_t block_bytes;
  /* unequal blocks (all-gatherv), NULL for equal ones: the caller's arrays,
   * kept while the buffers are used, and the stage's offsets (P + 1, owned) */
  const int *counts, *displs;
  size_t *offsets;
  /* a reduction's op and receive buffer (exec/reduce.h), NULL for a gather */
  struct pat_reduce *reduce;
} pat_buffers;

/* Peer r's rank in the communicator a message to or from it goes on. */
static inline int pat_buffers_peer(const pat_buffers *b, int r) { return pat_route_rank(b->route, r); }
/* The communicator a message to peer r goes on. */
static inline MPI_Comm pat_buffers_send_comm(const pat_buffers *b, int r) { return pat_route_comm(b->route, r, b->comm); }
/* Does a message to peer r leave this rank's node (always, without a node map)? */
static inline int pat_buffers_off_node(const pat_buffers *b, int r) { return !b->node || b->node[r] != b->node[b->self]; }

/* Buffer set-up helpers */
int pat_buffers_typed(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype);
/* Unequal blocks, typed view. */
int pat_buffers_typed_v(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, const int *counts,
                        const int *displs, MPI_Datatype recvtype);
/* Unequal blocks, packed view: the typed view's fields, the offsets of the
 * packed blocks and *stage_bytes, their sum (the stage, allocated by the
 * caller, is set afterwards).  MPI_ERR_NO_MEM, or MPI_ERR_COUNT when the
 * sum does not fit in memory. */
int pat_buffers_packed_v(pat_buffers *b, MPI_Comm comm, int P, int self, void *recvbuf, const int *counts,
                         const int *displs, MPI_Datatype recvtype, size_t *stage_bytes);
/* Packed view of blocks whose bytes are known before the call's buffers
 * are: block_bytes each (shape NULL) or shape[0..P-1] in rank order (the
 * stage's offsets, allocated here).  *stage_bytes: their sum; the stage
 * (allocated by the caller) and the user's side (pat_buffers_set_user) are
 * set afterwards.  MPI_ERR_NO_MEM, or MPI_ERR_COUNT when the sum does not
 * fit in memory. */
int pat_buffers_packed_shape(pat_buffers *b, MPI_Comm comm, int P, int self, size_t block_bytes,
                             const int64_t *shape, size_t *stage_bytes);
/* The call's side of a view: where the blocks are (typed) or end up at
 * unpacking (packed); counts and displs NULL for equal blocks of recvcount.
 * MPI_Type_get_extent's error code. */
int pat_buffers_set_user(pat_buffers *b, void *recvbuf, int recvcount, MPI_Datatype recvtype, const int *counts,
                         const int *displs);
void pat_buffers_release(pat_buffers *b);

/* Copy this rank's input into its own block (typed mode: into recvbuf;
 * packed mode: into the stage).  sendbuf may be MPI_IN_PLACE; recvbuf may
 * not (MPI_ERR_BUFFER).  Dense types are copied with memcpy, others moved by
 * MPI in type-map order (a message from this rank to itself). */
int pat_buffers_put_own(pat_buffers *b, const void *sendbuf, int sendcount, MPI_Datatype sendtype);

/* Packed mode: unpack every block of the stage (but this rank's own, if
 * skip_own) into recvbuf, by memcpy for a dense recvtype, else by MPI. */
int pat_buffers_unpack(pat_buffers *b, int skip_own);

/* Are count elements of the type count * size bytes from the buffer's
 * address on, in type-map order, so that one memcpy moves them as MPI
 * would?  True for predefined types without holes and contiguous or dup
 * types of them; other types go through MPI. */
int pat_type_is_dense(MPI_Datatype type);

/* Address of block `block` in the typed view, and its count of recvtype. */
void *pat_buffers_block(const pat_buffers *b, int block);
static inline int pat_buffers_block_count(const pat_buffers *b, int block) {
  return b->counts ? b->counts[block] : b->recvcount;
}
/* Packed view: where block `block` starts in the stage, and its bytes. */
static inline size_t pat_buffers_stage_offset(const pat_buffers *b, int block) {
  return b->offsets ? b->offsets[block] : (size_t)block * b->block_bytes;
}
static inline size_t pat_buffers_stage_bytes(const pat_buffers *b, int block) {
  return b->offsets ? b->offsets[block + 1] - b->offsets[block] : b->block_bytes;
}

/* One side of a message: what MPI_Isend or MPI_Irecv gets.  tmp is a
 * datatype made for it (type itself), or MPI_DATATYPE_NULL. */
typedef struct pat_msg {
  void *addr;
  int count;
  MPI_Datatype type;
  MPI_Datatype tmp;
} pat_msg;

/* The most byte ranges one message covers: two spans, each wrapping once. */
#define PAT_MAX_RANGES (2 * PAT_MAX_SPANS)

/* Byte ranges of the buffer at base as one message of elem (MPI_BYTE or
 * MPI_PACKED) elements, with int counts whatever the sizes (see ranges.h):
 * one range up to the count limit is base + displ and a count; anything
 * else a datatype.  Every rank describes the same ranges the same way. */
int pat_bytes_message(char *base, const pat_range *r, int n, MPI_Datatype elem, pat_msg *m);

/* Tests only: describe byte counts above `limit` (at most INT_MAX, the
 * default) as counts of units, as for messages over INT_MAX bytes, so that
 * path runs at small sizes.  Set it while no call runs. */
void pat_buffers_set_count_limit(size_t limit);

#endif
