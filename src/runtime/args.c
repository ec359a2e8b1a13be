/* Argument checks shared by the calls (see args.h). */
#include "runtime/args.h"

#include <stddef.h>

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

int pat_check_send(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                   MPI_Datatype recvtype, MPI_Count rsize, long long own_bytes) {
  if (sendcount < 0) return pat_fail(MPI_ERR_COUNT, "%s: sendcount %d < 0", call, sendcount);
  if (sendtype == MPI_DATATYPE_NULL) return pat_fail(MPI_ERR_TYPE, "%s: sendtype is MPI_DATATYPE_NULL", call);
  MPI_Count ssize = rsize;
  if (sendtype != recvtype && pat_type_size(sendtype, &ssize)) return pat_fail(MPI_ERR_TYPE, "%s: bad sendtype", call);
  long long sbytes = (long long)ssize * sendcount;
  if (sbytes != own_bytes)
    return pat_fail(MPI_ERR_TRUNCATE, "%s: send size %lld bytes differs from receive size %lld bytes", call, sbytes,
                    own_bytes);
  if (sbytes > 0 && pat_null_buffer(sendbuf, sendtype)) return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf is NULL", call);
  if (sbytes > 0 && sendbuf == recvbuf)
    return pat_fail(MPI_ERR_BUFFER, "%s: sendbuf aliases recvbuf (use MPI_IN_PLACE)", call);
  return MPI_SUCCESS;
}
