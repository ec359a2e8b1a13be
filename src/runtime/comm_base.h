/*
 * What every part of a communicator's state may know of its communicator:
 * the handles and the shape, fixed when the state is made (comm.c).  The
 * parts (plan.h, retire.h, report.h) take this and their own state, never
 * the whole pat_comm_state, so that none reaches into another's.
 */
#ifndef PAT_COMM_BASE_H
#define PAT_COMM_BASE_H

#include <mpi.h>

typedef struct pat_comm_base {
  MPI_Comm user;  /* the application's communicator (its handle, for clean-up and names) */
  MPI_Comm priv;  /* where this rank receives the schedules' and retirement's messages (a channel of libpat's;
                     tags keep them apart); the arrival exchange has its own (pat_exchange) */
  const struct pat_route *route; /* where the other ranks receive them (exec/buffers.h) */
  int P, rank;
  const int *node; /* node id of every rank (P entries, the same on every rank: comm.c) */
  const struct pat_nodes *nodes; /* its map (algorithms.h), made once per communicator for the builders */
  int background; /* a background thread may work on it (the same on every rank) */
} pat_comm_base;

#endif
