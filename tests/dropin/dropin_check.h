/* Proof, from inside a program that is not linked with libpat, that
 * libpat_mpi intercepted its MPI_Allgather calls: libpat's functions are
 * looked up at run time (they are there only if libpat_mpi was loaded). */
#ifndef PAT_DROPIN_CHECK_H
#define PAT_DROPIN_CHECK_H

#include <mpi.h>

#include "pat.h" /* for the types only: nothing of libpat is linked */

#ifdef __cplusplus
extern "C" {
#endif

/* libpat's function of that name, or NULL when libpat is not loaded. */
void *dropin_symbol(const char *name);

/* libpat's statistics; 0 on success. */
int dropin_stats(PAT_Stats *stats);

/* 0 if libpat ran exactly `calls` all-gathers in this process and the last
 * one on comm ran `alg` (any algorithm for "auto", and ring on a single
 * process, as libpat does); else 1, with a message on stderr. */
long dropin_check(MPI_Comm comm, const char *alg, long calls);

#ifdef __cplusplus
}
#endif

#endif
