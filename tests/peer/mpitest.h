/* The three functions of MPICH's test harness (test/mpi/util/mtest.c) that
 * its coll/nonblocking*.c use, written for the peer run (run_mpich_nbc.sh):
 * initialise, report " No Errors" or the count on rank 0 and finalize, exit status. */
#ifndef PAT_PEER_MPITEST_H
#define PAT_PEER_MPITEST_H
#include <mpi.h>
#include <stdio.h>
#include <unistd.h> /* usleep, which nonblocking3.c uses */

static inline void MTest_Init(int *argc, char ***argv) {
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
}

static inline void MTest_Finalize(int errs) {
  int rank, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all) printf(" Found %d errors\n", all);
    else printf(" No Errors\n");
  }
  fflush(stdout);
  MPI_Finalize();
}

#define MTestReturnValue(errs) ((errs) != 0)
#endif
