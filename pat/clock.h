/*
 * The common clock.  Every time exchanged between ranks is in nanoseconds on
 * world rank 0's clock: local monotonic time plus an offset estimated at
 * PAT_Init by ping-pong along a binomial tree on rank 0 (each rank with the
 * one that syncs it): the offset lies within the bounds that the hop's
 * samples set together, sampled on past PAT_CLOCK_SAMPLES while they leave
 * it uncertain (a descheduled rank).
 *
 * A test can add an artificial skew to each rank's local clock
 * (PAT_TEST_CLOCK_SKEW), to prove that the correction works on one host.
 */
#ifndef PAT_CLOCK_H
#define PAT_CLOCK_H

#include <mpi.h>
#include <stdint.h>

/* This rank's injected skew, ns (0: none); call once at init. */
void pat_clock_setup(int64_t skew_ns);
/* Local monotonic time (with any injected skew), ns. */
int64_t pat_clock_local_ns(void);
/* Estimate this rank's offset to rank 0 of comm (collective). */
int pat_clock_sync(MPI_Comm comm, int samples);
int64_t pat_clock_offset_ns(void);
/* How well the offset is known, ns: the width of the interval it lies in,
 * summed over the hops to rank 0; the error is at most half of it, and it
 * is at most the sum of the hops' shortest round trips. */
int64_t pat_clock_best_rtt_ns(void);
/* Now, on the common clock. */
int64_t pat_clock_global_ns(void);

#endif
