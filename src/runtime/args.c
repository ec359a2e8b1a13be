/* Argument checks shared by the calls (see args.h). */
#include "runtime/args.h"

#include <stddef.h>
#include <stdint.h>

#include "runtime/errors.h"

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

/* Where the data of a buffer begins: the first byte its type touches, as
 * an address (buf may be MPI_BOTTOM, the datatype then holding absolute
 * addresses, so the arithmetic is MPI's on addresses, not C's on pointers). */
static MPI_Aint first_byte(const void *buf, MPI_Datatype type) {
  MPI_Aint tlb = 0, textent;
  MPI_Type_get_true_extent(type, &tlb, &textent);
  return MPI_Aint_add((MPI_Aint)(intptr_t)buf, tlb);
}

/* Is element 0 of the receive buffer (at recvbuf itself) in a block with
 * data?  Every rank answers alike: the counts and displacements are the
 * same everywhere. */
static int element0_received(MPI_Count rsize, long long own_bytes, int P, const int counts[], const int displs[]) {
  if (!counts) return own_bytes > 0; /* an all-gather: block 0 starts there, and every block has own_bytes */
  if (rsize <= 0) return 0;
  for (int r = 0; r < P; r++)
    if (counts[r] > 0 && displs[r] <= 0 && (long long)displs[r] + counts[r] > 0) return 1;
  return 0;
}

/* The send overlaps the receive (MPI forbids it: MPI_IN_PLACE is the way to
 * send from the receive buffer) where its first byte is the first byte of
 * element 0 of the receive buffer, which a block writes.  Pointers alone
 * cannot tell: MPI_BOTTOM as both buffers is legal, the datatypes' absolute
 * addresses keeping the data apart (issue 56), and so are equal pointers
 * with types that touch different bytes.
 *
 * A rank whose send is empty touches nothing, yet it answers as the ranks
 * with data do where they pass the same arguments: else, in a program
 * passing recvbuf as sendbuf everywhere, it would go on alone and wait for
 * the others, which refused the call.  So its answer depends on the
 * pointers and types only, not on its count.  Under MPI_BOTTOM an empty
 * send's type places nothing (any type may come with a count of 0), and
 * the empty rank never refuses.  Other overlaps (a send starting inside
 * the receive buffer) are not looked for: the check costs two queries of
 * MPI and, for an all-gatherv, a pass over the counts only when the first
 * bytes meet. */
static int send_aliases_recv(const void *sendbuf, MPI_Datatype sendtype, long long sbytes, const void *recvbuf,
                             MPI_Datatype recvtype, MPI_Count rsize, long long own_bytes, int P, const int counts[],
                             const int displs[]) {
  if (sbytes == 0 && sendbuf == MPI_BOTTOM) return 0;
  if (sendtype == recvtype && sendbuf != recvbuf) return 0; /* one true lb: the first bytes differ as the pointers do */
  if (first_byte(sendbuf, sendtype) != first_byte(recvbuf, recvtype)) return 0;
  return element0_received(rsize, own_bytes, P, counts, displs);
}

int pat_check_send(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                   MPI_Datatype recvtype, MPI_Count rsize, long long own_bytes, int P, const int counts[],
                   const int displs[]) {
  if (sendcount < 0) return pat_fail(MPI_ERR_COUNT, "%s: sendcount %d < 0", call, sendcount);
  if (sendtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "%s: sendtype is MPI_DATATYPE_NULL", call);
  MPI_Count ssize = rsize;
  if (sendtype != recvtype && pat_type_size(sendtype, &ssize)) return pat_fail(MPI_ERR_TYPE, "%s: bad sendtype", call);
  long long sbytes = (long long)ssize * sendcount;
  if (sbytes != own_bytes)
    return pat_fail(MPI_ERR_TRUNCATE, "%s: send size %lld bytes differs from receive size %lld bytes", call, sbytes,
                    own_bytes);
  if (sbytes > 0 && pat_null_buffer(sendbuf, sendtype)) return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf is NULL", call);
  if (send_aliases_recv(sendbuf, sendtype, sbytes, recvbuf, recvtype, rsize, own_bytes, P, counts, displs))
    return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf aliases recvbuf (use MPI_IN_PLACE)", call);
  return MPI_SUCCESS;
}

/* The receive side both calls share: recvbuf not MPI_IN_PLACE, a recvtype with a size. */
static int check_recv(const char *call, const void *recvbuf, MPI_Datatype recvtype, MPI_Count *rsize) {
  if (recvbuf == MPI_IN_PLACE) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf may not be MPI_IN_PLACE", call);
  if (recvtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "%s: recvtype is MPI_DATATYPE_NULL", call);
  if (pat_type_size(recvtype, rsize)) return pat_fail(MPI_ERR_TYPE, "%s: bad recvtype", call);
  return MPI_SUCCESS;
}

int pat_check_allgather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        const void *recvbuf, int recvcount, MPI_Datatype recvtype, long long *bytes) {
  MPI_Count rsize;
  int rc = check_recv(call, recvbuf, recvtype, &rsize);
  if (rc != MPI_SUCCESS) return rc;
  if (recvcount < 0) return pat_fail(MPI_ERR_COUNT, "%s: recvcount %d < 0", call, recvcount);
  *bytes = (long long)rsize * recvcount;
  if (*bytes > 0 && pat_null_buffer(recvbuf, recvtype)) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf is NULL", call);
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return pat_check_send(call, sendbuf, sendcount, sendtype, recvbuf, recvtype, rsize, *bytes, 0, NULL, NULL);
}

int pat_check_allgatherv(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         const void *recvbuf, const int counts[], const int displs[], MPI_Datatype recvtype, int P,
                         int rank, MPI_Count *rsize, long long *total) {
  int rc = check_recv(call, recvbuf, recvtype, rsize);
  if (rc != MPI_SUCCESS) return rc;
  if (!counts) return pat_fail(MPI_ERR_ARG, "%s: recvcounts is NULL", call);
  if (!displs) return pat_fail(MPI_ERR_ARG, "%s: displs is NULL", call);
  *total = 0;
  for (int r = 0; r < P; r++) {
    if (counts[r] < 0) return pat_fail(MPI_ERR_COUNT, "%s: recvcounts[%d] = %d < 0", call, r, counts[r]);
    *total += (long long)*rsize * counts[r];
  }
  if (*total > 0 && pat_null_buffer(recvbuf, recvtype)) return pat_fail(MPI_ERR_BUFFER, "%s: recvbuf is NULL", call);
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return pat_check_send(call, sendbuf, sendcount, sendtype, recvbuf, recvtype, *rsize,
                        (long long)*rsize * counts[rank], P, counts, displs);
}
