/*
 * The runtime's side of arrival prediction: what this rank tells a
 * communicator's next arrival exchange, and when.  A rank contributes once
 * per exchange: at the first edge of the compute phase, at its end if it had
 * no edge (instrumentation: PAT_ProcessingStart/Edge/End, here), from the
 * call-site history right after the previous call when the application is
 * not instrumented, or else on arrival.  The predictions themselves come
 * from pat/ (phase.h, sites.h).
 */
#ifndef PAT_ARRIVALS_H
#define PAT_ARRIVALS_H

#include <stdint.h>

struct pat_comm_state;

/* Contribute this rank's record to the communicator's next exchange, unless
 * it already has (cs->lock held): block_bytes is the call's key (its block
 * size, or an all-gatherv's shape key, pat/shape.h), shape_hash its exact
 * blocks (0 for equal ones). */
int pat_contribute(struct pat_comm_state *cs, int64_t arrival_ns, int64_t block_bytes, uint64_t shape_hash, int kind);

/* After a call (cs->lock held): contribute the next call's arrival as the
 * call-site history predicts it, when the application is not instrumented
 * and a background thread can progress the exchange. */
void pat_contribute_from_history(struct pat_comm_state *cs);

/* Forget the compute phase (PAT_Init). */
void pat_arrivals_reset(void);

#endif
