/*
 * The common clock and tau.
 *
 * MPI_Wtime is local to each process (MPI_WTIME_IS_GLOBAL is false in Open
 * MPI), so arrival and exit times of different ranks are put on rank 0's
 * clock: rank 0 ping-pongs a timestamp with every other rank in turn and keeps,
 * for each, the sample with the smallest round trip; that rank's offset is
 * its timestamp minus the midpoint of rank 0's send and receive times (error
 * at most half that round trip).  On one host the offsets come out ~0; the
 * --inject-skew-us option shifts each rank's clock to show the correction.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "mb.h"

#define TAG_SYNC 901
#define TAG_TAU 902

static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mb_local_now(const mb_clock *c) { return monotonic_s() + c->skew; }

double mb_global_now(const mb_clock *c) { return mb_local_now(c) - c->offset; }

void mb_clock_sync(mb_clock *c, MPI_Comm comm, int samples) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  c->offset = 0;
  c->max_offset = 0;
  c->min_rtt = P > 1 ? INFINITY : 0;
  for (int peer = 1; peer < P; peer++) {
    if (rank == 0) {
      double best_rtt = INFINITY, best_offset = 0, dummy = 0, remote;
      for (int s = 0; s < samples; s++) {
        double t0 = mb_local_now(c);
        MPI_Send(&dummy, 1, MPI_DOUBLE, peer, TAG_SYNC, comm);
        MPI_Recv(&remote, 1, MPI_DOUBLE, peer, TAG_SYNC, comm, MPI_STATUS_IGNORE);
        double t1 = mb_local_now(c);
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          best_offset = remote - 0.5 * (t0 + t1);
        }
      }
      MPI_Send(&best_offset, 1, MPI_DOUBLE, peer, TAG_SYNC, comm);
      if (fabs(best_offset) > c->max_offset) c->max_offset = fabs(best_offset);
      if (best_rtt < c->min_rtt) c->min_rtt = best_rtt;
    } else if (rank == peer) {
      double dummy, now;
      for (int s = 0; s < samples; s++) {
        MPI_Recv(&dummy, 1, MPI_DOUBLE, 0, TAG_SYNC, comm, MPI_STATUS_IGNORE);
        now = mb_local_now(c);
        MPI_Send(&now, 1, MPI_DOUBLE, 0, TAG_SYNC, comm);
      }
      MPI_Recv(&c->offset, 1, MPI_DOUBLE, 0, TAG_SYNC, comm, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(comm);
}

double mb_measure_tau(MPI_Comm comm, long long bytes, int reps, int peer) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  double tau = 0;
  if (P > 1 && (rank == 0 || rank == peer)) {
    char *buf = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
    int n = (int)bytes, other = rank == 0 ? peer : 0;
    double best = INFINITY;
    for (int i = 0; i < reps + 2; i++) {
      double t0 = monotonic_s();
      if (rank == 0) {
        MPI_Send(buf, n, MPI_BYTE, other, TAG_TAU, comm);
        MPI_Recv(buf, n, MPI_BYTE, other, TAG_TAU, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, n, MPI_BYTE, other, TAG_TAU, comm, MPI_STATUS_IGNORE);
        MPI_Send(buf, n, MPI_BYTE, other, TAG_TAU, comm);
      }
      double one_way = 0.5 * (monotonic_s() - t0);
      if (i >= 2 && one_way < best) best = one_way; /* the first two warm the path up */
    }
    free(buf);
    tau = best;
  }
  MPI_Bcast(&tau, 1, MPI_DOUBLE, 0, comm);
  return tau;
}

int mb_node_map(MPI_Comm comm, int *node) {
  int P, rank, lowest;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm shared;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  lowest = rank;
  MPI_Bcast(&lowest, 1, MPI_INT, 0, shared); /* key = rank: its rank 0 is the lowest */
  MPI_Comm_free(&shared);
  MPI_Allgather(&lowest, 1, MPI_INT, node, 1, MPI_INT, comm);
  int nodes = 0;
  for (int r = 0; r < P; r++) nodes += node[r] == r;
  return nodes;
}

void mb_compute_until(const mb_clock *c, double until, int busy) {
  double local_until = until - c->skew; /* in monotonic_s() terms */
  if (!busy) {
    struct timespec ts;
    double whole = floor(local_until);
    ts.tv_sec = (time_t)whole;
    ts.tv_nsec = (long)((local_until - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
    return;
  }
  /* busy: floating-point work, checking the clock every few thousand operations */
  volatile double sink = 1.0;
  double x = 1.0;
  while (monotonic_s() < local_until) {
    for (int i = 0; i < 4096; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
  }
  (void)sink;
}
