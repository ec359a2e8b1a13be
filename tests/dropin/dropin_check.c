#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "dropin_check.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *dropin_symbol(const char *name) { return dlsym(RTLD_DEFAULT, name); }

int dropin_stats(PAT_Stats *stats) {
  int (*get)(PAT_Stats *) = (int (*)(PAT_Stats *))dropin_symbol("PAT_GetStats");
  if (!get) return 1;
  return get(stats) == MPI_SUCCESS ? 0 : 1;
}

/* libpat's index of algorithm `name` (PAT_AlgName), or -1. */
static int alg_index(const char *name) {
  int (*count)(void) = (int (*)(void))dropin_symbol("PAT_AlgCount");
  const char *(*alg_name)(int) = (const char *(*)(int))dropin_symbol("PAT_AlgName");
  if (!count || !alg_name) return -1;
  for (int i = 0, n = count(); i < n; i++)
    if (alg_name(i) && strcmp(alg_name(i), name) == 0) return i;
  return -1;
}

long dropin_check_count(long calls, PAT_Stats *st) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (dropin_stats(st) != 0) {
    fprintf(stderr,
            "FAIL world rank %d: libpat is not loaded or not initialised: MPI_Allgather(v) was not intercepted\n",
            rank);
    return 1;
  }
  if (st->calls != calls) {
    fprintf(stderr, "FAIL world rank %d: libpat counted %lld all-gathers, the program made %ld\n", rank, st->calls,
            calls);
    return 1;
  }
  return 0;
}

long dropin_check(MPI_Comm comm, const char *alg, long calls) {
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(comm, &P);
  const char *(*last)(MPI_Comm) = (const char *(*)(MPI_Comm))dropin_symbol("PAT_LastAlg");
  PAT_Stats st;
  if (!last) {
    fprintf(stderr, "FAIL world rank %d: libpat is not loaded: MPI_Allgather(v) was not intercepted\n", rank);
    return 1;
  }
  if (dropin_check_count(calls, &st)) return 1;
  if (strcmp(alg, "auto") != 0) { /* every call, not only the last: the algorithm asked for, ring on one process */
    int a = alg_index(alg), ring = alg_index("ring");
    int slots = (int)(sizeof st.calls_per_alg / sizeof st.calls_per_alg[0]);
    long long ran = a >= 0 && a < slots ? st.calls_per_alg[a] : 0;
    if (ring >= 0 && ring < slots && ring != a) ran += st.calls_per_alg[ring];
    if (ran != calls) {
      fprintf(stderr, "FAIL world rank %d: %lld of the %ld all-gathers ran %s (or ring on a single process)\n", rank,
              ran, calls, alg);
      return 1;
    }
  }
  const char *ran = last(comm);
  const char *want = P == 1 ? "ring" : alg;
  if (calls > 0 && (!ran[0] || (strcmp(alg, "auto") != 0 && strcmp(ran, want) != 0))) {
    fprintf(stderr, "FAIL world rank %d: the last all-gather ran '%s', expected %s\n", rank, ran,
            strcmp(alg, "auto") ? want : "any algorithm");
    return 1;
  }
  return 0;
}
