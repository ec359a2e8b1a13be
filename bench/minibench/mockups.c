/*
 * Mock-ups of the all-gather built from other collectives of the MPI library
 * (Hagn's self-consistent performance guidelines: a specialised collective
 * should never be slower than the same operation composed of others).
 *
 *   mock-gather-bcast  MPI_Gather to rank 0, then MPI_Bcast of the P blocks
 *   mock-alltoall      MPI_Alltoall with the own block repeated P times
 *   mock-allreduce     MPI_Allreduce (bitwise OR on bytes) of a zeroed vector
 *                      holding only the own block: exact for any float bits
 *   mock-allgatherv    MPI_Allgatherv with equal counts
 *
 * They run on the benchmark's communicator with the native MPI calls, under
 * the same instrumentation and correctness check as every PAT algorithm, so
 * the guideline driver (bench/guidelines/) can compare them with
 * PAT_Allgather in the same launch.
 */
#include <stdlib.h>
#include <string.h>

#include "mb.h"

static const char *const names[MB_MOCKUPS] = {"mock-gather-bcast", "mock-alltoall", "mock-allreduce",
                                              "mock-allgatherv"};

int mb_mockup_index(const char *name) {
  for (int i = 0; i < MB_MOCKUPS; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

const char *mb_mockup_name(int i) { return i >= 0 && i < MB_MOCKUPS ? names[i] : NULL; }

/* Scratch each mock-up needs besides sendbuf/recvbuf (allocated once per run). */
size_t mb_mockup_scratch_bytes(int which, long long count, int P) {
  if (which == 1) return sizeof(float) * (size_t)count * (size_t)P; /* alltoall's repeated block */
  if (which == 2) return sizeof(float) * (size_t)count * (size_t)P; /* allreduce's zeroed vector */
  if (which == 3) return 2 * sizeof(int) * (size_t)P;              /* allgatherv's counts, displs */
  return 0;
}

int mb_mockup_allgather(int which, const float *send, int count, float *recv, MPI_Comm comm, void *scratch) {
  int P, rank, rc = MPI_SUCCESS;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  size_t block = sizeof(float) * (size_t)count;
  switch (which) {
    case 0:
      rc = MPI_Gather(send, count, MPI_FLOAT, recv, count, MPI_FLOAT, 0, comm);
      if (rc == MPI_SUCCESS) rc = MPI_Bcast(recv, count * P, MPI_FLOAT, 0, comm);
      break;
    case 1: {
      float *rep = scratch;
      for (int i = 0; i < P; i++) memcpy(rep + (size_t)i * (size_t)count, send, block);
      rc = MPI_Alltoall(rep, count, MPI_FLOAT, recv, count, MPI_FLOAT, comm);
      break;
    }
    case 2: {
      unsigned char *v = scratch;
      memset(v, 0, block * (size_t)P);
      memcpy(v + block * (size_t)rank, send, block);
      rc = MPI_Allreduce(v, recv, (int)(block * (size_t)P), MPI_BYTE, MPI_BOR, comm);
      break;
    }
    case 3: {
      int *counts = scratch, *displs = counts + P;
      for (int i = 0; i < P; i++) {
        counts[i] = count;
        displs[i] = i * count;
      }
      rc = MPI_Allgatherv(send, count, MPI_FLOAT, recv, counts, displs, MPI_FLOAT, comm);
      break;
    }
    default:
      rc = MPI_ERR_ARG;
  }
  return rc;
}
