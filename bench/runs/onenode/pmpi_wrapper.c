#include <mpi.h>
#include <stdlib.h>
/* A plain PMPI wrapper of MPI_Allgather (bench/runs/onenode/run.sh single);
 * SHIM_DUP=1 also makes the communicators libpat makes at PAT_Init (a duplicate of
 * MPI_COMM_WORLD and a shared-memory split). */
int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (getenv("SHIM_DUP")) { static MPI_Comm c, d; PMPI_Comm_dup(MPI_COMM_WORLD, &c); PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &d); PMPI_Comm_free(&d); }
  return rc;
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm c) {
  return PMPI_Allgather(s, sc, st, r, rc, rt, c);
}
