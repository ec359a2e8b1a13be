/* PAT_Init's communicator calls without libpat, 20 times: a private duplicate (MPI_Comm_create_group,
 * or MPI_Comm_dup with DUP=1), the split by node, a broadcast and an all-reduce on the node's
 * communicator, an all-reduce on world; thread level from REQ (0 single .. 3 multiple). Rank 0
 * prints "init_sequence ok" when every call returned. It tells a hang of the MPI library on a job
 * shape from one of libpat's: on the device machine at 4 hosts x 4 ranks it hung in all four
 * variants (REQ 0/3 x DUP 0/1).
 *   mpicc -o init_sequence_probe bench/device/init_sequence_probe.c
 *   bench/cluster/pat-cluster run --timeout 15 --np-all -x REQ=3 -x DUP=0 ./init_sequence_probe */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  return v ? atoi(v) : fallback;
}

int main(int argc, char **argv) {
  int required = env_int("REQ", MPI_THREAD_MULTIPLE), use_dup = env_int("DUP", 0), provided, rank;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int round = 0; round < 20; round++) {
    MPI_Comm scratch, shared;
    if (use_dup) {
      MPI_Comm_dup(MPI_COMM_WORLD, &scratch);
    } else {
      MPI_Group group;
      MPI_Comm_group(MPI_COMM_WORLD, &group);
      MPI_Comm_create_group(MPI_COMM_WORLD, group, 77, &scratch);
      MPI_Group_free(&group);
    }
    MPI_Comm_split_type(scratch, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, shared);
    char mine[128] = {0}, node[128];
    MPI_Allreduce(mine, node, (int)sizeof mine, MPI_BYTE, MPI_BOR, shared);
    MPI_Comm_free(&shared);
    MPI_Comm_free(&scratch);
    int ok = 1, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("init_sequence ok: required %d provided %d dup %d\n", required, provided, use_dup);
  MPI_Finalize();
  return 0;
}
