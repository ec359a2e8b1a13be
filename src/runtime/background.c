/*
 * The background thread: progresses arrival exchanges, makes the plan as
 * soon as the records are in, and runs the background part of an
 * arrival-aware schedule (receives, and forwards where the algorithm has
 * them) while the application still computes.
 *
 * It never blocks in MPI and never waits for a communicator the foreground
 * holds: it tests, then sleeps on its doorbell (wakeup.h) with a short
 * backoff while something is in flight, and until it is rung when nothing
 * is, so an idle thread costs no CPU at all (measured in
 * PAT_Stats.bg_cpu_seconds); but while a run started ahead of a call
 * waits (run.h: a persistent call's next round too) it keeps polling at its
 * backoff, as that call's blocks may come at any time.  Whoever gives it work rings: a communicator's
 * lock released with work marked (comm.h: pat_comm_leave_call,
 * pat_comm_unlock_current, pat_comm_unlock), a retirement (comm.c),
 * pat_background_stop.  A communicator it skipped because another thread
 * held its lock is rung for by that thread, when it releases the lock.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "runtime/background.h"

#include <pthread.h>
#include <time.h>

#include "algorithms/algorithms.h"
#include "pat/clock.h"
#include "pat/shape.h"
#include "runtime/bind.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/nbc_queue.h"
#include "runtime/process.h"
#include "runtime/stats.h"
#include "runtime/wait_nap.h"
#include "runtime/wakeup.h"

#define BACKOFF_MIN_NS 20000LL      /* 20 us */
#define BACKOFF_MAX_NS 500000LL     /* 0.5 ms */
/* With more ranks than CPUs on the node each pass (MPI_Test: Open MPI polls
 * every transport, and yields) takes a CPU from a rank with data to move;
 * arrivals and forwards still matter at the scale of a block's time (ms on a
 * link that oversubscribed CPUs can keep up with). */
#define BACKOFF_MAX_OVERSUBSCRIBED_NS 2000000LL /* 2 ms */

static pthread_t bg_thread;
static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER; /* guards bg_running */
static int bg_running;      /* started and not being stopped: its CPU clock can be read */
static int64_t bg_start_ns; /* local clock, when the thread was started */

/* Progress one communicator the foreground does not hold: its exchange,
 * then the plan (decided as soon as the records are in), then the plan's
 * background part.  Returns 1 while there is more to do. */
static int progress_comm(pat_comm_state *cs) {
  if (cs->x.state == PAT_X_STARTED) {
    int done;
    if (pat_exchange_test(&cs->x, &done) != MPI_SUCCESS) return 0; /* the call will report it */
    if (!done) return 1;
  }
  if (cs->x.state != PAT_X_DONE) return 0;
  pat_plan *plan = &cs->planner.plan;
  if (!plan->decided) {
    pat_xsummary sum;
    pat_exchange_summary(&cs->x, &sum);
    /* plan ahead only when every rank expects the same call */
    if (sum.agreed_bytes <= 0 || sum.setting == PAT_XSETTING_MIXED) return 0;
    int site = pat_sites_lookup(&cs->sites, sum.agreed_bytes);
    const int64_t *shape = site >= 0 ? cs->sites.site[site].shape : NULL;
    /* unequal blocks are planned with those of the site's last call */
    if (pat_key_is_shape(sum.agreed_bytes) && !shape) return 0;
    pat_plan_call call = {.site = site,
                          .setting = sum.setting,
                          .key = sum.agreed_bytes,
                          .bytes = shape ? pat_sites_block_bytes(&cs->sites, site) : sum.agreed_bytes,
                          .shape = shape,
                          .bg_start_ns = sum.complete_ns};
    /* auto's plan needs the engine's state of the site, which only a call makes (at agreed points,
     * so alike on every rank): where it is not made yet, the call decides */
    pat_engine *engine = NULL;
    if (sum.setting == PAT_ALG_AUTO) {
      if (!cs->engine_ready || (site >= 0 && !cs->engine_site[site])) return 0;
      engine = &cs->engine;
    }
    pat_plan_decide(&cs->planner, &cs->base, engine, &cs->x, &cs->sites, &call);
    if (!(pat_algorithms[plan->choice.alg].flags & PAT_ALGF_ARRIVAL)) return 0;
    if (pat_plan_prepare_exec(&cs->planner, &cs->base, cs->x.seq) != MPI_SUCCESS)
      return 0; /* the call will report it */
  }
  if (!plan->has_exec) return 0;
  int busy = 0;
  if (pat_plan_progress(&cs->planner, &busy) != MPI_SUCCESS) return 0;
  return busy;
}

/* A communicator's queued calls: non-blocking, all-reduces, persistent rounds (nbc_queue.h). */
static int progress_queue(pat_comm_state *cs, void *pass) { return pat_nbc_progress_comm(cs, pass); }

/* One pass: every communicator once (its queued calls; its exchange and
 * plan, or its retirement: comm.h), then what the queues finished completes
 * and the persistent starts' signals go (nbc_queue.h).  1 while anything is
 * in flight. */
static int progress_pass(void) {
  pat_nbc_pass pass = {.may_free = 1};
  int busy = pat_comm_background_pass(progress_comm, progress_queue, &pass);
  return pat_nbc_end_pass(&pass, 1) | busy;
}

/* The thread's CPU time on `clock` (its own CPU-time clock, readable from
 * any thread while it sleeps: its passes need no system call for it). */
static void read_times(clockid_t clock, double *cpu_s, double *wall_s) {
  struct timespec cpu = {0, 0};
  clock_gettime(clock, &cpu);
  *cpu_s = (double)cpu.tv_sec + 1e-9 * (double)cpu.tv_nsec;
  *wall_s = 1e-9 * (double)(pat_clock_local_ns() - bg_start_ns);
}

int pat_background_times(double *cpu_s, double *wall_s) {
  pthread_mutex_lock(&bg_lock); /* bg_running: not yet joined (pat_background_stop) */
  clockid_t clock;
  int running = pat_proc.background && bg_running && pthread_getcpuclockid(bg_thread, &clock) == 0;
  if (running) read_times(clock, cpu_s, wall_s);
  pthread_mutex_unlock(&bg_lock);
  return running;
}

static void *bg_main(void *arg) {
  (void)arg;
  /* so that top -H, /proc/PID/task/TID/comm and gdb tell it from the
   * application's and MPI's threads (its CPU per rank is measured that way) */
  pthread_setname_np(pthread_self(), "pat-bg");
  pat_bind_background_thread(&pat_proc.settings, pat_proc.world_rank);
  int64_t backoff = BACKOFF_MIN_NS;
  const int64_t backoff_max = pat_node_oversubscribed() ? BACKOFF_MAX_OVERSUBSCRIBED_NS : BACKOFF_MAX_NS;
  while (pat_wakeup_begin_pass()) {
    int busy = progress_pass();
    /* nothing in flight, nothing retiring: sleep until someone gives work */
    enum pat_wakeup_result r = pat_wakeup_wait(busy ? backoff : -1);
    if (r == PAT_WAKEUP_PENDING) continue; /* work came during the pass: at once, backoff as it was */
    if (!busy || r == PAT_WAKEUP_RUNG)
      backoff = BACKOFF_MIN_NS;
    else
      backoff = backoff * 2 > backoff_max ? backoff_max : backoff * 2;
  }
  double cpu, wall;
  read_times(CLOCK_THREAD_CPUTIME_ID, &cpu, &wall); /* what PAT_GetStats says once the thread is gone */
  pat_stats_background(cpu, wall);
  return NULL;
}

int pat_background_start(void) {
  pat_wakeup_open();
  bg_start_ns = pat_clock_local_ns();
  pthread_mutex_lock(&bg_lock);
  bg_running = pthread_create(&bg_thread, NULL, bg_main, NULL) == 0;
  pthread_mutex_unlock(&bg_lock);
  if (!bg_running) {
    pat_wakeup_destroy();
    return pat_fail(MPI_ERR_OTHER, "PAT_Init: cannot start the background thread");
  }
  pat_proc.background = 1;
  return MPI_SUCCESS;
}

void pat_background_stop(void) {
  if (!pat_proc.background) return;
  pthread_mutex_lock(&bg_lock); /* pat_background_times: no more reading its clock */
  bg_running = 0;
  pthread_mutex_unlock(&bg_lock);
  pat_wakeup_close();
  pthread_join(bg_thread, NULL);
  pat_wakeup_destroy();
  pat_proc.background = 0;
}
