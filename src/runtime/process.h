/*
 * The process: whether libpat is initialised, what MPI provides, the
 * settings, the algorithm setting in force, and libpat's private duplicate
 * of MPI_COMM_WORLD.  Set by PAT_Init (runtime.c), read everywhere below it.
 * Everything else lives with the module that owns it: communicators
 * (comm.h), the cost model (netparams.h), statistics (stats.h), the
 * background thread (background.h).
 */
#ifndef PAT_PROCESS_H
#define PAT_PROCESS_H

#include <mpi.h>

#include "runtime/settings.h"

typedef struct pat_process {
  int initialized;
  int thread_level;     /* what MPI provides */
  int background;       /* the background thread runs */
  int alg;              /* the algorithm setting in force: PAT_ALG, then PAT_UseAlg */
  pat_settings settings;
  MPI_Comm world;       /* private duplicate of MPI_COMM_WORLD (clock sync, model, report) */
  int world_rank, world_size;
  int node_ranks;       /* world ranks on this one's node (MPI's shared-memory split); 0 until known */
  int node_cpus;        /* CPUs in the union of their affinity masks; 0 until known */
} pat_process;

extern pat_process pat_proc;

#endif
