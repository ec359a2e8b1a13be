/* Common clock: local monotonic time + offset to rank 0; see clock.h. */
#include "pat/clock.h"

#include <time.h>

static int64_t injected_skew_ns;
static int64_t offset_ns;
static int64_t best_rtt_ns;

void pat_clock_setup(int64_t skew_ns) { injected_skew_ns = skew_ns; }

int64_t pat_clock_local_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + injected_skew_ns;
}

int64_t pat_clock_offset_ns(void) { return offset_ns; }
int64_t pat_clock_best_rtt_ns(void) { return best_rtt_ns; }
int64_t pat_clock_global_ns(void) { return pat_clock_local_ns() + offset_ns; }

#define TAG_PING 1
#define TAG_PONG 2

int pat_clock_sync(MPI_Comm comm, int samples) {
  int rank, P, rc = MPI_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  offset_ns = 0;
  best_rtt_ns = 0;
  if (rank == 0) {
    /* serve each rank in turn: answer its pings with our clock */
    for (int r = 1; r < P && rc == MPI_SUCCESS; r++)
      for (int i = 0; i < samples && rc == MPI_SUCCESS; i++) {
        int64_t now;
        rc = MPI_Recv(NULL, 0, MPI_BYTE, r, TAG_PING, comm, MPI_STATUS_IGNORE);
        now = pat_clock_local_ns();
        if (rc == MPI_SUCCESS) rc = MPI_Send(&now, 1, MPI_INT64_T, r, TAG_PONG, comm);
      }
    return rc;
  }
  best_rtt_ns = INT64_MAX;
  for (int i = 0; i < samples && rc == MPI_SUCCESS; i++) {
    int64_t t0 = pat_clock_local_ns(), t1;
    rc = MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_PING, comm);
    if (rc == MPI_SUCCESS) rc = MPI_Recv(&t1, 1, MPI_INT64_T, 0, TAG_PONG, comm, MPI_STATUS_IGNORE);
    int64_t t2 = pat_clock_local_ns();
    /* the sample with the shortest round trip bounds the error best */
    if (rc == MPI_SUCCESS && t2 - t0 < best_rtt_ns) {
      best_rtt_ns = t2 - t0;
      offset_ns = t1 - (t0 + (t2 - t0) / 2);
    }
  }
  return rc;
}
