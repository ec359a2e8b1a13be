/*
 * The state libpat keeps per user communicator, created on the first
 * all-gather on it (collectively) and kept as an MPI attribute, so that it
 * goes with the communicator.  Its parts belong to the modules named beside
 * them; this file owns only the communicator's identity and lifecycle, the
 * registry the background thread walks, and the communicator that
 * instrumentation predictions go to.
 */
#ifndef PAT_COMM_H
#define PAT_COMM_H

#include <mpi.h>
#include <pthread.h>

#include "pat/exchange.h"
#include "pat/sites.h"
#include "runtime/plan.h"
#include "runtime/report.h"

typedef struct pat_comm_state {
  MPI_Comm user;    /* the application's communicator (its handle, for clean-up) */
  MPI_Comm data;    /* private duplicate for classic schedules */
  MPI_Comm data_aa; /* private duplicate for arrival-aware schedules */
  MPI_Comm ctrl;    /* private duplicate for arrival exchanges */
  int P, rank;
  int *node;        /* node id of every rank (ranks sharing memory share it) */
  pthread_mutex_t lock; /* the foreground holds it for a whole call; the background only tries */
  pat_exchange x;          /* the arrival exchange of the next call (pat/exchange.h) */
  pat_sites sites;         /* call-site history: predicts the next arrival (pat/sites.h) */
  pat_planner planner;     /* plans and schedule caches (plan.h) */
  pat_comm_report report;  /* per-site statistics for PAT_REPORT (report.h) */
  struct pat_comm_state *next;
} pat_comm_state;

/* At PAT_Init: the attribute key and the node of every world rank
 * (collective over world). */
int pat_comms_init(MPI_Comm world);
/* At PAT_Finalize: release every communicator's state, free the key. */
void pat_comms_finalize(void);

/* The state of a user communicator, created on first use (collective). */
int pat_comm_get(MPI_Comm comm, pat_comm_state **out);
/* The state of a communicator that already has one, else NULL. */
pat_comm_state *pat_comm_find(MPI_Comm comm);

/* The communicator of the last call: where instrumentation predictions go. */
void pat_comm_set_current(pat_comm_state *cs);
pat_comm_state *pat_comm_current(void);

/* Call fn on every communicator whose lock is free (with it held); a
 * communicator is not freed while this runs. */
void pat_comm_each_idle(void (*fn)(pat_comm_state *cs, void *ctx), void *ctx);

#endif
