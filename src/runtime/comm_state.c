/*
 * Per-communicator state, kept as an MPI attribute on the user's
 * communicator so that it disappears with it.  Creating it duplicates the
 * communicator, so it happens in the first (collective) PAT call on it.
 */
#include <stdlib.h>

#include "runtime/runtime.h"

static void unlink_state(pat_comm_state *cs) {
  pthread_mutex_lock(&pat_rt.lock);
  for (pat_comm_state **p = &pat_rt.comms; *p; p = &(*p)->next)
    if (*p == cs) {
      *p = cs->next;
      break;
    }
  if (pat_rt.current == cs) pat_rt.current = NULL;
  pthread_mutex_unlock(&pat_rt.lock);
}

/* An exchange some rank may have started must complete on every rank before
 * the private communicators go: contribute "no call follows" if this rank
 * has not contributed yet.  (Collective, like freeing the communicator.) */
static void start_closing_exchange(pat_comm_state *cs) {
  if (cs->P < 2 || cs->x.state != PAT_X_IDLE || cs->ctrl == MPI_COMM_NULL) return;
  pat_xrec none = {0, 0, 0, PAT_ALG_UNKNOWN, PAT_XREC_NONE};
  pat_exchange_start(&cs->x, cs->ctrl, &none);
}

static void destroy_state(pat_comm_state *cs) {
  pthread_mutex_lock(&cs->lock);
  start_closing_exchange(cs);
  pat_exchange_wait(&cs->x);
  pat_plan_drop(cs);
  pthread_mutex_unlock(&cs->lock);
  for (int a = 0; a < PAT_ALG_COUNT; a++)
    if (cs->classic[a]) {
      pat_sched_free(cs->classic[a]);
      free(cs->classic[a]);
    }
  free(cs->plan.arrival);
  free(cs->node);
  pat_select_cache_free(&cs->select);
  pat_exchange_free(&cs->x);
  if (cs->data != MPI_COMM_NULL) MPI_Comm_free(&cs->data);
  if (cs->data_aa != MPI_COMM_NULL) MPI_Comm_free(&cs->data_aa);
  if (cs->ctrl != MPI_COMM_NULL) MPI_Comm_free(&cs->ctrl);
  pthread_mutex_destroy(&cs->lock);
  free(cs);
}

/* Called by MPI when the user frees the communicator (or we delete the
 * attribute at PAT_Finalize). */
int pat_comm_delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  pat_comm_state *cs = value;
  unlink_state(cs);
  destroy_state(cs);
  return MPI_SUCCESS;
}

/* node[r] = the lowest rank of comm sharing memory with rank r */
static int node_map(MPI_Comm comm, int rank, int P, int **out) {
  MPI_Comm shared;
  int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  if (rc != MPI_SUCCESS) return rc;
  int leader = rank;
  MPI_Bcast(&leader, 1, MPI_INT, 0, shared); /* key = rank: shared rank 0 is the lowest */
  MPI_Comm_free(&shared);
  *out = malloc((size_t)P * sizeof **out);
  if (!*out) return MPI_ERR_NO_MEM;
  return MPI_Allgather(&leader, 1, MPI_INT, *out, 1, MPI_INT, comm);
}

static int dup_private(MPI_Comm comm, MPI_Comm *out) {
  int rc = MPI_Comm_dup(comm, out);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
}

int pat_comm_get(MPI_Comm comm, pat_comm_state **out) {
  void *value;
  int found, rc;
  rc = MPI_Comm_get_attr(comm, pat_rt.keyval, &value, &found);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "cannot read communicator attribute");
  if (found) {
    *out = value;
    return MPI_SUCCESS;
  }
  pat_comm_state *cs = calloc(1, sizeof *cs);
  if (!cs) return pat_fail(MPI_ERR_NO_MEM, "out of memory");
  cs->user = comm;
  cs->data = cs->data_aa = cs->ctrl = MPI_COMM_NULL;
  cs->last_alg = -1;
  pthread_mutex_init(&cs->lock, NULL);
  pat_select_cache_init(&cs->select);
  MPI_Comm_size(comm, &cs->P);
  MPI_Comm_rank(comm, &cs->rank);
  rc = pat_exchange_init(&cs->x, cs->P);
  if (rc == MPI_SUCCESS) rc = dup_private(comm, &cs->data);
  if (rc == MPI_SUCCESS) rc = dup_private(comm, &cs->data_aa);
  if (rc == MPI_SUCCESS) rc = dup_private(comm, &cs->ctrl);
  if (rc == MPI_SUCCESS) rc = node_map(cs->ctrl, cs->rank, cs->P, &cs->node);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(comm, pat_rt.keyval, cs);
  if (rc != MPI_SUCCESS) {
    destroy_state(cs);
    return pat_fail(rc, "cannot set up private communicators");
  }
  pthread_mutex_lock(&pat_rt.lock);
  cs->next = pat_rt.comms;
  pat_rt.comms = cs;
  pthread_mutex_unlock(&pat_rt.lock);
  *out = cs;
  return MPI_SUCCESS;
}

void pat_comm_release_all(void) {
  /* start every closing exchange before waiting for any: ranks may hold
   * their communicators in different orders */
  pthread_mutex_lock(&pat_rt.lock);
  for (pat_comm_state *cs = pat_rt.comms; cs; cs = cs->next) {
    pthread_mutex_lock(&cs->lock);
    start_closing_exchange(cs);
    pthread_mutex_unlock(&cs->lock);
  }
  pthread_mutex_unlock(&pat_rt.lock);
  for (;;) {
    pthread_mutex_lock(&pat_rt.lock);
    pat_comm_state *cs = pat_rt.comms;
    pthread_mutex_unlock(&pat_rt.lock);
    if (!cs) break;
    /* runs pat_comm_delete_fn, which unlinks and frees it */
    if (MPI_Comm_delete_attr(cs->user, pat_rt.keyval) != MPI_SUCCESS) {
      unlink_state(cs);
      destroy_state(cs);
    }
  }
}

int pat_comm_classic(pat_comm_state *cs, int alg, const pat_sched **out) {
  if (!cs->classic[alg]) {
    pat_sched *s = malloc(sizeof *s);
    if (!s) return pat_fail(MPI_ERR_NO_MEM, "out of memory");
    pat_build_args args = {cs->P, cs->rank, NULL, 1, 0, 0};
    int rc = pat_build(alg, s, &args);
    if (rc != PAT_OK) {
      free(s);
      return pat_fail(rc == PAT_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INTERN, "cannot build the %s schedule",
                      pat_algorithms[alg].name);
    }
    cs->classic[alg] = s;
  }
  *out = cs->classic[alg];
  return MPI_SUCCESS;
}
