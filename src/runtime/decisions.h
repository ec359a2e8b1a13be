/*
 * The decision log (PAT_DECISIONS=prefix): after every call of auto, every
 * rank appends one line to PREFIX.WORLDRANK saying what the call ran, how
 * long it took there, when it arrived and left (the common clock: the ranks'
 * lines of one call give its critical path, bench/bfs/critical_path.py) and
 * what the site's engine holds then (mode, guard, measured costs per regime:
 * pat_engine_describe_site).  It is the evidence for why auto ran what it ran
 * in a benchmark; off, it costs a test of one byte.
 */
#ifndef PAT_RUNTIME_DECISIONS_H
#define PAT_RUNTIME_DECISIONS_H

#include <stdint.h>

#include "runtime/comm.h"
#include "runtime/stats.h"

int pat_decisions_on(void);

/* The call at `site` (call number `call` on the communicator) ran alg,
 * exchanged or not (then st says why: kept, explored or chosen, and in
 * which regime), arriving at arrival_ns and leaving at exit_ns on this rank. */
void pat_decisions_write(const pat_comm_state *cs, int site, long long call, const pat_call_stats *st, int alg,
                         int exchanged, int64_t arrival_ns, int64_t exit_ns);

#endif
