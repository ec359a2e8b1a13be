/*
 * The state libpat keeps per user communicator: one context that every
 * call form shares, made at the first call of any form on it (locally:
 * no communication) and kept as an MPI attribute, so that it goes with the
 * communicator; it outlives the application's handle while any of libpat's
 * operations on it is pending (retire.h, nbc_queue.h).  Blocking calls add
 * their two channels at their first call (collective, pat_comm_get),
 * non-blocking calls their one at theirs (non-blocking, nbc_queue.c).  Its parts belong to the modules named beside
 * them, whose functions take only their part, the base and the parts they
 * read (plan.h, retire.h, report.h, and below the runtime pat/exchange.h,
 * pat/sites.h, decide/engine.h): only the modules above this one (call,
 * background, arrivals, debug, runtime) hold the whole state and hand its
 * parts out.  This file owns the communicator's lock and lifecycle, the
 * registry the background thread walks, and the communicator that
 * instrumentation predictions go to.
 */
#ifndef PAT_COMM_H
#define PAT_COMM_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "exec/buffers.h"
#include "pat/exchange.h"
#include "pat/sites.h"
#include "decide/allreduce_choice.h"
#include "decide/engine.h"
#include "runtime/comm_base.h"
#include "runtime/plan.h"
#include "runtime/report.h"
#include "runtime/retire.h"
#include "runtime/wakeup.h"

struct pat_nbc_context; /* the non-blocking calls' queue on it (nbc_queue.c) */

typedef struct pat_comm_state {
  pat_comm_base base; /* handles and shape (comm_base.h) */
  int *world;  /* every rank's MPI_COMM_WORLD rank (MPI_UNDEFINED: outside it, dynamic processes) */
  int outside; /* a rank is outside MPI_COMM_WORLD: no channel reaches it (the same on every rank) */
  int blocking_ready; /* the blocking calls' channels (or duplicates) agreed: pat_comm_get */
  atomic_int freed;   /* the application freed its communicator (or PAT_Finalize): no call comes any more */
  _Atomic(struct pat_nbc_context *) nbc; /* made at the first non-blocking call libpat runs; the state is
                                            freed only after it (its calls done: nbc_queue.c) */
  /* Where its blocking calls' messages go (channels.h): two channels of this rank's, [0] for
   * schedules and retirement, [1] for the arrival exchange (-1: none; P = 1 needs none), and
   * the communicators each rank's channels are (send[k][r]); route: schedules' */
  int channel[2];
  MPI_Comm *send[2];
  int *agreed; /* every rank's channels, during the first call */
  pat_route route;
  int own_dups; /* no route (a rank had no channel free, or is outside MPI_COMM_WORLD): two private
                   duplicates of the communicator instead (pat_private_dup; the same on every rank) */
  int *node;        /* node id of every rank (ranks sharing memory share it) */
  pat_nodes nodes;  /* its map, made with it (base.nodes) */
  pthread_mutex_t lock; /* the foreground holds it for a whole call; the background only tries */
  atomic_int in_call;   /* a foreground call holds the lock (set and cleared under it): don't wait for it */
  pat_exchange x;          /* the arrival exchange of the next call (pat/exchange.h) */
  pat_sites sites;         /* call-site history: predicts the next arrival (pat/sites.h) */
  pat_planner planner;     /* plans and schedule caches (plan.h) */
  pat_engine engine;       /* auto's decisions: when calls exchange, what they run, what they cost (decide/engine.h);
                              made at the first call under auto (pat_comm_engine): a fixed setting never enters it */
  int engine_ready;        /* engine made */
  unsigned char engine_site[PAT_SITES_MAX]; /* the engine has its state of call site i (made at the site's
                              first call under auto: a site made under a fixed setting has none yet) */
  int next_exchanges;      /* the next call exchanges: ranks may contribute ahead of it (the engine's word after
                              a call under auto, the setting's after a fixed one) */
  pat_comm_report report;  /* per-site statistics for PAT_REPORT (report.h) */
  int has_work;            /* the background thread has something to progress (cs->lock) */
  pat_retirement retire;   /* after the application freed it (retire.h) */
  /* auto's all-reduce choices (allreduce.c), set up at the first all-reduce auto may time; touched
   * only by the thread in an all-reduce on it (MPI orders a communicator's collectives) */
  int ared_eligible; /* 0: not known yet; 1: it spans several nodes and libpat's schedules run there; 2: not */
  int ared_nodes;    /* with ared_eligible: its ranks share nodes (auto's ring candidate is then HRING) */
  pat_ared_choice ared;
  int64_t *ared_stamps; /* the arrival stamps (P, the common clock) of its last all-reduce that gathered them
                         * (the arrival-aware ones': RELAY, HRELAY, SLT); NULL: none yet */
  struct pat_comm_state *next;
} pat_comm_state;

/* At PAT_Init: the attribute key and the node of every world rank
 * (collective over world). */
int pat_comms_init(MPI_Comm world);

/* Does auto defer to NATIVE on world, hence on every communicator
 * (pat_engine_one_node_native)?  After pat_comms_init. */
int pat_comms_world_one_node_native(void);
/* Do all world ranks share one node?  After pat_comms_init. */
int pat_comms_world_one_node(void);
/* Do world ranks a and b share a node?  After pat_comms_init (1 when it
 * cannot tell). */
int pat_comms_world_same_node(int a, int b);
/* The nodes of world (its node map's; 0 without one). */
int pat_comms_world_nodes(void);
/* The world's placement (model/placement.h), 0 before pat_comms_init. */
uint64_t pat_comms_world_placement(void);
/* The number of nodes comm's ranks are on (the world map, no
 * communication; the same on every rank), 0 if it cannot tell. */
int pat_comm_node_count(MPI_Comm comm);
/* The MPI_COMM_WORLD rank of each of comm's P ranks into world[P]
 * (MPI_UNDEFINED for one outside it: dynamic processes).  No communication.
 * Returns an MPI error code. */
int pat_comm_world_ranks(MPI_Comm comm, int P, int *world);
/* auto's engine of cs, made on first use (cs->lock held); NULL when out of
 * memory.  pat_comm_engine_at also gives it its state of call site `site`
 * (>= 0, made by now) where it has none yet; pat_comm_engine_of returns the
 * engine only where it has that state (else NULL: no call of the site ran
 * under auto), without making anything. */
pat_engine *pat_comm_engine(pat_comm_state *cs);
pat_engine *pat_comm_engine_at(pat_comm_state *cs, int site);
pat_engine *pat_comm_engine_of(pat_comm_state *cs, int site);
/* Does a call under a fixed setting exchange arrivals (an arrival-aware
 * algorithm on several ranks)?  The engine is not asked. */
int pat_comm_fixed_exchanges(const pat_comm_state *cs, int setting);

/* At PAT_Finalize: release every communicator's state, free the key. */
void pat_comms_finalize(void);

/* The state of a user communicator, ready for blocking calls: made on first
 * use, its blocking calls' channels agreed at their first call (collective). */
int pat_comm_get(MPI_Comm comm, pat_comm_state **out);
/* The state of an intra-communicator, made now where it has none, without
 * communication (a non-blocking call's: nothing may block there). */
int pat_comm_posted(MPI_Comm comm, pat_comm_state **out);
/* The state this thread looked up last, if comm is its communicator and no
 * communicator retired since (else NULL): no MPI call.  A state exists only
 * for a valid intra-communicator, and freeing one retires it, so a hit is
 * also a valid intra-communicator.  A program calls the all-gather on the
 * same communicator again and again, and the attribute lookup costs far more
 * than the rest of a call that needs no exchange; inline, since it is most
 * of the pass-through's gate (through.h).  The entry is initial-exec TLS: a
 * plain load instead of a __tls_get_addr call, which showed in a 1 B call's
 * profile.  libpat is loaded with the program (linked, or under
 * libpat_mpi.so); a dlopen'ed libpat takes these 24 bytes from the static
 * TLS surplus glibc keeps for that.  Written by comm.c only. */
typedef struct pat_comm_lookup {
  MPI_Comm comm;
  pat_comm_state *cs;
  unsigned generation; /* of pat_comm_lookup_generation when it was made */
} pat_comm_lookup;
extern _Thread_local pat_comm_lookup pat_comm_last_lookup __attribute__((tls_model("initial-exec")));
extern atomic_uint pat_comm_lookup_generation; /* every retirement adds one */
static inline pat_comm_state *pat_comm_cached(MPI_Comm comm) {
  const pat_comm_lookup *last = &pat_comm_last_lookup;
  return last->cs && last->comm == comm && last->generation == atomic_load(&pat_comm_lookup_generation) ? last->cs
                                                                                                      : NULL;
}
/* The state of a communicator that already has one, else NULL. */
pat_comm_state *pat_comm_find(MPI_Comm comm);

/* The communicator of the last call: where instrumentation predictions go.
 * pat_comm_try_current returns it locked, or NULL if there is none or a
 * foreground call is inside it (it never waits for such a call, only for the
 * background thread's bounded hand-over); it stays valid until
 * pat_comm_unlock_current, even if another thread frees it meanwhile. */
void pat_comm_set_current(pat_comm_state *cs);
pat_comm_state *pat_comm_try_current(void);
void pat_comm_unlock_current(pat_comm_state *cs);

/* Release cs->lock, taken with pthread_mutex_lock by anyone but the
 * background thread, and wake that thread if cs has work for it: it may
 * have skipped cs while the lock was held, and an idle thread sleeps until
 * it is woken. */
static inline void pat_comm_unlock(pat_comm_state *cs) {
  int wake = cs->has_work;
  pthread_mutex_unlock(&cs->lock);
  if (wake) pat_wakeup_ring();
}

/* A foreground call takes / leaves its communicator (the lock for the whole
 * call, and the flag that tells others not to wait for it). */
static inline void pat_comm_enter_call(pat_comm_state *cs) {
  pthread_mutex_lock(&cs->lock);
  atomic_store_explicit(&cs->in_call, 1, memory_order_relaxed);
}
static inline void pat_comm_leave_call(pat_comm_state *cs) {
  atomic_store_explicit(&cs->in_call, 0, memory_order_relaxed);
  pat_comm_unlock(cs);
}

/* Tell the background thread that cs has work (cs->lock held).  It is
 * woken when the lock is released (pat_comm_unlock, pat_comm_leave_call,
 * pat_comm_unlock_current): woken while the lock is still held, its pass
 * would find the communicator busy, skip it and sleep until woken again. */
void pat_comm_mark_work(pat_comm_state *cs);

/* The background thread's pass, one visit per communicator: its queued
 * calls where it has some (queue(cs, arg), whoever holds its lock), then,
 * live, its exchange and plan where it has work and its lock is free (fn,
 * with the lock held; both return 1 while work remains), or, retiring, its
 * retirement; those that are done are freed.  Returns 1 while anything is
 * in flight.  No registry lock is held while fn or queue runs. */
int pat_comm_background_pass(int (*fn)(pat_comm_state *cs), int (*queue)(pat_comm_state *cs, void *arg), void *arg);
/* fn(cs, arg) for every communicator's state, live or retiring (the
 * shutdown's, once the background thread stopped: none is freed meanwhile). */
void pat_comm_each(void (*fn)(pat_comm_state *cs, void *arg), void *arg);

#endif
