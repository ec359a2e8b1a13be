/*
 * Process-wide runtime state and the per-communicator state it keeps.
 * Internal to the library.
 */
#ifndef PAT_RUNTIME_H
#define PAT_RUNTIME_H

#include <mpi.h>
#include <pthread.h>

#include "algorithms.h"
#include "pat.h"

typedef struct pat_comm_state {
  MPI_Comm user;  /* the application's communicator (handle, for clean-up) */
  MPI_Comm data;  /* private duplicate carrying schedule traffic */
  MPI_Comm ctrl;  /* private duplicate carrying arrival exchanges */
  int P, rank;
  pat_sched *classic[PAT_ALG_COUNT]; /* cached schedules of this rank (classic algorithms) */
  int last_alg;
  long long calls;
  struct pat_comm_state *next;
} pat_comm_state;

typedef struct pat_runtime {
  int initialized;
  int thread_level;   /* what MPI provides */
  int alg;            /* PAT_ALG_AUTO or a fixed algorithm id */
  int verbose;        /* PAT_VERBOSE */
  int keyval;         /* attribute holding a pat_comm_state on user communicators */
  pthread_mutex_t lock; /* guards the list of communicator states and stats */
  pat_comm_state *comms;
  PAT_Stats stats;
} pat_runtime;

extern pat_runtime pat_rt;

/* Record an error message for PAT_Error_string and return code. */
int pat_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The state of a user communicator, created (collectively) on first use. */
int pat_comm_get(MPI_Comm comm, pat_comm_state **out);
/* Release every communicator state (PAT_Finalize). */
void pat_comm_release_all(void);
/* Cached classic schedule of this rank (built on first use). */
int pat_comm_classic(pat_comm_state *cs, int alg, const pat_sched **out);

#endif
