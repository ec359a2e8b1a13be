/* The communicators of the conformance stress test: a few slots, each
 * holding a communicator made from MPI_COMM_WORLD (world itself, a dup, a
 * split in reversed or random rank order, a sub-communicator of 2..P ranks
 * made by split or by MPI_Comm_create_group).  Before each case some slots
 * are replaced: every rank frees their communicators in its own order
 * (ascending, odd ranks descending, or shuffled per rank), then all create
 * the new ones in slot order.
 *
 * What a slot holds after case k depends only on (seed, k) and earlier
 * cases' choices, all computed locally, so a run can start at any case with
 * the slots it would have had (pool_start): same members, same rank order,
 * fresh communicators. */
#ifndef STRESS_POOL_H
#define STRESS_POOL_H

#include <mpi.h>
#include <stddef.h> /* size_t: MPICH's mpi.h does not bring it */
#include <stdint.h>

#define POOL_SLOTS 4
#define POOL_MAXP 256

enum { COMM_WORLD, COMM_DUP, COMM_SPLIT_REVERSED, COMM_SPLIT_RANDOM, COMM_SUB_SPLIT, COMM_SUB_GROUP, COMM_KINDS };

/* A communicator's shape: world ranks in the new communicator's rank order. */
typedef struct comm_desc {
  int kind;
  int size;
  int order[POOL_MAXP];
  int64_t made_at; /* the case that created it (-1: the initial pool) */
} comm_desc;

typedef struct pool {
  uint64_t seed;
  int P, rank; /* in MPI_COMM_WORLD */
  comm_desc desc[POOL_SLOTS];
  MPI_Comm comm[POOL_SLOTS]; /* MPI_COMM_NULL where this rank is not a member */
} pool;

/* The slots as they are just before case `first` (replacements of cases
 * 0..first-1 already applied), created collectively. */
void pool_start(pool *p, uint64_t seed, int64_t first);
/* Case k's replacements: frees in this rank's order, then creations. */
void pool_churn(pool *p, int64_t k);
/* Frees every slot (rank-dependent order). */
void pool_finish(pool *p);
/* "split reversed, 4 ranks: world 3,2,1,0 (made at case 17)" */
void comm_desc_text(const comm_desc *d, char *out, size_t n);

#endif
