/*
 * Where each MPI keeps its Fortran sentinels (see fortran_sentinel.h).  They
 * are looked up by name at run time (RTLD_DEFAULT: the definition every
 * other object binds to, the executable's copy if it has one), so this file
 * needs no Fortran library at link time and works under LD_PRELOAD.
 *
 * Open MPI (4.x): MPI_IN_PLACE and MPI_BOTTOM of mpif.h, `use mpi` and
 * `use mpi_f08` are all the common blocks mpi_fortran_in_place and
 * mpi_fortran_bottom, whose address the library compares under each Fortran
 * compiler's mangling (the four spellings below); libmpi.so itself defines
 * them.
 *
 * MPICH (3.x, 4.x): mpif.h and `use mpi` keep them in a common block of the
 * program; the Fortran library records their addresses in the pointers
 * MPIR_F_MPI_IN_PLACE and MPIR_F_MPI_BOTTOM when Fortran's MPI_INIT runs.
 * `use mpi_f08` passes the variables MPIR_F08_MPI_IN_PLACE and
 * MPIR_F08_MPI_BOTTOM themselves.
 *
 * And an all-gatherv's Fortran integer arrays as C ints (fcounts_get).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "dropin/fortran_sentinel.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

static int matches(const void *buf, const char *const *vars, const char *const *pointers) {
  if (!buf) return 0;
  for (; vars && *vars; vars++) /* the variable's address is the sentinel */
    if (dlsym(RTLD_DEFAULT, *vars) == buf) return 1;
  for (; pointers && *pointers; pointers++) { /* a pointer holds the sentinel's address */
    void *const *p = dlsym(RTLD_DEFAULT, *pointers);
    if (p && *p && *p == buf) return 1;
  }
  return 0;
}

#if defined(OPEN_MPI)
static const char *const in_place_vars[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place", "mpi_fortran_in_place__",
                                            "MPI_FORTRAN_IN_PLACE", NULL};
static const char *const bottom_vars[] = {"mpi_fortran_bottom_", "mpi_fortran_bottom", "mpi_fortran_bottom__",
                                          "MPI_FORTRAN_BOTTOM", NULL};
static const char *const *in_place_ptrs = NULL, *const *bottom_ptrs = NULL;
#elif defined(MPICH)
static const char *const in_place_vars[] = {"MPIR_F08_MPI_IN_PLACE", NULL};
static const char *const bottom_vars[] = {"MPIR_F08_MPI_BOTTOM", NULL};
static const char *const in_place_ptrs[] = {"MPIR_F_MPI_IN_PLACE", NULL};
static const char *const bottom_ptrs[] = {"MPIR_F_MPI_BOTTOM", NULL};
#else
#error "libpat's Fortran support knows the sentinels of Open MPI and MPICH only"
#endif

const void *fsentinel_in_place(const void *buf) {
  return matches(buf, in_place_vars, in_place_ptrs) ? MPI_IN_PLACE : buf;
}

void *fsentinel_bottom(void *buf) { return matches(buf, bottom_vars, bottom_ptrs) ? MPI_BOTTOM : buf; }

/* Defined as 1 to test the copies where MPI_Fint is an int. */
#ifndef PAT_FINT_COPY
#define PAT_FINT_COPY (sizeof(MPI_Fint) != sizeof(int))
#endif

int fcounts_get(fcounts *fc, const MPI_Fint *counts, const MPI_Fint *displs, MPI_Comm comm) {
  fc->counts = (const int *)counts;
  fc->displs = (const int *)displs;
  fc->copy = NULL;
  if (!PAT_FINT_COPY || comm == MPI_COMM_NULL) return MPI_SUCCESS;
  /* before MPI_Init and after MPI_Finalize the call itself is refused by MPI */
  int up = 0, down = 0;
  PMPI_Initialized(&up);
  PMPI_Finalized(&down);
  if (!up || down) return MPI_SUCCESS;
  int inter = 0, n = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    PMPI_Comm_remote_size(comm, &n);
  else
    PMPI_Comm_size(comm, &n);
  if (n <= 0) return MPI_SUCCESS;
  int *copy = malloc(2 * sizeof(int) * (size_t)n);
  if (!copy) return MPI_ERR_NO_MEM;
  for (int i = 0; i < n; i++) {
    copy[i] = (int)counts[i];
    copy[n + i] = (int)displs[i];
  }
  fc->counts = copy;
  fc->displs = copy + n;
  fc->copy = copy;
  return MPI_SUCCESS;
}

void fcounts_free(fcounts *fc) {
  free(fc->copy);
  fc->copy = NULL;
}
