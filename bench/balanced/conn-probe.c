/*
 * libpat-conn-probe.so: a preload that does nothing of libpat's but what
 * PAT_PROBE names, to tell what in a preload slows MPI's own all-gather
 * (osu.sh --old-lib build/bench/balanced/libpat-conn-probe.so --env PAT_PROBE=...):
 *
 *   wrap      MPI_Allgather(v) call PMPI_Allgather(v): the cost of being a wrapper
 *   all       and MPI_Init connects every pair of ranks (a one-byte message each way)
 *   star      ... rank 0 with every rank only
 *   multiple  ... MPI_Init asks for MPI_THREAD_MULTIPLE
 *
 * Open MPI connects TCP peers lazily, at their first message, so "all" and
 * "star" leave the job with the connections an all-pairs exchange or a
 * star-shaped clock sync would.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static const char *probe(void) {
  const char *p = getenv("PAT_PROBE");
  return p ? p : "wrap";
}

static void connect_peers(int star) {
  int P, me, n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Request *reqs = malloc(2 * (size_t)P * sizeof *reqs);
  char *bytes = calloc(2 * (size_t)P, 1);
  if (!reqs || !bytes) abort();
  for (int r = 0; r < P; r++) {
    if (r == me || (star && me != 0 && r != 0)) continue;
    PMPI_Irecv(bytes + r, 1, MPI_BYTE, r, 4242, MPI_COMM_WORLD, &reqs[n++]);
    PMPI_Isend(bytes + P + r, 1, MPI_BYTE, r, 4242, MPI_COMM_WORLD, &reqs[n++]);
  }
  PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
  free(reqs);
  free(bytes);
}

int MPI_Init(int *argc, char ***argv) {
  int provided, rc;
  if (!strcmp(probe(), "multiple"))
    rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  else
    rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && (!strcmp(probe(), "all") || !strcmp(probe(), "star"))) connect_peers(!strcmp(probe(), "star"));
  return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm) {
  return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}
