/*
 * Network parameters (alpha, beta) used for tau and, until a calibrated
 * model is loaded, by the cost model: a quick ping-pong between world ranks
 * 0 and 1 at PAT_Init, broadcast from rank 0 so that every rank holds
 * bit-identical values.
 */
#include <stdlib.h>

#include "clock.h"
#include "runtime.h"

#define SMALL 8
#define LARGE (1 << 20)
#define REPS 5
#define TAG 7

/* Minimum one-way time for `bytes` between ranks 0 and 1 (rank 0's view). */
static double pingpong(MPI_Comm comm, int rank, char *buf, int bytes) {
  double best = 1e30;
  for (int i = 0; i < REPS; i++) {
    int64_t t0 = pat_clock_local_ns();
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, TAG, comm);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, TAG, comm);
    }
    double one_way = 0.5e-9 * (double)(pat_clock_local_ns() - t0);
    if (one_way < best) best = one_way;
  }
  return best;
}

int pat_netparams_init(void) {
  int P, rank;
  MPI_Comm_size(pat_rt.world, &P);
  MPI_Comm_rank(pat_rt.world, &rank);
  double ab[2] = {1e-6, 1.0 / 1e9}; /* used on a single process: 1 us, 1 GB/s */
  pat_rt.params_source = "default (single process)";
  if (P > 1) {
    if (rank < 2) {
      char *buf = calloc(1, LARGE);
      if (!buf) return MPI_ERR_NO_MEM;
      pingpong(pat_rt.world, rank, buf, SMALL); /* warm the connection up */
      double t_small = pingpong(pat_rt.world, rank, buf, SMALL);
      double t_large = pingpong(pat_rt.world, rank, buf, LARGE);
      free(buf);
      ab[1] = (t_large - t_small) / (double)(LARGE - SMALL);
      if (ab[1] <= 0) ab[1] = 1e-12;
      ab[0] = t_small - ab[1] * SMALL;
      if (ab[0] < 0) ab[0] = 0;
    }
    int rc = MPI_Bcast(ab, 2, MPI_DOUBLE, 0, pat_rt.world);
    if (rc != MPI_SUCCESS) return rc;
    pat_rt.params_source = "ping-pong estimate at PAT_Init (ranks 0-1)";
  }
  pat_rt.alpha = ab[0];
  pat_rt.beta = ab[1];
  return MPI_SUCCESS;
}
