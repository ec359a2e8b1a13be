/*
 * How long the foreground may sleep between tests while it waits for a
 * schedule's messages (pat_exec.nap_ns): long transfers need no spinning.
 *
 * Waiting in MPI_Waitsome spins (Open MPI yields, but is scheduled again at
 * once), and on a machine whose CPUs also carry the network (the emulated
 * cluster: the kernel's TCP and tbf work on the same cores) every rank that
 * spins takes CPU from the transfers it waits for (BENCHMARKS.md, History,
 * 2026-11-23).
 */
#ifndef PAT_WAIT_NAP_H
#define PAT_WAIT_NAP_H

#include <stdint.h>

#include "model/model.h"
#include "algorithms/sched/schedule.h"

/* Rank self's smallest message in schedule s, in blocks; 0 when self has
 * no data message.  Depends on the schedule only: classic schedules keep it
 * beside them. */
double pat_wait_smallest_blocks(const pat_sched *s, int self);

/* The nap for a rank whose smallest message is smallest_blocks blocks of
 * block_bytes, in a schedule of algorithm alg, under the cost model mp:
 * 1/16 of the model's time of that message (a completion is noticed at most
 * that late), at most 50 us; 0 (wait in MPI) when that is under 10 us. */
int64_t pat_wait_nap_model_ns(double smallest_blocks, int alg, double block_bytes, const pat_model_params *mp);
/* The same, at least 50 us where this node has more ranks than the process
 * has CPUs (pat_node_oversubscribed), unless PAT_WAIT_NAP sets the nap (0:
 * none; only where smallest_blocks > 0). */
int64_t pat_wait_nap_ns(double smallest_blocks, int alg, double block_bytes, const pat_model_params *mp);

/* The nap of a foreground wait whose messages the model does not time (a
 * queued operation's request, pat_nbc_wait): PAT_WAIT_NAP's when it is set
 * (0: none), else 50 us where the node is oversubscribed and none
 * elsewhere (spinning, as MPI's own blocking calls do). */
int64_t pat_wait_nap_plain_ns(void);

/* Has this process's node more ranks (MPI's shared-memory split of world)
 * than CPUs its ranks may run on (the union of their affinity masks)?  Then every spinning thread takes a CPU
 * from a rank with work: waits nap instead, and the background thread polls
 * less often.  Computed once, after pat_comms_init (pat_proc.node_ranks, node_cpus).  On the emulated cluster a
 * host is a node, so the ranks of the other hosts on the same CPUs are not
 * counted. */
int pat_node_oversubscribed(void);

#endif
