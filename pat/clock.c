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

/* Answer `samples` pings from child with this rank's common clock and the
 * round trips its own offset rests on. */
static int serve(MPI_Comm comm, int child, int samples) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < samples && rc == MPI_SUCCESS; i++) {
    rc = MPI_Recv(NULL, 0, MPI_BYTE, child, TAG_PING, comm, MPI_STATUS_IGNORE);
    int64_t pong[2] = {pat_clock_global_ns(), best_rtt_ns};
    if (rc == MPI_SUCCESS) rc = MPI_Send(pong, 2, MPI_INT64_T, child, TAG_PONG, comm);
  }
  return rc;
}

/* Take the offset to parent's common clock from the sample with the
 * shortest round trip, which bounds the error best. */
static int sync_with(MPI_Comm comm, int parent, int samples) {
  int rc = MPI_SUCCESS;
  int64_t best = INT64_MAX, path = 0;
  for (int i = 0; i < samples && rc == MPI_SUCCESS; i++) {
    int64_t t0 = pat_clock_local_ns(), pong[2];
    rc = MPI_Send(NULL, 0, MPI_BYTE, parent, TAG_PING, comm);
    if (rc == MPI_SUCCESS) rc = MPI_Recv(pong, 2, MPI_INT64_T, parent, TAG_PONG, comm, MPI_STATUS_IGNORE);
    int64_t t2 = pat_clock_local_ns();
    if (rc == MPI_SUCCESS && t2 - t0 < best) {
      best = t2 - t0;
      path = pong[1];
      offset_ns = pong[0] - (t0 + (t2 - t0) / 2);
    }
  }
  best_rtt_ns = best == INT64_MAX ? INT64_MAX : best + path; /* no sample: the error is unbounded */
  return rc;
}

/* A binomial tree on rank 0: rank r (highest bit h) takes its offset from
 * r - h, then gives theirs to r + 2h, r + 4h, ...; rank 0 to 1, 2, 4, ....
 * Each rank talks to at most ceil(log2 P) others, every one of which MPI's
 * own recursive-doubling collectives pair it with too: a star on rank 0
 * would connect rank 0 with every rank, and over TCP each connection costs
 * Open MPI's progress loop for the rest of the job (exchange.h).  The tree
 * also syncs in ceil(log2 P) rounds of pairs in parallel rather than P - 1
 * in turn, at the price of each hop's error adding up along the path, which
 * best_rtt_ns sums. */
int pat_clock_sync(MPI_Comm comm, int samples) {
  int rank, P, rc = MPI_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  offset_ns = 0;
  best_rtt_ns = 0;
  int d = 1;
  if (rank > 0) {
    while (d * 2 <= rank) d *= 2;
    rc = sync_with(comm, rank - d, samples);
    d *= 2;
  }
  for (; d < P && rc == MPI_SUCCESS; d *= 2)
    if (rank + d < P) rc = serve(comm, rank + d, samples);
  return rc;
}
