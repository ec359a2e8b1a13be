/*
 * Retiring a communicator the application freed.  MPI_Comm_free is local,
 * so nothing done inside it may wait for another rank.  But other ranks may
 * have contributed to the communicator's next arrival exchange ahead of a
 * call that will never come, and background threads may have started that
 * call's plan.  So the state outlives the application's handle: the freeing
 * rank contributes "no call follows" to a pending exchange, and the
 * background thread (or PAT_Finalize) finishes the retirement without
 * blocking:
 *   1. the exchange in flight completes (every rank contributes, each when
 *      it frees the communicator or finalizes);
 *   2. every rank cancels its plan's receives, sends a "fin" to every
 *      other rank, and receives and discards everything up to each rank's
 *      fin: a rank's messages arrive in order, so after its fin nothing more
 *      comes from it.  Messages a background plan sent ahead, or an
 *      erroneous call left (ranks that passed different counts ran
 *      different schedules), are drained so, and the channels they came on
 *      go back clean: another communicator takes them next (channels.h);
 *   3. the state is freed, its channels given back.
 * Without the background thread no plan runs ahead and the state goes at
 * once: only an erroneous call's leftovers could then reach the next
 * communicator to take the channels.
 * Every decision in it (whether to exchange, whether to send fins) is made
 * from agreed inputs, so all ranks take the same steps.
 */
#ifndef PAT_RETIRE_H
#define PAT_RETIRE_H

#include <mpi.h>

#include "pat/exchange.h"
#include "runtime/comm_base.h"
#include "runtime/plan.h"

typedef struct pat_retirement {
  int stage;              /* enum in retire.c; 0 while the communicator is live */
  MPI_Request *fin_sends; /* P requests */
  unsigned char *fin_seen; /* P flags: the fin of rank r arrived */
  int fins_left;
} pat_retirement;

/* Start retiring (the communicator's lock held; never blocks): x is its
 * next call's exchange.  may_follow: ranks may have contributed early to
 * that exchange (agreed). */
void pat_retire_begin(pat_retirement *rt, const pat_comm_base *b, pat_exchange *x, int may_follow);
/* Advance without blocking, dropping the planner's plan once the exchange
 * is complete; 1 when the state can be freed. */
int pat_retire_progress(pat_retirement *rt, const pat_comm_base *b, pat_exchange *x, pat_planner *pl);
/* Free what retiring allocated. */
void pat_retire_free(pat_retirement *rt);

#endif
