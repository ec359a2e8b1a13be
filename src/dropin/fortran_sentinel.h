/*
 * Fortran's MPI_IN_PLACE and MPI_BOTTOM are not C's: a Fortran program
 * passes the address of a variable the MPI library owns, and the library's
 * own Fortran bindings compare against that address before calling C.  Code
 * that takes a Fortran call over (the drop-in's Fortran bindings, the
 * Fortran PAT_Allgather and PAT_Allgatherv) must translate them the same
 * way, and Fortran integer arrays too.
 */
#ifndef PAT_FORTRAN_SENTINEL_H
#define PAT_FORTRAN_SENTINEL_H

#include <mpi.h>

/* buf, or MPI_IN_PLACE if buf is the Fortran MPI_IN_PLACE. */
const void *fsentinel_in_place(const void *buf) __attribute__((visibility("hidden")));
/* buf, or MPI_BOTTOM if buf is the Fortran MPI_BOTTOM. */
void *fsentinel_bottom(void *buf) __attribute__((visibility("hidden")));

/* An all-gatherv's recvcounts and displs from Fortran (MPI_Fint arrays) as
 * C's int arrays: the Fortran arrays themselves where MPI_Fint is an int
 * (every MPI and compiler libpat is built with), else copies of their
 * entries, one per process of comm (of its remote group for an
 * inter-communicator; none for MPI_COMM_NULL). */
typedef struct fcounts {
  const int *counts, *displs;
  int *copy; /* the copies (one allocation), or NULL */
} fcounts;
/* MPI_SUCCESS, or MPI_ERR_NO_MEM (then there is nothing to free) */
int fcounts_get(fcounts *fc, const MPI_Fint *counts, const MPI_Fint *displs, MPI_Comm comm)
    __attribute__((visibility("hidden")));
void fcounts_free(fcounts *fc) __attribute__((visibility("hidden")));

#endif
