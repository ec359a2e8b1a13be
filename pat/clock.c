/* Common clock: local monotonic time + offset to rank 0, estimated at init
 * by ping-pong along a binomial tree; see clock.h. */
#include "pat/clock.h"

#include <time.h>

static int64_t injected_skew_ns;
static int64_t offset_ns;
static int64_t width_ns;

void pat_clock_setup(int64_t skew_ns) { injected_skew_ns = skew_ns; }

int64_t pat_clock_local_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + injected_skew_ns;
}

int64_t pat_clock_offset_ns(void) { return offset_ns; }
int64_t pat_clock_best_rtt_ns(void) { return width_ns; }
int64_t pat_clock_global_ns(void) { return pat_clock_local_ns() + offset_ns; }

#define TAG_PING 1
#define TAG_PONG 2

/* Past its PAT_CLOCK_SAMPLES a hop samples on while it knows the offset
 * less well than this (+-100 us per hop: well under the milliseconds of
 * imbalance that arrival-awareness acts on), up to MAX_FACTOR times as many
 * samples: on a quiet node or network the first few samples settle it; on
 * an oversubscribed node they may all have waited for a descheduled rank,
 * and their bounds then leave errors of milliseconds. */
#define SETTLED_NS 200000
#define MAX_FACTOR 16

/* Wait for req spinning for about a round trip, then napping between tests:
 * where ranks outnumber CPUs, a rank that spins may hold the very CPU that
 * the rank it waits for needs. */
#define SPIN_NS 100000
static int wait_napping(MPI_Request *req) {
  const struct timespec nap = {0, 20000};
  int64_t start = pat_clock_local_ns();
  int done = 0, rc;
  while ((rc = MPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
    if (pat_clock_local_ns() - start > SPIN_NS) nanosleep(&nap, NULL);
  return rc;
}

/* Answer child's pings until it has enough (it alone decides, and says so:
 * both ends then agree on the count) with the times on this rank's common
 * clock when each ping was received and its answer sent, and how well that
 * clock is known. */
static int serve(MPI_Comm comm, int child) {
  for (;;) {
    int more = 0;
    MPI_Request req;
    int rc = MPI_Irecv(&more, 1, MPI_INT, child, TAG_PING, comm, &req);
    if (rc == MPI_SUCCESS) rc = wait_napping(&req);
    if (rc != MPI_SUCCESS || !more) return rc;
    int64_t pong[3] = {pat_clock_global_ns(), 0, width_ns};
    pong[1] = pat_clock_global_ns();
    rc = MPI_Send(pong, 3, MPI_INT64_T, child, TAG_PONG, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
}

/* Each sample bounds the offset from both sides: the parent received the
 * ping after it was sent (offset <= received - sent) and sent its answer
 * before it arrived (offset >= answered - arrived).  Intersecting all the
 * samples' bounds, rather than keeping the one with the shortest round
 * trip, keeps a quick leg even where the other leg of its round trip waited
 * for a descheduled rank: on an oversubscribed node few round trips are
 * quick both ways, quick pings and quick answers each come more often. */
static int sync_with(MPI_Comm comm, int parent, int samples) {
  int rc = MPI_SUCCESS;
  int64_t lo = INT64_MIN, hi = INT64_MAX, path = 0;
  for (int n = 0;; n++) {
    int more = n < samples || (n > 0 && hi - lo > SETTLED_NS && n < MAX_FACTOR * samples);
    int64_t t0 = pat_clock_local_ns(), pong[3];
    rc = MPI_Send(&more, 1, MPI_INT, parent, TAG_PING, comm);
    if (rc != MPI_SUCCESS || !more) break;
    MPI_Request req;
    rc = MPI_Irecv(pong, 3, MPI_INT64_T, parent, TAG_PONG, comm, &req);
    if (rc == MPI_SUCCESS) rc = wait_napping(&req);
    if (rc != MPI_SUCCESS) break;
    int64_t t2 = pat_clock_local_ns();
    if (pong[0] - t0 < hi) hi = pong[0] - t0;
    if (pong[1] - t2 > lo) lo = pong[1] - t2;
    path = pong[2];
  }
  if (hi == INT64_MAX) {
    width_ns = INT64_MAX; /* no sample: the error is unbounded */
    return rc;
  }
  offset_ns = lo + (hi - lo) / 2;
  /* bounds that cross mean the clocks drifted apart while sampling, by
   * about as much as they cross */
  width_ns = (hi > lo ? hi - lo : lo - hi) + path;
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
 * width_ns sums. */
int pat_clock_sync(MPI_Comm comm, int samples) {
  int rank, P, rc = MPI_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  offset_ns = 0;
  width_ns = 0;
  int d = 1;
  if (rank > 0) {
    while (d * 2 <= rank) d *= 2;
    rc = sync_with(comm, rank - d, samples);
    d *= 2;
  }
  for (; d < P && rc == MPI_SUCCESS; d *= 2)
    if (rank + d < P) rc = serve(comm, rank + d);
  return rc;
}
