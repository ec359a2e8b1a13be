/* An unmodified-style MPI program for the call-path count: `calls`
 * MPI_Allgathers of `bytes` per rank on MPI_COMM_WORLD, its result checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int calls = argc > 1 ? atoi(argv[1]) : 40, bytes = argc > 2 ? atoi(argv[2]) : 65536, P, rank, bad = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  unsigned char *send = malloc(bytes), *recv = malloc((size_t)bytes * P);
  for (int c = 0; c < calls; c++) {
    for (int i = 0; i < bytes; i++) send[i] = (unsigned char)(rank * 31 + c + i);
    MPI_Allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < P; r++)
      for (int i = 0; i < bytes; i++) bad += recv[(size_t)r * bytes + i] != (unsigned char)(r * 31 + c + i);
  }
  if (bad) fprintf(stderr, "rank %d: %d wrong bytes\n", rank, bad);
  MPI_Finalize();
  return bad != 0;
}
