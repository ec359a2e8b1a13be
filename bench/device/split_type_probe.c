/* Does MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) complete on this MPI and job shape? A bare MPI
 * program, no libpat: every rank prints its processor name and local size, then the shared
 * communicator's size once the split returns. On the 16-core device machine (Open MPI 4.1.6) at 4
 * emulated hosts x 4 ranks only the last host's ranks returned; the others waited in the split's
 * all-gather until the launch's timeout, so PAT_Init (which splits by node) cannot finish there.
 *   mpicc -o split_type_probe bench/device/split_type_probe.c
 *   bench/cluster/pat-cluster run --timeout 10 --np-all ./split_type_probe */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, len;
  char name[MPI_MAX_PROCESSOR_NAME];
  const char *local_size = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Get_processor_name(name, &len);
  fprintf(stderr, "rank %d name %s local size %s\n", rank, name, local_size ? local_size : "?");
  MPI_Comm shared;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  MPI_Comm_size(shared, &size);
  fprintf(stderr, "rank %d shared size %d\n", rank, size);
  MPI_Comm_free(&shared);
  MPI_Finalize();
  return 0;
}
