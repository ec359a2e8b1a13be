/*
 * The report's rows of the non-blocking and persistent all-gathers
 * (PAT_REPORT=1): per form (non-blocking, persistent), schedule that ran,
 * communicator size and block bytes, the calls (or starts) and the mean and
 * largest time from the post (or start) to the completion the background
 * thread saw (none for the non-blocking calls passed to MPI's own, whose
 * completion MPI sees alone: only counted).  Printed by world rank 0 at PAT_Finalize, after the blocking
 * calls' table (report.h) and in its format's spirit.
 *
 * Locks (docs/locks.md): report_nbc_lock, a leaf, held for a row's update.
 */
#ifndef PAT_REPORT_NBC_H
#define PAT_REPORT_NBC_H

#include <mpi.h>
#include <stdint.h>

/* A call completed: form "non-blocking" or "persistent", its schedule
 * (an algorithm's name, "mpi-own"), P, this rank's block in
 * bytes and the time from its post or start to its completion.  Only while
 * the report is on (pat_report_on). */
void pat_report_nbc_add(const char *form, const char *schedule, int P, long long bytes, int64_t elapsed_ns);
/* A call whose completion libpat does not see (a non-blocking one passed to
 * MPI's own): counted in its row, without a time.  Only while the report
 * is on: the caller tests pat_report_on first (the pass-through is hot). */
void pat_report_nbc_count(const char *form, const char *schedule, int P, long long bytes);

/* Collective over world, before pat_report_finalize: rank 0 prints the rows. */
void pat_report_nbc_finalize(MPI_Comm world);

#endif
