/*
 * Fortran's MPI_IN_PLACE and MPI_BOTTOM are not C's: a Fortran program
 * passes the address of a variable the MPI library owns, and the library's
 * own Fortran bindings compare against that address before calling C.  Code
 * that takes a Fortran call over (the drop-in's Fortran bindings, the
 * Fortran PAT_Allgather) must translate them the same way.
 */
#ifndef PAT_FORTRAN_SENTINEL_H
#define PAT_FORTRAN_SENTINEL_H

#include <mpi.h>

/* buf, or MPI_IN_PLACE if buf is the Fortran MPI_IN_PLACE. */
const void *fsentinel_in_place(const void *buf) __attribute__((visibility("hidden")));
/* buf, or MPI_BOTTOM if buf is the Fortran MPI_BOTTOM. */
void *fsentinel_bottom(void *buf) __attribute__((visibility("hidden")));

#endif
