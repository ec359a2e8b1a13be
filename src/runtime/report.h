/*
 * The finalize report (PAT_REPORT=1, or PAT_VERBOSE>=2): per call site
 * (communicator, count, datatype) the calls, the algorithms chosen, the mean
 * and largest elapsed time in the call (e = exit - arrival) and the error of
 * the arrival prediction.  Every rank keeps its own sites; PAT_Finalize
 * gathers them to world rank 0, which merges the ranks of each site and
 * prints one table on stderr.
 */
#ifndef PAT_REPORT_H
#define PAT_REPORT_H

#include <mpi.h>
#include <stdint.h>

struct pat_comm_state;

/* Read the setting (rank 0's value holds for every rank; collective over
 * pat_rt.world) and clear the tables.  Called by PAT_Init. */
int pat_report_init(void);
/* Record one call (foreground, cs->lock held). */
void pat_report_call(struct pat_comm_state *cs, int count, MPI_Datatype type, long long bytes, int alg,
                     int64_t elapsed_ns, int predicted, double pred_err_s);
/* Gather, print on world rank 0, free (collective over pat_rt.world).
 * Called by PAT_Finalize. */
void pat_report_finalize(void);

#endif
