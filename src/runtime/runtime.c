/* PAT_Init / PAT_Finalize, settings and the small public queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat/clock.h"
#include "runtime/report.h"
#include "runtime/runtime.h"

pat_runtime pat_rt = {.lock = PTHREAD_MUTEX_INITIALIZER, .keyval = MPI_KEYVAL_INVALID};

int pat_comm_delete_fn(MPI_Comm comm, int keyval, void *value, void *extra);

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

static const char *thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

int PAT_Init(void) {
  int mpi_up = 0, mpi_down = 0;
  MPI_Initialized(&mpi_up);
  MPI_Finalized(&mpi_down);
  if (!mpi_up || mpi_down) return pat_fail(MPI_ERR_OTHER, "PAT_Init: call it after MPI_Init and before MPI_Finalize");
  if (pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Init: already initialised");
  pat_rt.verbose = env_int("PAT_VERBOSE", 0);
  pat_rt.alg = PAT_ALG_AUTO;
  const char *alg = getenv("PAT_ALG");
  if (alg && *alg) {
    int id = pat_alg_by_name(alg);
    if (id == PAT_ALG_UNKNOWN) {
      fprintf(stderr, "libpat: PAT_ALG=%s is not an algorithm; valid: %s\n", alg, pat_alg_names());
      return pat_fail(MPI_ERR_ARG, "PAT_ALG=%s is not an algorithm; valid: %s", alg, pat_alg_names());
    }
    pat_rt.alg = id;
  }
  /* PMPI: under libpat_mpi, MPI_Query_thread reports the application's level, not MPI's */
  PMPI_Query_thread(&pat_rt.thread_level);
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &pat_rt.world);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Init: cannot duplicate MPI_COMM_WORLD");
  MPI_Comm_set_errhandler(pat_rt.world, MPI_ERRORS_RETURN);
  MPI_Comm_rank(pat_rt.world, &pat_rt.world_rank);
  pat_clock_setup(pat_rt.world_rank);
  int *tag_ub, found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  pat_exec_set_tag_ub(found ? *tag_ub : 32767);
  rc = pat_report_init();
  if (rc == MPI_SUCCESS) rc = pat_clock_sync(pat_rt.world, env_int("PAT_CLOCK_SAMPLES", 20));
  if (rc == MPI_SUCCESS) rc = pat_netparams_init();
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pat_comm_delete_fn, &pat_rt.keyval, NULL);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&pat_rt.world);
    char why[600];
    snprintf(why, sizeof why, "%s", PAT_Error_string(rc)); /* keep the cause's own message */
    return pat_fail(rc, "PAT_Init: %s", why);
  }
  memset(&pat_rt.stats, 0, sizeof pat_rt.stats);
  pat_rt.instrumented = pat_rt.phase_active = pat_rt.phase_contributed = 0;
  pat_rt.current = NULL;
  pat_rt.background = 0;
  int want_thread = env_int("PAT_THREAD", 1);
  if (want_thread && pat_rt.thread_level < MPI_THREAD_MULTIPLE) {
    if (pat_rt.world_rank == 0)
      fprintf(stderr,
              "libpat: MPI provides %s, not MPI_THREAD_MULTIPLE: running without the background thread "
              "(arrival-aware algorithms run entirely in the foreground)\n",
              thread_level_name(pat_rt.thread_level));
  } else if (want_thread) {
    rc = pat_background_start();
    if (rc != MPI_SUCCESS) {
      MPI_Comm_free_keyval(&pat_rt.keyval);
      MPI_Comm_free(&pat_rt.world);
      return rc;
    }
  }
  pat_rt.initialized = 1;
  return MPI_SUCCESS;
}

int PAT_Finalize(void) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Finalize: PAT is not initialised");
  int mpi_down = 0;
  MPI_Finalized(&mpi_down);
  if (mpi_down) return pat_fail(MPI_ERR_OTHER, "PAT_Finalize: call it before MPI_Finalize");
  pat_background_stop();
  pat_comm_release_all();
  pat_report_finalize();
  MPI_Comm_free_keyval(&pat_rt.keyval);
  MPI_Comm_free(&pat_rt.world);
  pat_rt.initialized = 0;
  return MPI_SUCCESS;
}

int PAT_Initialized(int *flag) {
  if (!flag) return pat_fail(MPI_ERR_ARG, "PAT_Initialized: flag is NULL");
  *flag = pat_rt.initialized;
  return MPI_SUCCESS;
}

int PAT_UseAlg(const char *name) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_UseAlg: call PAT_Init first");
  int id = pat_alg_by_name(name);
  if (id == PAT_ALG_UNKNOWN)
    return pat_fail(MPI_ERR_ARG, "PAT_UseAlg: '%s' is not an algorithm; valid: %s", name ? name : "(null)",
                    pat_alg_names());
  pat_rt.alg = id;
  return MPI_SUCCESS;
}

int PAT_AlgCount(void) { return PAT_ALG_COUNT; }

const char *PAT_AlgName(int index) {
  return index >= 0 && index < PAT_ALG_COUNT ? pat_algorithms[index].name : NULL;
}

const char *PAT_LastAlg(MPI_Comm comm) {
  if (!pat_rt.initialized || comm == MPI_COMM_NULL) return "";
  void *value;
  int found = 0;
  if (MPI_Comm_get_attr(comm, pat_rt.keyval, &value, &found) != MPI_SUCCESS || !found) return "";
  const pat_comm_state *cs = value;
  return cs->last_alg >= 0 ? pat_algorithms[cs->last_alg].name : "";
}

int PAT_GetStats(PAT_Stats *stats) {
  if (!stats) return pat_fail(MPI_ERR_ARG, "PAT_GetStats: stats is NULL");
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_GetStats: call PAT_Init first");
  pthread_mutex_lock(&pat_rt.lock);
  *stats = pat_rt.stats;
  pthread_mutex_unlock(&pat_rt.lock);
  return MPI_SUCCESS;
}

