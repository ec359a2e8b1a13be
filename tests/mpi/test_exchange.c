/*
 * The arrival exchange (pat/exchange.h) on its own, at any P:
 *
 *   - every rank receives every record, each in its rank's place, over 24
 *     exchanges in a row, completed by pat_exchange_wait, by
 *     pat_exchange_test polled, and by the wait's test-and-nap, the ranks
 *     contributing at staggered times (a late rank, an early one);
 *   - sub-communicators (the even ranks, the world reversed) keep theirs
 *     apart from the world's while both are in flight;
 *   - each rank sends to at most ceil(log2 P) peers: the exchange must not
 *     connect every pair, which slowed MPI's own small all-gathers over TCP
 *     for the rest of a job.  The test counts the peers of the exchange's
 *     MPI_Isend calls by defining MPI_Isend here (the profiling interface:
 *     it calls PMPI_Isend).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "pat/exchange.h"

static int rank;
static long failures, cases;

/* the world ranks the exchanges' sends went to */
static char *sent_to;
static MPI_Group world_group;

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  if (sent_to && dest >= 0) {
    MPI_Group group;
    int world_dest = MPI_UNDEFINED;
    PMPI_Comm_group(comm, &group);
    PMPI_Group_translate_ranks(group, 1, &dest, world_group, &world_dest);
    PMPI_Group_free(&group);
    if (world_dest != MPI_UNDEFINED) sent_to[world_dest] = 1;
  }
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

static pat_xrec record_of(int r, int seq, int salt) {
  pat_xrec rec = {.arrival_ns = 1000000LL * r + seq,
                  .block_bytes = 17 * seq + salt,
                  .shape_hash = (uint64_t)r << 32 | (uint64_t)(seq * 7 + salt),
                  .contributed_ns = r,
                  .prev_call = seq - 1,
                  .prev_alg = r % 5,
                  .setting = salt,
                  .kind = 1 + (r + seq) % 4};
  return rec;
}

static void check_records(const pat_exchange *x, int seq, int salt, const char *what) {
  for (int r = 0; r < x->P; r++) {
    pat_xrec want = record_of(r, seq, salt);
    CHECK(memcmp(&x->all[r], &want, sizeof want) == 0, "%s, exchange %d: record %d of %d is not rank %d's", what,
          seq, r, x->P, r);
  }
}

/* how exchange seq is completed: waited, polled, waited with naps */
static int complete(pat_exchange *x, int seq) {
  if (seq % 3 == 1) {
    int done = 0, rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && !done) rc = pat_exchange_test(x, &done);
    return rc;
  }
  x->wait_nap_ns = seq % 3 == 2 ? 20000 : 0;
  return pat_exchange_wait(x);
}

static void run_exchanges(pat_exchange *x, int count, int salt, const char *what) {
  for (int seq = 0; seq < count; seq++) {
    /* one rank late, another early, by turns */
    if (x->rank == seq % x->P) sleep_ms(2);
    pat_xrec mine = record_of(x->rank, seq, salt);
    int rc = pat_exchange_start(x, &mine);
    CHECK(rc == MPI_SUCCESS, "%s, exchange %d: start failed (%d)", what, seq, rc);
    if (rc != MPI_SUCCESS) return;
    rc = complete(x, seq);
    CHECK(rc == MPI_SUCCESS && x->state == PAT_X_DONE, "%s, exchange %d: not completed (%d)", what, seq, rc);
    check_records(x, seq, salt, what);
    pat_exchange_consume(x);
  }
}

static int ceil_log2(int P) {
  int k = 0;
  while ((1 << k) < P) k++;
  return k;
}

int main(int argc, char **argv) {
  int P;
  test_init(&argc, &argv, &rank, &P, "all");
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  sent_to = calloc((size_t)P, 1);

  MPI_Comm world_dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
  pat_exchange x;
  CHECK(pat_exchange_init(&x, world_dup) == MPI_SUCCESS, "init on the world");
  run_exchanges(&x, 24, 0, "world");
  int peers = 0;
  for (int r = 0; r < P; r++) peers += sent_to[r];
  CHECK(peers <= ceil_log2(P), "sent to %d peers at P = %d, more than ceil(log2 P) = %d", peers, P, ceil_log2(P));
  CHECK(!sent_to[rank], "sent to itself");
  free(sent_to);
  sent_to = NULL;

  /* two communicators' exchanges in flight together: the world's started
   * first, the sub-communicator's completed first */
  MPI_Comm even, reversed;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &even);
  MPI_Comm_split(MPI_COMM_WORLD, 0, P - rank, &reversed);
  pat_exchange xe, xr;
  CHECK(pat_exchange_init(&xe, even) == MPI_SUCCESS, "init on the split");
  CHECK(pat_exchange_init(&xr, reversed) == MPI_SUCCESS, "init on the reversed world");
  for (int seq = 0; seq < 6; seq++) {
    pat_xrec w = record_of(xr.rank, seq, 3), s = record_of(xe.rank, seq, 5);
    CHECK(pat_exchange_start(&xr, &w) == MPI_SUCCESS, "start, reversed world");
    CHECK(pat_exchange_start(&xe, &s) == MPI_SUCCESS, "start, split");
    CHECK(complete(&xe, seq) == MPI_SUCCESS, "complete, split");
    CHECK(complete(&xr, seq + 1) == MPI_SUCCESS, "complete, reversed world");
    check_records(&xe, seq, 5, "split");
    check_records(&xr, seq, 3, "reversed world");
    pat_exchange_consume(&xe);
    pat_exchange_consume(&xr);
  }
  pat_exchange_free(&xe);
  pat_exchange_free(&xr);
  pat_exchange_free(&x);
  MPI_Comm_free(&even);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&world_dup);
  MPI_Group_free(&world_group);
  int rc = report_failures("exchange", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
