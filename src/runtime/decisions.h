/*
 * The decision log (PAT_DECISIONS=prefix): after every call of auto, rank 0
 * of the communicator appends one line to PREFIX.WORLDRANK saying what the
 * call ran, how long it took there and what the site's engine holds then
 * (mode, guard, measured costs per regime: pat_engine_describe_site).  It is
 * the evidence for why auto ran what it ran in a benchmark; off, it costs a
 * test of one byte.
 */
#ifndef PAT_RUNTIME_DECISIONS_H
#define PAT_RUNTIME_DECISIONS_H

#include <stdint.h>

#include "runtime/comm.h"
#include "runtime/stats.h"

int pat_decisions_on(void);

/* The call at `site` (call number `call` on the communicator) ran alg,
 * exchanged or not (then st says why: kept, explored or chosen, and in
 * which regime), and took elapsed_ns on this rank. */
void pat_decisions_write(const pat_comm_state *cs, int site, long long call, const pat_call_stats *st, int alg,
                         int exchanged, int64_t elapsed_ns);

#endif
