/*
 * Reproducer of the retirement hang the stress suite found (README.md,
 * "Known failures"): a communicator retired (MPI_Comm_free, or
 * PAT_Finalize) while the algorithm setting is a classic one, after some of
 * its ranks -- not all -- contributed ahead to its next arrival exchange.
 * Those ranks wait in the retirement for records the others never send:
 * PAT_Finalize never returns.  Every rank uses the same setting at every
 * moment; only the instrumentation differs, which libpat allows.
 *
 *   test_retire_setting edge          (P >= 3) every rank instrumented; the
 *       edge goes to the communicator each rank used last: a sub-communicator
 *       for ranks 0 and 1, the dup of world for the others
 *   test_retire_setting instrumented  (P >= 2) rank 0 instrumented, the
 *       others not: they contribute from the call site's history after each
 *       call, rank 0 does not
 *
 * Then PAT_UseAlg("ring") on every rank, MPI_Comm_free, PAT_Finalize.  The
 * watchdog turns the hang into "HANG ..." and exit status 3 after 30 s.
 */
#include <stdio.h>
#include <string.h>

#include "mpitest.h"
#include "pat.h"
#include "watchdog.h"

static int rank, P;
static int mine[4], all[4 * 256];

static void gather(MPI_Comm comm) {
  for (int i = 0; i < 4; i++) mine[i] = rank;
  if (PAT_Allgather(mine, 4, MPI_INT, all, 4, MPI_INT, comm) != MPI_SUCCESS) fprintf(stderr, "all-gather failed\n");
}

/* Ranks 0 and 1 predict their next call on d, the others on c. */
static void edge(MPI_Comm c) {
  MPI_Comm d;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &d);
  PAT_ProcessingStart();
  PAT_ProcessingEnd();
  gather(c);
  if (d != MPI_COMM_NULL) gather(d);
  PAT_ProcessingStart();
  PAT_Edge(50);
  PAT_ProcessingEnd();
  if (d != MPI_COMM_NULL) MPI_Comm_free(&d);
}

/* Only rank 0 instrumented: the others contribute from history. */
static void instrumented(MPI_Comm c) {
  if (rank == 0) {
    PAT_ProcessingStart();
    PAT_ProcessingEnd();
  }
  for (int i = 0; i < 3; i++) gather(c);
}

int main(int argc, char **argv) {
  const char *mode = test_init(&argc, &argv, &rank, &P, "");
  if (PAT_Init() != MPI_SUCCESS || P > 256 || (strcmp(mode, "edge") && strcmp(mode, "instrumented")) ||
      (!strcmp(mode, "edge") && P < 3) || P < 2) {
    if (rank == 0) fprintf(stderr, "usage: test_retire_setting edge (P >= 3) | instrumented (P >= 2)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  watchdog_start(30, "test_retire_setting");
  PAT_UseAlg("bslb");
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (!strcmp(mode, "edge"))
    edge(c);
  else
    instrumented(c);
  PAT_UseAlg("ring"); /* every rank alike */
  MPI_Comm_free(&c);
  watchdog_enter("PAT_Finalize after freeing a communicator under the setting ring");
  PAT_Finalize();
  watchdog_stop();
  if (rank == 0) printf("retire-setting %s, P=%d: 1 passed, 0 failed\n", mode, P);
  MPI_Finalize();
  return 0;
}
