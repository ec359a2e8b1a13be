// An unmodified C++ program under libpat_mpi: std::vector buffers, the C API
// (as C++ codes use it), a derived datatype and a split communicator; every
// MPI_Allgather compared with PMPI_Allgather.
#include <mpi.h>

#include <cstddef> // offsetof (Open MPI's mpi.h happens to include it, MPICH's does not)
#include <cstdio>
#include <cstring>
#include <vector>

#include "dropin_check.h"

struct Particle {
  double x, y, z;
  int id;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype particle;
  int lens[2] = {3, 1};
  MPI_Aint displs[2] = {offsetof(Particle, x), offsetof(Particle, id)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, lens, displs, types, &particle);
  MPI_Type_commit(&particle);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);

  long calls = 0, failures = 0;
  for (int it = 0; it < 30; it++) {
    MPI_Comm comm = it % 3 == 2 ? half : MPI_COMM_WORLD;
    int P;
    MPI_Comm_size(comm, &P);
    const int n = 1 + (it * 37) % 500;
    std::vector<Particle> mine(n), ours(static_cast<size_t>(n) * P), ref(static_cast<size_t>(n) * P);
    for (int i = 0; i < n; i++) mine[i] = Particle{rank + 0.5 * i, it * 1.0, -i * 0.25, rank * 100000 + i};
    std::memset(static_cast<void *>(ours.data()), 0, ours.size() * sizeof(Particle));
    std::memset(static_cast<void *>(ref.data()), 0, ref.size() * sizeof(Particle));
    int rc = MPI_Allgather(mine.data(), n, particle, ours.data(), n, particle, comm);
    calls++;
    PMPI_Allgather(mine.data(), n, particle, ref.data(), n, particle, comm);
    if (rc != MPI_SUCCESS || std::memcmp(ours.data(), ref.data(), ours.size() * sizeof(Particle)) != 0) {
      std::fprintf(stderr, "FAIL world rank %d: iteration %d differs from PMPI_Allgather\n", rank, it);
      failures++;
    }
  }
  failures += dropin_check(MPI_COMM_WORLD, "auto", calls);
  long worst = 0;
  MPI_Allreduce(&failures, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("dropin C++, P=%d: %ld all-gathers, %s\n", size, calls, worst ? "FAILED" : "passed");
  MPI_Type_free(&particle);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return worst ? 1 : 0;
}
