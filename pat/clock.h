/*
 * The common clock.  Every time exchanged between ranks is in nanoseconds on
 * world rank 0's clock: local monotonic time plus an offset estimated at
 * PAT_Init by ping-pong with rank 0, keeping the minimum-round-trip sample.
 *
 * PAT_TEST_CLOCK_SKEW (comma-separated nanoseconds, one per world rank) adds
 * an artificial skew to each rank's local clock, so tests can prove that the
 * correction works on a single host.
 */
#ifndef PAT_CLOCK_H
#define PAT_CLOCK_H

#include <mpi.h>
#include <stdint.h>

/* Read the skew setting for this world rank (call once at init). */
void pat_clock_setup(int world_rank);
/* Local monotonic time (with any injected skew), ns. */
int64_t pat_clock_local_ns(void);
/* Estimate this rank's offset to rank 0 of comm (collective). */
int pat_clock_sync(MPI_Comm comm, int samples);
int64_t pat_clock_offset_ns(void);
int64_t pat_clock_best_rtt_ns(void);
/* Now, on the common clock. */
int64_t pat_clock_global_ns(void);

#endif
