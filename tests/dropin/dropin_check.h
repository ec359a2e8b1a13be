/* Proof, from inside a program that is not linked with libpat, that
 * libpat_mpi intercepted its MPI_Allgather and MPI_Allgatherv calls:
 * libpat's functions are looked up at run time (they are there only if
 * libpat_mpi was loaded). */
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

/* 0 if libpat is loaded and counted exactly `calls` all-gathers and
 * all-gathervs in this process (its statistics in *st); else 1, with a
 * message on stderr. */
long dropin_check_count(long calls, PAT_Stats *st);

/* 0 if libpat ran exactly `calls` all-gathers and all-gathervs in this
 * process, each of them `alg` (any algorithm for "auto"; ring on a single
 * process, as libpat does), and the last one on comm ran `alg` too; else 1,
 * with a message on stderr. */
long dropin_check(MPI_Comm comm, const char *alg, long calls);

#ifdef __cplusplus
}
#endif

#endif
