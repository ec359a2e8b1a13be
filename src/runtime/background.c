/*
 * The background thread: progresses arrival exchanges, makes the plan as
 * soon as the records are in, and runs the background part of an
 * arrival-aware schedule (receives, and forwards where the algorithm has
 * them) while the application still computes.
 *
 * It never blocks in MPI and never waits for a communicator the foreground
 * holds: it tests, then sleeps on a condition variable with a short backoff
 * while something is in flight, and for long when nothing is, so it costs
 * little CPU (measured in PAT_Stats.bg_cpu_seconds).  The foreground wakes it
 * when it gives it work.
 */
#include "runtime/background.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "algorithms/algorithms.h"
#include "pat/clock.h"
#include "runtime/bind.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"

#define BACKOFF_MIN_NS 20000LL      /* 20 us */
#define BACKOFF_MAX_NS 500000LL     /* 0.5 ms */
#define IDLE_SLEEP_NS 100000000LL   /* 100 ms */

static pthread_t bg_thread;
static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER; /* guards the two flags below */
static pthread_cond_t bg_cond;
static int bg_running;
static int bg_work_pending;

void pat_background_wake(void) {
  if (!pat_proc.background) return;
  pthread_mutex_lock(&bg_lock);
  bg_work_pending = 1;
  pthread_cond_signal(&bg_cond);
  pthread_mutex_unlock(&bg_lock);
}

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
    pat_plan_decide(cs, pat_sites_lookup(&cs->sites, sum.agreed_bytes), sum.setting, sum.agreed_bytes,
                    sum.complete_ns, 0);
    if (!(pat_algorithms[plan->choice.alg].flags & PAT_ALGF_ARRIVAL)) return 0;
    if (pat_plan_prepare_exec(cs) != MPI_SUCCESS) return 0; /* the call will report it */
  }
  if (!plan->has_exec) return 0;
  int busy = 0;
  if (pat_plan_progress(cs, &busy) != MPI_SUCCESS) return 0;
  return busy;
}

static void update_cpu_stats(int64_t start_ns) {
  struct timespec cpu;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  pat_stats_background((double)cpu.tv_sec + 1e-9 * (double)cpu.tv_nsec,
                       1e-9 * (double)(pat_clock_local_ns() - start_ns));
}

static void *bg_main(void *arg) {
  (void)arg;
  pat_bind_background_thread(&pat_proc.settings, pat_proc.world_rank);
  int64_t start = pat_clock_local_ns(), backoff = BACKOFF_MIN_NS;
  pthread_mutex_lock(&bg_lock);
  while (bg_running) {
    int busy = 0;
    bg_work_pending = 0;
    pthread_mutex_unlock(&bg_lock);
    busy = pat_comm_background_pass(progress_comm);
    update_cpu_stats(start);
    pthread_mutex_lock(&bg_lock);
    if (bg_work_pending) continue;
    int64_t sleep_ns = busy ? backoff : IDLE_SLEEP_NS;
    backoff = busy ? (backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : backoff * 2) : BACKOFF_MIN_NS;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += sleep_ns % 1000000000LL;
    until.tv_sec += sleep_ns / 1000000000LL + until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    while (bg_running && !bg_work_pending)
      if (pthread_cond_timedwait(&bg_cond, &bg_lock, &until) == ETIMEDOUT) break;
    if (bg_work_pending) backoff = BACKOFF_MIN_NS;
  }
  pthread_mutex_unlock(&bg_lock);
  update_cpu_stats(start);
  return NULL;
}

int pat_background_start(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&bg_cond, &attr);
  pthread_condattr_destroy(&attr);
  bg_running = 1;
  bg_work_pending = 0;
  if (pthread_create(&bg_thread, NULL, bg_main, NULL) != 0) {
    bg_running = 0;
    pthread_cond_destroy(&bg_cond);
    return pat_fail(MPI_ERR_OTHER, "PAT_Init: cannot start the background thread");
  }
  pat_proc.background = 1;
  return MPI_SUCCESS;
}

void pat_background_stop(void) {
  if (!pat_proc.background) return;
  pthread_mutex_lock(&bg_lock);
  bg_running = 0;
  pthread_cond_signal(&bg_cond);
  pthread_mutex_unlock(&bg_lock);
  pthread_join(bg_thread, NULL);
  pthread_cond_destroy(&bg_cond);
  pat_proc.background = 0;
}
