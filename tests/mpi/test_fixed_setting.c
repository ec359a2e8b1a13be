/*
 * A fixed algorithm setting never enters auto's decision engine, and a
 * program that switches between fixed settings and auto (PAT_UseAlg
 * between calls) stays correct and agreed on every rank.
 *
 *   test_fixed_setting
 *
 * On a new communicator: calls under RELAY (arrival-aware, so arrivals are
 * exchanged and, with the background thread, contributed ahead from
 * history), then RING, with ranks arriving late by turns; the engine must
 * not have been made.  Then auto, RELAY again (records contributed ahead
 * under auto are exchanged by the fixed call), auto again, and calls of a
 * second size (a new call site made under a fixed setting, then used by
 * auto).  Every call's blocks are checked, every call under a fixed setting
 * must have run that algorithm (PAT_LastAlg), and after every call the
 * ranks' last plan digests (inputs and algorithm) must be equal.
 */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

static long failures, cases;
static int rank, P;

/* One checked all-gather of `count` ints on comm, rank `late` arriving 5 ms
 * after the others; under a fixed setting it must run that algorithm. */
static void gather(MPI_Comm comm, int count, int call, int late, const char *setting) {
  int *mine = malloc(sizeof(int) * (size_t)count), *all = malloc(sizeof(int) * (size_t)count * (size_t)P);
  for (int i = 0; i < count; i++) mine[i] = rank * 1000003 + call * 7919 + i;
  if (rank == late) sleep_ms(5);
  int rc = PAT_Allgather(mine, count, MPI_INT, all, count, MPI_INT, comm);
  CHECK(rc == MPI_SUCCESS, "%s call %d: rc %d", setting, call, rc);
  long bad = 0;
  for (int r = 0; r < P; r++)
    for (int i = 0; i < count; i++) bad += all[(size_t)r * (size_t)count + (size_t)i] != r * 1000003 + call * 7919 + i;
  CHECK(bad == 0, "%s call %d (%d ints): %ld wrong ints", setting, call, count, bad);
  if (strcmp(setting, "auto") != 0 && P > 1) {
    const char *ran = PAT_LastAlg(comm);
    CHECK(ran && strcmp(ran, setting) == 0, "%s call %d ran %s", setting, call, ran ? ran : "?");
  }
  /* the digest of the plan the call ran (its inputs and its algorithm); the plan in hand may be one the
   * background thread made ahead for the next call */
  uint64_t digest, digests[64];
  int alg;
  pat_debug_last_plan(comm, &digest, &alg, NULL);
  MPI_Allgather(&digest, 1, MPI_UINT64_T, digests, 1, MPI_UINT64_T, comm);
  for (int r = 1; r < P; r++)
    CHECK(digests[r] == digests[0], "%s call %d: rank %d's plan %llx is not rank 0's %llx", setting, call, r,
          (unsigned long long)digests[r], (unsigned long long)digests[0]);
  free(mine);
  free(all);
}

static void run(MPI_Comm comm, const char *setting, int calls, int count, int *call) {
  CHECK(PAT_UseAlg(setting) == MPI_SUCCESS, "PAT_UseAlg(%s)", setting);
  for (int i = 0; i < calls; i++, (*call)++) gather(comm, count, *call, *call % P, setting);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "");
  PAT_Init();
  if (P > 64) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int call = 0;
  run(comm, "relay", 12, 4096, &call);
  run(comm, "ring", 4, 4096, &call);
  CHECK(pat_debug_engine_made(comm) == 0, "the engine was made under fixed settings");
  run(comm, "relay", 3, 512, &call); /* a second site, made under a fixed setting */
  CHECK(pat_debug_engine_made(comm) == 0, "the engine was made under fixed settings");
  run(comm, "auto", 10, 4096, &call);
  CHECK(pat_debug_engine_made(comm) == 1, "no engine after calls under auto");
  run(comm, "relay", 4, 4096, &call);
  run(comm, "auto", 6, 512, &call); /* the site made under RELAY, now auto's */
  run(comm, "direct", 3, 4096, &call);
  run(comm, "auto", 6, 4096, &call);
  MPI_Comm_free(&comm);
  PAT_Finalize();
  int rc = report_failures("test_fixed_setting", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
