/*
 * The blocking all-gathers' channels (runtime/channels.h): a communicator's
 * first blocking call takes two of libpat's channels on every rank; where a
 * rank finds none free, every rank makes duplicates of that communicator
 * instead, and its calls run as on channels; a freed communicator gives its
 * channels back.
 *
 *   test_channels      (run with PAT_CHANNELS=3 PAT_THREAD=0 PAT_ALG=relay)
 *
 * Without the background thread a freed communicator's channels come back at
 * MPI_Comm_free, so which communicator finds them free is the same on every
 * run.  Every call's blocks are checked, what it ran (PAT_LastAlg), and
 * where it went (channels or duplicates).
 */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

static long failures, cases;
static int rank, P;

static void gather(MPI_Comm comm, const char *what, const char *expect, int channels) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  const int count = 1000;
  int *mine = malloc(sizeof(int) * count), *all = malloc(sizeof(int) * count * (size_t)n);
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < count; i++) mine[i] = me * 7919 + c * 31 + i;
    int rc = PAT_Allgather(mine, count, MPI_INT, all, count, MPI_INT, comm);
    CHECK(rc == MPI_SUCCESS, "%s call %d: rc %d", what, c, rc);
    long bad = 0;
    for (int r = 0; r < n; r++)
      for (int i = 0; i < count; i++) bad += all[(size_t)r * count + i] != r * 7919 + c * 31 + i;
    CHECK(bad == 0, "%s call %d: %ld wrong ints", what, c, bad);
    const char *ran = PAT_LastAlg(comm);
    CHECK(ran && strcmp(ran, expect) == 0, "%s call %d ran %s, not %s", what, c, ran ? ran : "?", expect);
  }
  free(mine);
  free(all);
  if (n > 1)
    CHECK(pat_debug_on_channels(comm) == channels, "%s went %s", what, channels ? "on duplicates, not on channels"
                                                                                  : "on channels, not on duplicates");
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "");
  PAT_Init();
  MPI_Comm a, b, c, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  gather(a, "first communicator", "relay", 1);        /* takes 2 of the 3 channels */
  gather(b, "second communicator", "relay", 0);       /* 1 left: duplicates, on every rank */
  gather(MPI_COMM_SELF, "MPI_COMM_SELF", "ring", 1);  /* one rank needs no channel */
  MPI_Comm_free(&a);                                  /* gives its 2 back */
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  gather(c, "third communicator", "relay", 1);
  gather(b, "second communicator again", "relay", 0); /* decided at its first call */
  MPI_Comm_free(&c);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  gather(half, "reversed half", P > 3 ? "relay" : "ring", 1);
  MPI_Comm_free(&half);
  MPI_Comm_free(&b);
  PAT_Finalize();
  int rc = report_failures("test_channels", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
