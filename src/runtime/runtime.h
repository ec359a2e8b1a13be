/*
 * Process-wide runtime state and the per-communicator state it keeps.
 * Internal to the library.
 */
#ifndef PAT_RUNTIME_H
#define PAT_RUNTIME_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "algorithms/algorithms.h"
#include "pat/exchange.h"
#include "exec/executor.h"
#include "model/model.h"
#include "pat.h"
#include "pat/predict.h"
#include "model/select.h"

/* What a call will do, decided from the exchanged records; for arrival-aware
 * algorithms also the schedule and its (possibly started) execution. */
typedef struct pat_plan {
  int decided;
  int setting;      /* the setting it was decided under */
  int64_t bytes;    /* the block size it was decided for */
  int alg, root;
  int replanned;    /* decided in the foreground because the inputs changed */
  int64_t tau_ns;
  int64_t *arrival; /* P predicted arrivals, common clock */
  int has_exec;     /* schedule built, stage allocated, executor ready */
  pat_sched sched;
  pat_buffers buf;
  pat_exec exec;
} pat_plan;

#define PAT_SITES 4
typedef struct pat_site {
  int count;
  MPI_Datatype type;
  pat_gap_history gaps;
  int successor; /* index of the site called after this one last time, or -1 */
} pat_site;

typedef struct pat_comm_state {
  MPI_Comm user;    /* the application's communicator (handle, for clean-up) */
  MPI_Comm data;    /* private duplicate for classic schedules */
  MPI_Comm data_aa; /* private duplicate for arrival-aware schedules */
  MPI_Comm ctrl;    /* private duplicate for arrival exchanges */
  int P, rank;
  pthread_mutex_t lock; /* the foreground holds it for a whole call; the background only tries */
  pat_sched *classic[PAT_ALG_COUNT]; /* cached schedules of this rank (classic algorithms) */
  int last_alg;
  long long calls;
  pat_exchange x;
  pat_plan plan;
  pat_select_cache select; /* compiled classic schedules for the cost model */
  int *node;                /* node id of every rank (ranks sharing memory share it) */
  pat_site sites[PAT_SITES];
  int nsites, last_site;
  int64_t last_exit_ns; /* common clock */
  int64_t last_bytes;
  uint64_t last_plan_hash; /* digest of the last decision's inputs and outputs (tests) */
  int report_id;           /* report.c: 1 + its entry in the finalize report, 0 before its first call */
  struct pat_comm_state *next;
} pat_comm_state;

typedef struct pat_runtime {
  int initialized;
  int thread_level;    /* what MPI provides */
  int background;      /* the background thread runs */
  int alg;             /* PAT_ALG_AUTO or a fixed algorithm id */
  int verbose;         /* PAT_VERBOSE */
  int keyval;          /* attribute holding a pat_comm_state on user communicators */
  MPI_Comm world;      /* private duplicate of MPI_COMM_WORLD (clock sync, parameters) */
  int world_rank;
  pthread_mutex_t lock; /* guards the list of communicator states, stats, current */
  pat_comm_state *comms;
  pat_comm_state *current; /* communicator of the last call: where PAT_Edge predictions go */
  PAT_Stats stats;
  /* the cost model (identical on every rank: rank 0 reads or measures, then broadcasts) */
  double alpha, beta;       /* the quick ping-pong estimate */
  pat_model_params model;
  char model_source[512];
  /* compute-phase instrumentation */
  int instrumented;      /* PAT_ProcessingStart was ever called */
  int phase_active;
  int phase_contributed; /* this phase already contributed a prediction */
  int64_t phase_start_ns;
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

/* Does a call with this setting exchange arrivals? */
int pat_setting_needs_exchange(int setting);
/* Contribute this rank's record to the communicator's next exchange, if it
 * has not yet (cs->lock held). */
int pat_contribute(pat_comm_state *cs, int64_t arrival_ns, int64_t block_bytes, int kind);

/* Plans (plan.c); cs->lock held. */
void pat_plan_decide(pat_comm_state *cs, int setting, int64_t bytes, int64_t bg_start_ns, int replanned);
int pat_plan_prepare_exec(pat_comm_state *cs);
int pat_plan_progress(pat_comm_state *cs, int *busy);
void pat_plan_drop(pat_comm_state *cs);

/* Background thread (background.c). */
int pat_background_start(void);
void pat_background_stop(void);
void pat_background_wake(void);

/* Choice of algorithm for a PAP (decide.c): identical on every rank for
 * identical inputs. */
int pat_choose(pat_comm_state *cs, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns, int setting,
               int *root);
int64_t pat_tau_ns(int alg, int64_t bytes);

/* The cost model's parameters (netparams.c): PAT_MODEL file or estimate. */
int pat_netparams_init(void);

/* Test hooks (debug.c).  A prediction hook replaces every arrival a rank
 * contributes, so tests can feed deliberately wrong predictions. */
extern int64_t (*pat_test_prediction_hook)(int rank, int P, int64_t seq, int64_t predicted);
uint64_t pat_plan_digest(const pat_comm_state *cs);
int pat_debug_last_plan(MPI_Comm comm, uint64_t *digest, int *alg, int64_t *arrivals);

/* Thread placement (bind.c). */
int pat_bind_background_thread(void);

#endif
