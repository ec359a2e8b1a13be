/*
 * Per-communicator state: identity, lifecycle, registry (see comm.h).
 *
 * Locks (docs/locks.md): current_lock, then a communicator's lock, never the
 * other way round, and a communicator's lock is only tried while current_lock
 * is held; registry_lock is never held while taking another.  A state is freed
 * only by the background thread at the end of a pass, or by PAT_Finalize
 * after the thread stopped, so the thread never sees one disappear.
 */
#define _GNU_SOURCE /* sched_getaffinity, cpu_set_t */
#include "runtime/comm.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/placement.h"
#include "runtime/channels.h"
#include "runtime/wait_nap.h"
#include "runtime/wakeup.h"
#include "runtime/errors.h"
#include "runtime/netparams.h"
#include "runtime/process.h"

static int keyval = MPI_KEYVAL_INVALID;
static int *world_node;  /* node of every world rank: the lowest world rank sharing its memory */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pat_comm_state *live;     /* communicators the application holds */
static pat_comm_state *retiring; /* freed by the application, finishing (retire.h) */
static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(pat_comm_state *) current;

/* The last lookup of each thread (comm.h, pat_comm_cached): any retirement
 * invalidates every thread's entry (a freed handle may be reused). */
atomic_uint pat_comm_lookup_generation;
_Thread_local pat_comm_lookup pat_comm_last_lookup __attribute__((tls_model("initial-exec")));

static void unlink_from(pat_comm_state **list, pat_comm_state *cs) {
  for (pat_comm_state **p = list; *p; p = &(*p)->next)
    if (*p == cs) {
      *p = cs->next;
      return;
    }
}

static void destroy_state(pat_comm_state *cs) {
  for (int i = 0; i < cs->sites.n; i++) pat_report_site_done(&cs->report, &cs->sites, pat_comm_engine_of(cs, i), i);
  pat_planner_free(&cs->planner);
  if (cs->engine_ready) pat_engine_free(&cs->engine);
  pat_sites_free(&cs->sites);
  free(cs->ared_stamps);
  pat_retire_free(&cs->retire);
  free(cs->node);
  pat_nodes_free(&cs->nodes);
  pat_exchange_free(&cs->x);
  for (int k = 0; k < 2; k++) { /* retired: no message for it can still arrive */
    pat_channel_give(cs->channel[k]);
    free(cs->send[k]);
  }
  if (cs->own_dups) {
    if (cs->base.priv != MPI_COMM_NULL) MPI_Comm_free(&cs->base.priv);
    if (cs->x.comm != MPI_COMM_NULL) MPI_Comm_free(&cs->x.comm);
  }
  free(cs->world);
  free(cs->agreed);
  pthread_mutex_destroy(&cs->lock);
  free(cs);
}

/* The application's handle goes (MPI_Comm_free, or PAT_Finalize deleting
 * the attribute): local, never waits for another rank. */
static void retire(pat_comm_state *cs) {
  atomic_store(&cs->freed, 1); /* the non-blocking part (nbc_queue.c) goes once its calls are done */
  atomic_fetch_add(&pat_comm_lookup_generation, 1);
  pthread_mutex_lock(&current_lock);
  if (current == cs) current = NULL;
  pthread_mutex_unlock(&current_lock);
  pthread_mutex_lock(&registry_lock);
  unlink_from(&live, cs);
  pthread_mutex_unlock(&registry_lock);
  pthread_mutex_lock(&cs->lock);
  pat_retire_begin(&cs->retire, &cs->base, &cs->x, cs->next_exchanges);
  pthread_mutex_unlock(&cs->lock);
  /* nothing can be in flight (retire.h); non-blocking calls need the thread (nbc_queue.h) */
  if ((!cs->base.background || cs->base.P < 2) && !atomic_load(&cs->nbc)) {
    destroy_state(cs);
    return;
  }
  /* the background thread may be looking at it: it finishes and frees it */
  pthread_mutex_lock(&registry_lock);
  cs->next = retiring;
  retiring = cs;
  pthread_mutex_unlock(&registry_lock);
  pat_wakeup_ring();
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm;
  (void)key;
  (void)extra;
  retire(value);
  return MPI_SUCCESS;
}

int pat_comms_init(MPI_Comm world) {
  int rank, size, rc;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  world_node = malloc((size_t)size * sizeof *world_node);
  int leader = rank, ok = world_node != NULL, all_ok = 0;
  /* split from a scratch copy, freed with the split: a split is a non-blocking all-reduce on its
   * parent in Open MPI 4.1, which would leave libnbc's progress hook on world (pat_private_dup) */
  MPI_Comm scratch, shared;
  rc = pat_private_dup(world, &scratch);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Comm_split_type(scratch, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  if (rc == MPI_SUCCESS && pat_proc.settings.node_size > 0) { /* PAT_NODE_SIZE: nodes of k consecutive ranks */
    MPI_Comm cut;
    int local;
    MPI_Comm_rank(shared, &local);
    rc = MPI_Comm_split(shared, local / pat_proc.settings.node_size, rank, &cut);
    MPI_Comm_free(&shared);
    if (rc == MPI_SUCCESS) shared = cut;
  }
  if (rc == MPI_SUCCESS) {
    rc = MPI_Bcast(&leader, 1, MPI_INT, 0, shared); /* key = rank: its rank 0 is the lowest world rank */
    /* the CPUs the node's ranks may run on, together: one rank bound to one
     * core of many is not short of CPUs, 16 unbound ranks on 2 cores are */
    cpu_set_t mine, node;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
    if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(&mine, &node, (int)sizeof mine, MPI_BYTE, MPI_BOR, shared);
    if (rc == MPI_SUCCESS) pat_proc.node_cpus = CPU_COUNT(&node);
    MPI_Comm_free(&shared);
  }
  MPI_Comm_free(&scratch);
  if (rc != MPI_SUCCESS) return rc;
  if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
  if (rc == MPI_SUCCESS && !all_ok) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = PMPI_Allgather(&leader, 1, MPI_INT, world_node, 1, MPI_INT, world);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
  if (rc != MPI_SUCCESS) {
    free(world_node);
    world_node = NULL;
  } else {
    int n = 0;
    for (int r = 0; r < size; r++) n += world_node[r] == world_node[rank];
    pat_proc.node_ranks = n;
  }
  return rc;
}

int pat_comms_world_one_node(void) {
  for (int r = 1; world_node && r < pat_proc.world_size; r++)
    if (world_node[r] != world_node[0]) return 0;
  return 1;
}

int pat_comms_world_nodes(void) {
  int n = 0;
  for (int r = 0; world_node && r < pat_proc.world_size; r++) n += world_node[r] == r; /* a node's lowest rank */
  return n;
}

int pat_comms_world_same_node(int a, int b) {
  return !world_node || a < 0 || b < 0 || a >= pat_proc.world_size || b >= pat_proc.world_size ||
         world_node[a] == world_node[b];
}

uint64_t pat_comms_world_placement(void) {
  return world_node ? pat_placement_hash(pat_proc.world_size, world_node) : 0;
}

int pat_comms_world_one_node_native(void) {
  return world_node && pat_engine_one_node_native(pat_proc.world_size, world_node, pat_proc.settings.one_node_auto);
}

int pat_comm_world_ranks(MPI_Comm comm, int P, int *world) {
  MPI_Group g, wg;
  int *ranks = malloc((size_t)P * sizeof *ranks);
  if (!ranks) return MPI_ERR_NO_MEM;
  int rc = MPI_Comm_group(comm, &g);
  if (rc == MPI_SUCCESS) {
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < P; i++) ranks[i] = i;
    rc = MPI_Group_translate_ranks(g, P, ranks, wg, world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
  }
  free(ranks);
  return rc;
}

/* node[i] of each of P ranks whose world ranks are world[i] (the two may be one array): a rank
 * outside world (MPI_UNDEFINED) is on a node of its own. */
static void nodes_of(int P, const int *world, int *node) {
  for (int i = 0; i < P; i++) node[i] = world[i] == MPI_UNDEFINED ? -1 - i : world_node[world[i]];
}

/* node[r] of each rank r of comm (P ranks; *out malloc'd, the caller frees it), from the world
 * map: no communication.  *out is NULL, every rank on a node of its own, where the map is
 * unknown.  Returns an MPI error code. */
static int node_map(MPI_Comm comm, int P, int **out) {
  *out = NULL;
  if (!world_node) return MPI_SUCCESS;
  int *mine = malloc((size_t)P * sizeof *mine);
  if (!mine) return MPI_ERR_NO_MEM;
  *out = mine;
  int rc = pat_comm_world_ranks(comm, P, mine);
  if (rc == MPI_SUCCESS) nodes_of(P, mine, mine);
  return rc;
}

int pat_comm_node_count(MPI_Comm comm) {
  int P = 0, *node = NULL, H = 0;
  if (!world_node || MPI_Comm_size(comm, &P) != MPI_SUCCESS) return 0;
  pat_nodes nodes;
  if (node_map(comm, P, &node) == MPI_SUCCESS && pat_nodes_make(P, node, &nodes) == PAT_OK) {
    H = nodes.H;
    pat_nodes_free(&nodes);
  }
  free(node);
  return H;
}

pat_comm_state *pat_comm_find(MPI_Comm comm) {
  void *value;
  int found = 0;
  if (keyval == MPI_KEYVAL_INVALID || MPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS || !found)
    return NULL;
  return value;
}

_Static_assert(PAT_ENGINE_SITES == PAT_SITES_MAX, "the engine keeps a state per call site");

/* The parts of a new state that need no communication: 0 or an MPI error. */
static int set_up_locally(pat_comm_state *cs, MPI_Comm comm) {
  cs->base.user = comm;
  cs->base.background = pat_proc.background;
  pthread_mutex_init(&cs->lock, NULL);
  MPI_Comm_size(comm, &cs->base.P);
  MPI_Comm_rank(comm, &cs->base.rank);
  pat_sites_init(&cs->sites);
  /* the gaps predict arrivals only for contributions made ahead, which need
   * the background thread (arrivals.c): without it they would never be read */
  cs->sites.skip_gaps = !cs->base.background;
  cs->channel[0] = cs->channel[1] = -1;
  cs->base.priv = MPI_COMM_SELF; /* one rank sends nothing; several receive on a channel (agree_channels) */
  int P = cs->base.P, rc = pat_planner_init(&cs->planner, P);
  if (rc == MPI_SUCCESS && !(cs->world = malloc((size_t)P * sizeof *cs->world))) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = pat_comm_world_ranks(comm, P, cs->world);
  for (int r = 0; r < P && rc == MPI_SUCCESS; r++) cs->outside |= cs->world[r] == MPI_UNDEFINED;
  if (rc == MPI_SUCCESS && world_node && !(cs->node = malloc((size_t)P * sizeof *cs->node))) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && cs->node) nodes_of(P, cs->world, cs->node);
  if (rc == MPI_SUCCESS && pat_nodes_make(P, cs->node, &cs->nodes) != PAT_OK) rc = MPI_ERR_NO_MEM;
  cs->base.node = cs->node;
  cs->base.nodes = cs->node && cs->nodes.of ? &cs->nodes : NULL;
  if (rc == MPI_SUCCESS && pat_proc.alg == PAT_ALG_AUTO && !pat_comm_engine(cs)) rc = MPI_ERR_NO_MEM;
  return rc;
}

/* What a rank says of its state at the first call (the least of them wins). */
enum { ROUTE_NO_MEMORY = 0, ROUTE_NONE = 1, ROUTE_OK = 2 };

/* This rank's two channels and every rank's world rank: ROUTE_OK, or
 * ROUTE_NONE where no channel is free (said once a process on stderr) or a
 * rank lies outside MPI_COMM_WORLD (dynamic processes), or ROUTE_NO_MEMORY. */
static int take_channels(pat_comm_state *cs) {
  static atomic_int said;
  int P = cs->base.P;
  if (!cs->send[0]) cs->send[0] = malloc((size_t)P * sizeof *cs->send[0]);
  if (!cs->send[1]) cs->send[1] = malloc((size_t)P * sizeof *cs->send[1]);
  if (!cs->agreed) cs->agreed = malloc(2 * (size_t)P * sizeof *cs->agreed); /* before the agreement: nothing fails after it */
  if (!cs->send[0] || !cs->send[1] || !cs->agreed) return ROUTE_NO_MEMORY;
  if (cs->outside) return ROUTE_NONE;
  for (int k = 0; k < 2; k++)
    if (cs->channel[k] < 0) cs->channel[k] = pat_channel_take(); /* kept from a try that failed elsewhere */
  if (cs->channel[0] >= 0 && cs->channel[1] >= 0) return ROUTE_OK;
  if (!atomic_exchange(&said, 1))
    fprintf(stderr, "libpat: world rank %d: all %d channels are lent (PAT_CHANNELS): a new communicator's "
                    "all-gathers make duplicates of it at their first call\n", pat_proc.world_rank, pat_channels_count());
  return ROUTE_NONE;
}

/* Where some rank has no route: every rank gives back its channels and makes
 * two private duplicates of comm (collective), schedules on the first, the
 * exchange on the second, ranks as they are. */
static int own_duplicates(pat_comm_state *cs, MPI_Comm comm) {
  free(cs->agreed);
  cs->agreed = NULL;
  for (int k = 0; k < 2; k++) {
    pat_channel_give(cs->channel[k]);
    cs->channel[k] = -1;
  }
  cs->own_dups = 1;
  MPI_Comm dup[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
  int rc = pat_private_dup(comm, &dup[0]);
  if (rc == MPI_SUCCESS) rc = pat_private_dup(comm, &dup[1]); /* every rank made the first: no one is left alone */
  cs->base.priv = dup[0];
  cs->x.comm = dup[1]; /* destroy_state frees both */
  if (rc == MPI_SUCCESS) rc = pat_exchange_init(&cs->x, dup[1]);
  return rc;
}

/* Every rank's channels (collective over comm), the routes, the exchange. */
static int agree_channels(pat_comm_state *cs, MPI_Comm comm) {
  int P = cs->base.P, *all = cs->agreed;
  int rc = PMPI_Allgather(cs->channel, 2, MPI_INT, all, 2, MPI_INT, comm);
  for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
    for (int k = 0; k < 2; k++) cs->send[k][r] = pat_channel_comm(all[2 * r + k]);
  free(all);
  cs->agreed = NULL;
  if (rc != MPI_SUCCESS) return rc;
  cs->route = (pat_route){.rank = cs->world, .comm = cs->send[0]};
  cs->base.route = &cs->route;
  cs->base.priv = pat_channel_comm(cs->channel[0]);
  return pat_exchange_init_routed(&cs->x, pat_channel_comm(cs->channel[1]), P, cs->base.rank, cs->world, cs->send[1], 1);
}

pat_engine *pat_comm_engine(pat_comm_state *cs) {
  if (cs->engine_ready) return &cs->engine;
  pat_engine_config cfg = {.P = cs->base.P,
                           .mp = pat_netparams(),
                           .have_model = pat_netparams_have_model(),
                           .node = cs->node,
                           .exchange_always = pat_proc.settings.exchange == PAT_EXCHANGE_ALWAYS,
                           .plan_ahead = pat_proc.settings.plan_ahead_auto,
                           .one_node_auto = pat_proc.settings.one_node_auto,
                           .record_bytes = (int)sizeof(pat_xrec)};
  if (pat_engine_init(&cs->engine, &cfg) != 0) return NULL;
  cs->engine_ready = 1;
  return &cs->engine;
}

pat_engine *pat_comm_engine_at(pat_comm_state *cs, int site) {
  pat_engine *e = pat_comm_engine(cs);
  if (e && site >= 0 && !cs->engine_site[site]) {
    pat_engine_new_site(e, site, pat_sites_block_bytes(&cs->sites, site), cs->sites.site[site].shape);
    cs->engine_site[site] = 1;
  }
  return e;
}

pat_engine *pat_comm_engine_of(pat_comm_state *cs, int site) {
  return cs->engine_ready && site >= 0 && cs->engine_site[site] ? &cs->engine : NULL;
}

int pat_comm_fixed_exchanges(const pat_comm_state *cs, int setting) {
  return cs->base.P > 1 && setting >= 0 && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL);
}

/* The state of comm, made now without communication where it has none:
 * attached to comm and registered, its blocking calls' channels not yet
 * agreed.  Returns an MPI error code. */
static int find_or_make(MPI_Comm comm, pat_comm_state **out) {
  void *value;
  int found = 0, rc = MPI_Comm_get_attr(comm, keyval, &value, &found);
  if (rc != MPI_SUCCESS) return pat_fail(rc, "cannot read communicator attribute");
  if (found) {
    *out = value;
    return MPI_SUCCESS;
  }
  pat_comm_state *cs = calloc(1, sizeof *cs);
  rc = cs ? set_up_locally(cs, comm) : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(comm, keyval, cs);
  if (rc != MPI_SUCCESS) {
    if (cs) destroy_state(cs);
    return pat_fail(rc, "cannot set up libpat's state of the communicator");
  }
  pthread_mutex_lock(&registry_lock);
  cs->next = live;
  live = cs;
  pthread_mutex_unlock(&registry_lock);
  *out = cs;
  return MPI_SUCCESS;
}

int pat_comm_posted(MPI_Comm comm, pat_comm_state **out) {
  pat_comm_state *cs = pat_comm_cached(comm);
  if (cs) {
    *out = cs;
    return MPI_SUCCESS;
  }
  return find_or_make(comm, out);
}

/* The blocking calls' part of cs, at their first call (collective): every
 * rank says whether it could take its channels; then the channel numbers go
 * round.  Two collectives on comm, in the application's own call, so in the
 * collective order MPI requires whatever else is outstanding on comm. */
static int agree_blocking(pat_comm_state *cs, MPI_Comm comm) {
  int status = cs->base.P < 2 ? ROUTE_OK : take_channels(cs);
  int least = ROUTE_NO_MEMORY;
  int rc = PMPI_Allreduce(&status, &least, 1, MPI_INT, MPI_MIN, comm);
  if (rc == MPI_SUCCESS && least == ROUTE_NO_MEMORY) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && least == ROUTE_NONE) rc = own_duplicates(cs, comm);
  if (rc == MPI_SUCCESS && least == ROUTE_OK && cs->base.P > 1) rc = agree_channels(cs, comm);
  /* 100 us: twice the schedules' nap, as this wait is for an arrival (ms), not a message */
  if (rc == MPI_SUCCESS && cs->base.P > 1 && pat_node_oversubscribed()) cs->x.wait_nap_ns = 100000;
  if (rc != MPI_SUCCESS) return pat_fail(rc, "PAT_Allgather: cannot set up libpat's state of the communicator");
  cs->blocking_ready = 1;
  return MPI_SUCCESS;
}

int pat_comm_get(MPI_Comm comm, pat_comm_state **out) {
  unsigned generation = atomic_load(&pat_comm_lookup_generation);
  if ((*out = pat_comm_cached(comm)) != NULL) return MPI_SUCCESS;
  pat_comm_state *cs;
  int rc = find_or_make(comm, &cs);
  if (rc == MPI_SUCCESS && !cs->blocking_ready) rc = agree_blocking(cs, comm);
  if (rc != MPI_SUCCESS) return rc;
  /* the generation read before: a retirement meanwhile makes the entry stale */
  pat_comm_last_lookup.comm = comm;
  pat_comm_last_lookup.cs = cs;
  pat_comm_last_lookup.generation = generation;
  *out = cs;
  return MPI_SUCCESS;
}

void pat_comm_set_current(pat_comm_state *cs) {
  if (atomic_load(&current) == cs) return; /* the usual case: the same communicator again */
  pthread_mutex_lock(&current_lock);
  current = cs;
  pthread_mutex_unlock(&current_lock);
}

pat_comm_state *pat_comm_try_current(void) {
  pthread_mutex_lock(&current_lock);
  pat_comm_state *cs = current;
  /* Only try: a foreground call holds the lock across blocking
   * communication, and waiting for it here (with current_lock held) is the
   * deadlock of issue 25.  The others who take it -- the background thread
   * during one non-blocking pass, a query, a retirement -- hand it back
   * after a bounded time, so retrying while no call holds it is bounded. */
  while (cs && pthread_mutex_trylock(&cs->lock) != 0) {
    if (atomic_load_explicit(&cs->in_call, memory_order_relaxed)) cs = NULL;
    else sched_yield();
  }
  if (cs && atomic_load_explicit(&cs->in_call, memory_order_relaxed)) { /* cannot be: set under the lock */
    pthread_mutex_unlock(&cs->lock);
    cs = NULL;
  }
  if (!cs) pthread_mutex_unlock(&current_lock);
  return cs;
}

void pat_comm_unlock_current(pat_comm_state *cs) {
  int wake = cs->has_work;
  pthread_mutex_unlock(&cs->lock);
  pthread_mutex_unlock(&current_lock);
  if (wake) pat_wakeup_ring();
}

void pat_comm_mark_work(pat_comm_state *cs) { cs->has_work = 1; }

/* The communicators to visit: live ones with work, and every retiring one;
 * -1 if there are some but no memory to list them (try again later). */
static int snapshot(pat_comm_state ***out, int *nlive) {
  pthread_mutex_lock(&registry_lock);
  int n = 0;
  for (pat_comm_state *cs = live; cs; cs = cs->next) n++;
  for (pat_comm_state *cs = retiring; cs; cs = cs->next) n++;
  pat_comm_state **v = n ? malloc((size_t)n * sizeof *v) : NULL;
  int k = 0;
  if (v) {
    for (pat_comm_state *cs = live; cs; cs = cs->next) v[k++] = cs;
    *nlive = k;
    for (pat_comm_state *cs = retiring; cs; cs = cs->next) v[k++] = cs;
  }
  pthread_mutex_unlock(&registry_lock);
  *out = v;
  return v ? k : n ? -1 : 0;
}

static int progress_retiring(pat_comm_state *cs) {
  pthread_mutex_lock(&cs->lock);
  int finished = pat_retire_progress(&cs->retire, &cs->base, &cs->x, &cs->planner);
  pthread_mutex_unlock(&cs->lock);
  if (!finished || atomic_load(&cs->nbc)) return 1; /* its non-blocking calls still in flight */
  pthread_mutex_lock(&registry_lock);
  unlink_from(&retiring, cs);
  pthread_mutex_unlock(&registry_lock);
  destroy_state(cs);
  return 0;
}

int pat_comm_background_pass(int (*fn)(pat_comm_state *cs), int (*queue)(pat_comm_state *cs, void *arg), void *arg) {
  pat_comm_state **v;
  int nlive = 0, n = snapshot(&v, &nlive), busy = n < 0; /* out of memory: not idle, retry after a backoff */
  for (int i = 0; i < n; i++) {
    pat_comm_state *cs = v[i];
    /* its queued calls whatever holds its lock: a blocking call on it may wait for another rank that
     * waits for one of them */
    if (atomic_load(&cs->nbc)) busy |= queue(cs, arg);
    if (i >= nlive) {
      busy |= progress_retiring(cs);
      continue;
    }
    /* a live one may retire meanwhile: it is then on the other list, and still here */
    /* held (a call, instrumentation, a query): the holder wakes this thread
     * on releasing it if cs has work, so a skip is not counted busy */
    if (pthread_mutex_trylock(&cs->lock) != 0) continue;
    if (cs->has_work && cs->retire.stage == 0) {
      cs->has_work = fn(cs);
      busy |= cs->has_work;
    }
    pthread_mutex_unlock(&cs->lock);
  }
  free(v);
  return busy;
}

void pat_comm_each(void (*fn)(pat_comm_state *cs, void *arg), void *arg) {
  pat_comm_state **v;
  int nlive = 0, n = snapshot(&v, &nlive);
  for (int i = 0; i < n; i++) fn(v[i], arg);
  free(v);
}

void pat_comms_finalize(void) {
  /* PAT_Finalize is collective: every rank retires every communicator here,
   * then all of them progress together until each is done */
  for (;;) {
    pthread_mutex_lock(&registry_lock);
    pat_comm_state *cs = live;
    pthread_mutex_unlock(&registry_lock);
    if (!cs) break;
    if (MPI_Comm_delete_attr(cs->base.user, keyval) != MPI_SUCCESS) retire(cs); /* runs delete_fn, which retires it */
  }
  for (;;) {
    pthread_mutex_lock(&registry_lock);
    pat_comm_state *cs = retiring;
    pthread_mutex_unlock(&registry_lock);
    if (!cs) break;
    int busy = 0;
    for (pat_comm_state *next; cs; cs = next) {
      next = cs->next;
      busy |= progress_retiring(cs);
    }
    (void)busy;
  }
  if (keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&keyval);
  free(world_node);
  world_node = NULL;
}
