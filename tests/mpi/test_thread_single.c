/*
 * MPI initialised with MPI_THREAD_SINGLE: PAT warns once (rank 0) and runs
 * without its background thread, and every algorithm still gives correct
 * results (instrumentation included).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpitest.h"
#include "pat.h"

int main(int argc, char **argv) {
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long failures = 0, cases = 0;
  if (PAT_Init() != MPI_SUCCESS) failures++;
  const int n = 5000;
  int *mine = malloc(n * sizeof *mine), *all = malloc((size_t)n * P * sizeof *all);
  for (int a = 0; a < PAT_AlgCount() + 1; a++) {
    const char *alg = a < PAT_AlgCount() ? PAT_AlgName(a) : "auto";
    PAT_UseAlg(alg);
    for (int it = 0; it < 5; it++) {
      PAT_ProcessingStart();
      PAT_Edge(50);
      PAT_ProcessingEnd();
      for (int i = 0; i < n; i++) mine[i] = rank * 31 + i + it;
      int rc = PAT_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD), wrong = 0;
      if (rc == MPI_ERR_UNSUPPORTED_OPERATION) break; /* not built yet: the matrix test holds it to account */
      for (int q = 0; q < P; q++)
        for (int i = 0; i < n; i++) wrong += all[q * n + i] != q * 31 + i + it;
      cases++;
      if (rc != MPI_SUCCESS || wrong) {
        failures++;
        fprintf(stderr, "FAIL rank %d %s: rc=%d wrong=%d\n", rank, alg, rc, wrong);
      }
    }
  }
  free(mine);
  free(all);
  if (PAT_Finalize() != MPI_SUCCESS) failures++;
  int bad = report_failures("thread single", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return bad;
}
