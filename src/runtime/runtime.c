/* PAT_Init / PAT_Finalize and the small public queries. */
#include "runtime/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "exec/executor.h"
#include "pat.h"
#include "pat/clock.h"
#include "runtime/arrivals.h"
#include "runtime/background.h"
#include "runtime/timeline.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/finalize_hook.h"
#include "runtime/netparams.h"
#include "runtime/report.h"
#include "runtime/stats.h"

pat_process pat_proc = {.world = MPI_COMM_NULL};

/*
 * Every rank reads its own environment, then all compare, in one
 * all-reduce that every rank makes whatever it read: a bad value on any rank,
 * or a JOB setting that differs between ranks, makes PAT_Init fail on every
 * rank alike (so no rank goes on alone into a collective the others skip).
 * The rank with the bad value prints why.
 */
static int agree_on_settings(const char *local_error) {
  enum { MAXS = 16 };
  int64_t mine[MAXS], min[MAXS], max[MAXS];
  int n = 0;
  mine[n++] = local_error[0] != 0; /* slot 0: this rank could not read its settings */
  for (int i = 0; i < pat_setting_count && n < MAXS; i++)
    if (pat_setting_table[i].scope == PAT_SCOPE_JOB)
      mine[n++] = local_error[0] ? 0 : pat_setting_table[i].value_key(&pat_proc.settings);
  int rc = MPI_Allreduce(mine, min, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(mine, max, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Init: cannot compare settings between ranks");
  if (local_error[0]) {
    fprintf(stderr, "libpat: %s\n", local_error);
    return pat_fail(MPI_ERR_ARG, "PAT_Init: %s", local_error);
  }
  if (max[0]) return pat_fail(MPI_ERR_ARG, "PAT_Init: a setting is invalid on another rank (that rank says which)");
  char differ[256] = "";
  for (int i = 0, k = 1; i < pat_setting_count && k < n; i++) {
    if (pat_setting_table[i].scope != PAT_SCOPE_JOB) continue;
    size_t used = strlen(differ);
    if (min[k] != max[k])
      snprintf(differ + used, sizeof differ - used, "%s%s", used ? ", " : "", pat_setting_table[i].name);
    k++;
  }
  if (differ[0]) {
    if (pat_proc.world_rank == 0) fprintf(stderr, "libpat: %s must be the same on every rank, and is not\n", differ);
    return pat_fail(MPI_ERR_ARG, "PAT_Init: %s must be the same on every rank, and is not", differ);
  }
  return MPI_SUCCESS;
}

static int start_thread_if_possible(void) {
  pat_proc.background = 0;
  if (!pat_proc.settings.thread) return MPI_SUCCESS;
  /* auto defers to NATIVE on every communicator of a one-node job (decide/engine.h):
   * the thread would have nothing to do (PAT_UseAlg to an arrival-aware
   * algorithm later runs it in the foreground, as PAT_THREAD=0 does) */
  if (pat_settings_defer_one_node(&pat_proc.settings) && pat_comms_world_one_node_native())
    return MPI_SUCCESS;
  /* every rank runs the thread or none does (retirement and early
   * contributions assume it): the levels MPI granted may differ, when the
   * drop-in asked for MULTIPLE on some ranks only */
  int mine = pat_proc.thread_level >= MPI_THREAD_MULTIPLE, all = 0;
  int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, pat_proc.world);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Init: cannot agree on the background thread");
  if (!all) {
    int level = mine ? MPI_THREAD_MULTIPLE : pat_proc.thread_level, lowest = level;
    MPI_Reduce(&level, &lowest, 1, MPI_INT, MPI_MIN, 0, pat_proc.world);
    if (pat_proc.world_rank == 0)
      fprintf(stderr,
              "libpat: MPI provides %s, not MPI_THREAD_MULTIPLE, on some ranks: running without the background "
              "thread (arrival-aware algorithms run entirely in the foreground)\n",
              pat_thread_level_name(lowest));
    return MPI_SUCCESS;
  }
  return pat_background_start();
}

/* Everything that needs the world duplicate, in the same order on every rank. */
static int set_up(void) {
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &pat_proc.world);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Init: cannot duplicate MPI_COMM_WORLD");
  MPI_Comm_set_errhandler(pat_proc.world, MPI_ERRORS_RETURN);
  int *tag_ub, found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  pat_exec_set_tag_ub(found ? *tag_ub : 32767);
  pat_exec_set_trace(pat_proc.settings.trace);
  pat_exec_set_clock(pat_timeline_on() ? pat_clock_global_ns : NULL);
  rc = pat_report_init(pat_proc.world, pat_proc.settings.report);
  if (rc == MPI_SUCCESS) rc = pat_clock_sync(pat_proc.world, pat_proc.settings.clock_samples);
  if (rc == MPI_SUCCESS) rc = pat_netparams_init(pat_proc.world, pat_proc.settings.model);
  if (rc == MPI_SUCCESS) rc = pat_comms_init(pat_proc.world);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&pat_proc.world);
    char why[600];
    snprintf(why, sizeof why, "%s", PAT_Error_string(rc)); /* keep the cause's own message */
    return pat_fail(rc, "PAT_Init: %s", why);
  }
  return MPI_SUCCESS;
}

int PAT_Init(void) {
  int mpi_up = 0, mpi_down = 0;
  MPI_Initialized(&mpi_up);
  MPI_Finalized(&mpi_down);
  if (!mpi_up || mpi_down) return pat_fail(MPI_ERR_OTHER, "PAT_Init: call it after MPI_Init and before MPI_Finalize");
  if (pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Init: already initialised");
  char error[512] = "";
  pat_settings_read(&pat_proc.settings, error, sizeof error);
  pat_errors_set_verbose(pat_proc.settings.verbose);
  MPI_Comm_rank(MPI_COMM_WORLD, &pat_proc.world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &pat_proc.world_size);
  int rc = agree_on_settings(error);
  if (rc != MPI_SUCCESS) return rc;
  pat_proc.alg = pat_proc.settings.alg;
  /* PMPI: under libpat_mpi, MPI_Query_thread reports the application's level, not MPI's */
  PMPI_Query_thread(&pat_proc.thread_level);
  pat_clock_setup(pat_settings_clock_skew(&pat_proc.settings, pat_proc.world_rank));
  rc = set_up();
  if (rc != MPI_SUCCESS) return rc;
  pat_stats_reset();
  pat_arrivals_reset();
  rc = pat_finalize_hook_install();
  if (rc != MPI_SUCCESS) rc = pat_fail(rc, "PAT_Init: cannot put libpat's attribute on MPI_COMM_SELF");
  if (rc == MPI_SUCCESS) rc = start_thread_if_possible();
  if (rc != MPI_SUCCESS) {
    pat_comms_finalize();
    MPI_Comm_free(&pat_proc.world);
    return rc;
  }
  pat_proc.initialized = 1;
  return MPI_SUCCESS;
}

int PAT_Finalize(void) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Finalize: PAT is not initialised");
  int mpi_down = 0;
  MPI_Finalized(&mpi_down);
  if (mpi_down) return pat_fail(MPI_ERR_OTHER, "PAT_Finalize: call it before MPI_Finalize");
  pat_shut_down();
  return MPI_SUCCESS;
}

void pat_shut_down(void) {
  pat_background_stop();
  pat_comms_finalize();
  pat_report_finalize();
  MPI_Comm_free(&pat_proc.world);
  pat_proc.initialized = 0;
}

int PAT_Initialized(int *flag) {
  if (!flag) return pat_fail(MPI_ERR_ARG, "PAT_Initialized: flag is NULL");
  *flag = pat_proc.initialized;
  return MPI_SUCCESS;
}

int PAT_UseAlg(const char *name) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_UseAlg: call PAT_Init first");
  int id = pat_alg_by_name(name);
  if (id == PAT_ALG_UNKNOWN)
    return pat_fail(MPI_ERR_ARG, "PAT_UseAlg: '%s' is not an algorithm; valid: %s", name ? name : "(null)",
                    pat_alg_names());
  pat_proc.alg = id;
  return MPI_SUCCESS;
}

int PAT_AlgCount(void) { return PAT_ALG_COUNT; }

const char *PAT_AlgName(int index) {
  return index >= 0 && index < PAT_ALG_COUNT ? pat_algorithms[index].name : NULL;
}

const char *PAT_LastAlg(MPI_Comm comm) {
  if (!pat_proc.initialized || comm == MPI_COMM_NULL) return "";
  pat_comm_state *cs = pat_comm_find(comm);
  if (!cs) return "";
  /* unlocked: a query must not wait for a call in progress on another thread */
  int alg = __atomic_load_n(&cs->planner.last_alg, __ATOMIC_RELAXED);
  return alg >= 0 ? pat_algorithms[alg].name : "";
}
