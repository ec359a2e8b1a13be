/* PAT_Init / PAT_Finalize and the small public queries. */
#include "runtime/process.h"

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
#include "runtime/channels.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/finalize_hook.h"
#include "runtime/nbc_queue.h"
#include "runtime/persist.h"
#include "runtime/netparams.h"
#include "runtime/report.h"
#include "runtime/report_nbc.h"
#include "runtime/stats.h"
#include "runtime/wait_nap.h"

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
  int rc = PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, pat_proc.world);
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

/* PAT_PACE: this process's link in ns per byte, 0 for no pacing: the
 * setting's rate, or with `model` the model file's link line (a ping-pong
 * of two ranks alone, pat-calibrate) when the job spans nodes (ranks of one
 * node share no link); without a model file, PAT_Init's own ping-pong of
 * world ranks 0 and 1, the same measurement, where those two are on
 * different nodes.  Every rank gets the same rate. */
_Static_assert(PAT_PACE_LEAD_NS == PAT_MODEL_PACE_LEAD_NS, "the replay paces with the executor's lead");
static double pace_ns_per_byte(void) {
  int mbit = pat_proc.settings.pace_mbit;
  if (mbit > 0) return 8e3 / mbit;
  if (mbit == 0 || pat_comms_world_one_node()) return 0;
  if (!pat_netparams_have_model())
    return pat_comms_world_same_node(0, 1) ? 0 : pat_netparams_pingpong_beta() * 1e9;
  const pat_model_params *mp = pat_netparams();
  return mp->link_set && mp->link.beta > 0 ? mp->link.beta * 1e9 : 0;
}

/* The world rank PAT_Init's ping-pong pairs with rank 0 (netparams.h): the
 * first on another node, else 1. */
static int pingpong_partner(void) {
  for (int r = 1; r < pat_proc.world_size; r++)
    if (!pat_comms_world_same_node(0, r)) return r;
  return 1;
}

/* Every communicator's state, then the channels their messages went on. */
static void shut_down_comms(void) {
  pat_comms_finalize();
  pat_channels_finalize();
}

/* Everything that needs the world duplicate, in the same order on every rank. */
static int set_up(void) {
  int rc = pat_private_dup(MPI_COMM_WORLD, &pat_proc.world);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Init: cannot duplicate MPI_COMM_WORLD");
  int *tag_ub, found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  pat_exec_set_tag_ub(found ? *tag_ub : 32767);
  pat_exec_set_trace(pat_proc.settings.trace);
  pat_exec_set_clock(pat_timeline_on() ? pat_clock_global_ns : NULL);
  rc = pat_report_init(pat_proc.world, pat_proc.settings.report);
  if (rc == MPI_SUCCESS) rc = pat_clock_sync(pat_proc.world, pat_proc.settings.clock_samples);
  if (rc == MPI_SUCCESS) rc = pat_channels_init(pat_proc.world, pat_proc.settings.channels);
  if (rc == MPI_SUCCESS) {
    rc = pat_comms_init(pat_proc.world);
    if (rc != MPI_SUCCESS) pat_channels_finalize();
  }
  if (rc == MPI_SUCCESS) {
    rc = pat_netparams_init(pat_proc.world, pat_proc.settings.model, pingpong_partner(), pat_comms_world_nodes(),
                            pat_comms_world_placement());
    if (rc != MPI_SUCCESS) shut_down_comms();
  }
  if (rc == MPI_SUCCESS) {
    double pace = pace_ns_per_byte();
    pat_exec_set_pace(pace);
    /* predictions see the same holds, at one rate on every rank (PAT_PACE
     * is a per-rank setting; every rank must choose alike) */
    double agreed = 0;
    rc = PMPI_Allreduce(&pace, &agreed, 1, MPI_DOUBLE, MPI_MAX, pat_proc.world);
    if (rc == MPI_SUCCESS)
      pat_netparams_set_pace(agreed * 1e-9);
    else
      shut_down_comms();
    if (pace > 0 && pat_proc.settings.verbose >= 1 && pat_proc.world_rank == 0)
      fprintf(stderr, "libpat: data-flow forwards paced at %.0f Mbit/s (PAT_PACE; %s)\n", 8e3 / pace,
              pat_proc.settings.pace_mbit > 0 ? "given" : pat_netparams_have_model() ? "the model file's link line"
                                                                                 : "PAT_Init's ping-pong");
  }
  if (rc == MPI_SUCCESS && pat_proc.settings.verbose >= 1 && pat_proc.world_rank == 0 && pat_node_oversubscribed())
    fprintf(stderr, "libpat: %d ranks on rank 0's node, more than its CPUs: waits nap, the background thread "
                    "polls at most every 2 ms\n", pat_proc.node_ranks);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&pat_proc.world);
    char why[600];
    snprintf(why, sizeof why, "%s", PAT_Error_string(rc)); /* keep the cause's own message */
    return pat_fail(rc, "PAT_Init: %s", why);
  }
  return MPI_SUCCESS;
}

/* PAT_Finalize once its checks passed, or MPI_Finalize without it
 * (finalize_hook.h); collective. */
static void shut_down(void) {
  pat_background_stop();
  pat_nbc_stop(); /* the thread is gone: what it left queued fails */
  pat_persist_stop();
  shut_down_comms();
  pat_report_nbc_finalize(pat_proc.world); /* while the report is still on */
  pat_report_finalize();
  MPI_Comm_free(&pat_proc.world);
  pat_proc.initialized = 0;
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
  int rc = pat_settings_agree(&pat_proc.settings, error, pat_proc.world_rank);
  if (rc != MPI_SUCCESS) return rc;
  pat_proc.alg = pat_proc.settings.alg;
  /* PMPI: under libpat_mpi, MPI_Query_thread reports the application's level, not MPI's */
  PMPI_Query_thread(&pat_proc.thread_level);
  pat_clock_setup(pat_settings_clock_skew(&pat_proc.settings, pat_proc.world_rank));
  rc = set_up();
  if (rc != MPI_SUCCESS) return rc;
  pat_stats_reset();
  pat_arrivals_reset();
  rc = pat_finalize_hook_install(shut_down);
  if (rc != MPI_SUCCESS) rc = pat_fail(rc, "PAT_Init: cannot put libpat's attribute on MPI_COMM_SELF");
  if (rc == MPI_SUCCESS) rc = pat_persist_start();
  if (rc == MPI_SUCCESS) rc = start_thread_if_possible();
  if (rc != MPI_SUCCESS) {
    pat_persist_stop();
    pat_nbc_stop();
    shut_down_comms();
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
  shut_down();
  return MPI_SUCCESS;
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

int PAT_GetStats(PAT_Stats *out) {
  if (!out) return pat_fail(MPI_ERR_ARG, "PAT_GetStats: stats is NULL");
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_GetStats: call PAT_Init first");
  pat_stats_read(out);
  pat_background_times(&out->bg_cpu_seconds, &out->bg_wall_seconds); /* an idle thread records nothing */
  return MPI_SUCCESS;
}
