/*
 * Misuse gives an MPI error code and a clear message, never a crash or an
 * abort, and the library keeps working afterwards.
 */
#include <stdio.h>
#include <string.h>

#include "mpitest.h"
#include "pat.h"

static long failures, cases;

static int mentions(int rc, const char *text) { return !text || strstr(PAT_Error_string(rc), text) != NULL; }

#define EXPECT(call, code, text)                                                                      \
  do {                                                                                                \
    int rc_ = (call);                                                                                 \
    cases++;                                                                                          \
    int class_ = -1;                                                                                  \
    if (rc_ == MPI_SUCCESS) class_ = MPI_SUCCESS; else MPI_Error_class(rc_, &class_);                                            \
    if (class_ != (code) || !mentions(rc_, text)) {                                    \
      failures++;                                                                                     \
      fprintf(stderr, "FAIL line %d: %s gave %d (%s), expected class %d with '%s'\n", __LINE__, #call, \
              rc_, PAT_Error_string(rc_), (code), text ? text : "");                                  \
    }                                                                                                 \
  } while (0)

static int gather_ok(MPI_Comm comm) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  int mine[3] = {rank, rank * 2, rank * 3}, all[3 * 64];
  if (PAT_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm) != MPI_SUCCESS) return 0;
  for (int r = 0; r < P; r++)
    if (all[3 * r] != r || all[3 * r + 1] != 2 * r || all[3 * r + 2] != 3 * r) return 0;
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int x = 1, y[64];

  /* before PAT_Init */
  EXPECT(PAT_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_OTHER, "PAT_Init");
  EXPECT(PAT_UseAlg("ring"), MPI_ERR_OTHER, "PAT_Init");
  EXPECT(PAT_Edge(50), MPI_ERR_OTHER, "PAT_Init");
  EXPECT(PAT_Finalize(), MPI_ERR_OTHER, "not initialised");

  EXPECT(PAT_Init(), MPI_SUCCESS, NULL);
  EXPECT(PAT_Init(), MPI_ERR_OTHER, "already");

  /* unknown algorithm: the message names the valid ones */
  EXPECT(PAT_UseAlg("bogus"), MPI_ERR_ARG, "ring, nex, rdb, bruck, lnbc");
  EXPECT(PAT_UseAlg(NULL), MPI_ERR_ARG, "valid");
  EXPECT(PAT_Edge(0.0), MPI_ERR_ARG, "percent");
  EXPECT(PAT_Edge(100.0), MPI_ERR_ARG, "percent");

  /* auto last: on one node without a model file (PAT_ONE_NODE=native) it passes calls through to
   * MPI's own behind a screen of the arguments (runtime/args.h), which the calls below must not pass */
  const char *algs[] = {"ring", "bruck", "native", "lnbc", "auto"};
  for (int a = 0; a < 5; a++) {
    EXPECT(PAT_UseAlg(algs[a]), MPI_SUCCESS, NULL);
    cases++;
    if (!gather_ok(MPI_COMM_WORLD)) { /* a correct call first: the communicator then has a state */
      failures++;
      fprintf(stderr, "FAIL: a correct call of %s failed\n", algs[a]);
    }
    EXPECT(PAT_Allgather(&x, -1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, "sendcount");
    EXPECT(PAT_Allgather(&x, 1, MPI_INT, y, -5, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, "recvcount");
    EXPECT(PAT_Allgather(&x, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER, "recvbuf");
    EXPECT(PAT_Allgather(NULL, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER, "sendbuf");
    EXPECT(PAT_Allgather(y, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    EXPECT(PAT_Allgather(&x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "recvbuf may not be MPI_IN_PLACE");
    EXPECT(PAT_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_COMM_NULL");
    EXPECT(PAT_Allgather(&x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE, "sendtype");
    EXPECT(PAT_Allgather(&x, 1, MPI_INT, y, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE, "recvtype");
    EXPECT(PAT_Allgather(&x, 1, MPI_INT, y, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "differs");
    /* zero counts: recvbuf may be NULL */
    EXPECT(PAT_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS, NULL);
    /* ... and the library still works */
    cases++;
    if (!gather_ok(MPI_COMM_WORLD)) {
      failures++;
      fprintf(stderr, "FAIL: %s does not work after bad calls\n", algs[a]);
    }
  }
  /* MPI_IN_PLACE ignores sendcount and sendtype, whatever they hold */
  {
    int P, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < P && r < 64; r++) y[r] = -1;
    y[rank] = rank * 11;
    EXPECT(PAT_UseAlg("ring"), MPI_SUCCESS, NULL);
    EXPECT(PAT_Allgather(MPI_IN_PLACE, -7, MPI_DATATYPE_NULL, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS, NULL);
    for (int r = 0; r < P; r++)
      if (y[r] != r * 11) {
        failures++;
        fprintf(stderr, "FAIL: in-place result wrong at %d\n", r);
        break;
      }
  }
  EXPECT(PAT_Finalize(), MPI_SUCCESS, NULL);
  EXPECT(PAT_Finalize(), MPI_ERR_OTHER, "not initialised");
  int bad = report_failures("bad input", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return bad;
}
