/*
 * Per-communicator state: identity, lifecycle, registry (see comm.h).
 */
#include "runtime/comm.h"

#include <stdlib.h>

#include "runtime/errors.h"

static int keyval = MPI_KEYVAL_INVALID;
static int *world_node;  /* node of every world rank: the lowest world rank sharing its memory */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pat_comm_state *registry;
static pat_comm_state *current;

static void unlink_state(pat_comm_state *cs) {
  pthread_mutex_lock(&registry_lock);
  for (pat_comm_state **p = &registry; *p; p = &(*p)->next)
    if (*p == cs) {
      *p = cs->next;
      break;
    }
  if (current == cs) current = NULL;
  pthread_mutex_unlock(&registry_lock);
}

/* An exchange some rank may have started must complete on every rank before
 * the private communicators go: contribute "no call follows" if this rank
 * has not contributed yet.  (Collective, like freeing the communicator.) */
static void start_closing_exchange(pat_comm_state *cs) {
  if (cs->P < 2 || cs->x.state != PAT_X_IDLE || cs->ctrl == MPI_COMM_NULL) return;
  pat_xrec none = {0, 0, 0, PAT_XSETTING_MIXED, PAT_XREC_NONE};
  pat_exchange_start(&cs->x, cs->ctrl, &none);
}

static void free_private(MPI_Comm *c) {
  if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

static void destroy_state(pat_comm_state *cs) {
  pthread_mutex_lock(&cs->lock);
  start_closing_exchange(cs);
  pat_exchange_wait(&cs->x);
  pat_planner_free(&cs->planner);
  pthread_mutex_unlock(&cs->lock);
  pat_report_comm_done(cs);
  free(cs->node);
  pat_exchange_free(&cs->x);
  free_private(&cs->data);
  free_private(&cs->data_aa);
  free_private(&cs->ctrl);
  pthread_mutex_destroy(&cs->lock);
  free(cs);
}

/* MPI calls it when the application frees the communicator (and when
 * PAT_Finalize deletes the attribute). */
static int delete_fn(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm;
  (void)key;
  (void)extra;
  pat_comm_state *cs = value;
  unlink_state(cs);
  destroy_state(cs);
  return MPI_SUCCESS;
}

int pat_comms_init(MPI_Comm world) {
  int rank, size, rc;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  world_node = malloc((size_t)size * sizeof *world_node);
  int leader = rank, ok = world_node != NULL, all_ok = 0;
  MPI_Comm shared;
  rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Bcast(&leader, 1, MPI_INT, 0, shared); /* key = rank: its rank 0 is the lowest world rank */
  MPI_Comm_free(&shared);
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
  if (rc == MPI_SUCCESS && !all_ok) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = PMPI_Allgather(&leader, 1, MPI_INT, world_node, 1, MPI_INT, world);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
  if (rc != MPI_SUCCESS) {
    free(world_node);
    world_node = NULL;
  }
  return rc;
}

/* node[r] of comm, from the world map: no communication. */
static int node_map(MPI_Comm comm, int P, int **out) {
  int *mine = malloc((size_t)P * 2 * sizeof *mine);
  if (!mine) return MPI_ERR_NO_MEM;
  MPI_Group g, wg;
  int rc = MPI_Comm_group(comm, &g);
  if (rc != MPI_SUCCESS) {
    free(mine);
    return rc;
  }
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < P; i++) mine[P + i] = i;
  rc = MPI_Group_translate_ranks(g, P, mine + P, wg, mine);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  for (int i = 0; i < P && rc == MPI_SUCCESS; i++)
    mine[i] = mine[i] == MPI_UNDEFINED ? -1 - i : world_node[mine[i]]; /* not in world: a node of its own */
  *out = mine;
  return rc;
}

static int dup_private(MPI_Comm comm, MPI_Comm *out) {
  int rc = MPI_Comm_dup(comm, out);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
}

pat_comm_state *pat_comm_find(MPI_Comm comm) {
  void *value;
  int found = 0;
  if (keyval == MPI_KEYVAL_INVALID || MPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS || !found)
    return NULL;
  return value;
}

int pat_comm_get(MPI_Comm comm, pat_comm_state **out) {
  void *value;
  int found, rc;
  rc = MPI_Comm_get_attr(comm, keyval, &value, &found);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "cannot read communicator attribute");
  if (found) {
    *out = value;
    return MPI_SUCCESS;
  }
  pat_comm_state *cs = calloc(1, sizeof *cs);
  if (!cs) return pat_fail(MPI_ERR_NO_MEM, "out of memory");
  cs->user = comm;
  cs->data = cs->data_aa = cs->ctrl = MPI_COMM_NULL;
  pthread_mutex_init(&cs->lock, NULL);
  MPI_Comm_size(comm, &cs->P);
  MPI_Comm_rank(comm, &cs->rank);
  pat_sites_init(&cs->sites);
  pat_planner_init(&cs->planner);
  rc = pat_exchange_init(&cs->x, cs->P);
  if (rc == MPI_SUCCESS) rc = dup_private(comm, &cs->data);
  if (rc == MPI_SUCCESS) rc = dup_private(comm, &cs->data_aa);
  if (rc == MPI_SUCCESS) rc = dup_private(comm, &cs->ctrl);
  if (rc == MPI_SUCCESS) rc = node_map(comm, cs->P, &cs->node);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(comm, keyval, cs);
  if (rc != MPI_SUCCESS) {
    destroy_state(cs);
    return pat_fail(rc, "cannot set up private communicators");
  }
  pthread_mutex_lock(&registry_lock);
  cs->next = registry;
  registry = cs;
  pthread_mutex_unlock(&registry_lock);
  *out = cs;
  return MPI_SUCCESS;
}

void pat_comm_set_current(pat_comm_state *cs) {
  pthread_mutex_lock(&registry_lock);
  current = cs;
  pthread_mutex_unlock(&registry_lock);
}

pat_comm_state *pat_comm_current(void) {
  pthread_mutex_lock(&registry_lock);
  pat_comm_state *cs = current;
  pthread_mutex_unlock(&registry_lock);
  return cs;
}

void pat_comm_each_idle(void (*fn)(pat_comm_state *cs, void *ctx), void *ctx) {
  pthread_mutex_lock(&registry_lock);
  for (pat_comm_state *cs = registry; cs; cs = cs->next) {
    if (pthread_mutex_trylock(&cs->lock) != 0) continue; /* the foreground is in a call on it */
    fn(cs, ctx);
    pthread_mutex_unlock(&cs->lock);
  }
  pthread_mutex_unlock(&registry_lock);
}

void pat_comms_finalize(void) {
  /* start every closing exchange before waiting for any: ranks may hold
   * their communicators in different orders */
  pthread_mutex_lock(&registry_lock);
  for (pat_comm_state *cs = registry; cs; cs = cs->next) {
    pthread_mutex_lock(&cs->lock);
    start_closing_exchange(cs);
    pthread_mutex_unlock(&cs->lock);
  }
  pthread_mutex_unlock(&registry_lock);
  for (;;) {
    pthread_mutex_lock(&registry_lock);
    pat_comm_state *cs = registry;
    pthread_mutex_unlock(&registry_lock);
    if (!cs) break;
    /* runs delete_fn, which unlinks and frees it */
    if (MPI_Comm_delete_attr(cs->user, keyval) != MPI_SUCCESS) {
      unlink_state(cs);
      destroy_state(cs);
    }
  }
  if (keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&keyval);
  free(world_node);
  world_node = NULL;
}
