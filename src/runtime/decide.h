/*
 * Which algorithm a call runs, and whether it exchanges arrivals first.  A
 * fixed setting is obeyed; "auto" asks the cost model (model/select.h) to
 * predict every algorithm's mean elapsed time for the exchanged arrivals and
 * takes the smallest.  Inputs are the exchanged, quantised arrivals and the
 * model rank 0 broadcast, so every rank decides the same.
 */
#ifndef PAT_DECIDE_H
#define PAT_DECIDE_H

#include <stdint.h>

struct pat_comm_state;

/* Does a call with this setting exchange arrivals? */
int pat_setting_needs_exchange(int setting);

/* Will the next call on cs exchange arrivals, so that ranks may contribute
 * to its exchange ahead of it?  Agreed: every rank answers the same. */
int pat_next_call_exchanges(const struct pat_comm_state *cs);

/* The algorithm (and its root) for a call of `bytes` per block with these
 * arrivals; bg_start_ns: when background work can start (common clock). */
int pat_choose(struct pat_comm_state *cs, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns, int setting,
               int *root);

#endif
