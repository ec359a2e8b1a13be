/*
 * Memory a replay keeps for the next one.  A selection replays several
 * schedules per call, each with arrays the size of its ops; allocating and
 * freeing them every time made the allocator hand pages back to the system
 * and fault them in again: 20% of the decision engine test's CPU time.  A space
 * keeps each array at its largest size so far; its owner (the selection's
 * cache, one per decision engine) frees it.  Not shared between threads.
 *
 * Pure C, no MPI.
 */
#ifndef PAT_MODEL_REPLAY_SPACE_H
#define PAT_MODEL_REPLAY_SPACE_H

#include <stddef.h>

#define PAT_REPLAY_SLOTS 16 /* the replay's 12 (model_fluid.c) and its network's 4 (model_net.h) */

typedef struct pat_replay_space {
  void *buf[PAT_REPLAY_SLOTS];
  size_t cap[PAT_REPLAY_SLOTS]; /* bytes */
  /* the network's per-port lists of flows, kept with their capacities */
  size_t **port, *pcap;
  size_t nports;
} pat_replay_space;

/* slot's array of at least `bytes` bytes, its contents undefined (zeroed:
 * the first `bytes` set to 0); NULL when out of memory. */
void *pat_space_get(pat_replay_space *sp, int slot, size_t bytes);
void *pat_space_zeroed(pat_replay_space *sp, int slot, size_t bytes);
/* slot's array grown to at least `bytes`, what it held kept. */
void *pat_space_grow(pat_replay_space *sp, int slot, size_t bytes);
/* nports port lists (the ones past the kept ones empty); returns 0 or -1. */
int pat_space_ports(pat_replay_space *sp, size_t nports);
void pat_replay_space_free(pat_replay_space *sp);

#endif
