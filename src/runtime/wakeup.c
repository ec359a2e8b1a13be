/* The background thread's doorbell (see wakeup.h). */
#include "runtime/wakeup.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "runtime/process.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards the two flags below */
static pthread_cond_t cond;
static int open_;   /* the thread should go on */
static int pending; /* rung since the thread's pass began */

void pat_wakeup_open(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&cond, &attr);
  pthread_condattr_destroy(&attr);
  open_ = 1;
  pending = 0;
}

void pat_wakeup_destroy(void) { pthread_cond_destroy(&cond); }

void pat_wakeup_ring(void) {
  if (!pat_proc.background) return;
  pthread_mutex_lock(&lock);
  pending = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&lock);
}

int pat_wakeup_begin_pass(void) {
  pthread_mutex_lock(&lock);
  pending = 0;
  int go_on = open_;
  pthread_mutex_unlock(&lock);
  return go_on;
}

enum pat_wakeup_result pat_wakeup_wait(int64_t timeout_ns) {
  pthread_mutex_lock(&lock);
  if (pending) {
    pthread_mutex_unlock(&lock);
    return PAT_WAKEUP_PENDING;
  }
  if (timeout_ns < 0) {
    while (open_ && !pending) pthread_cond_wait(&cond, &lock);
  } else {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += timeout_ns;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    while (open_ && !pending)
      if (pthread_cond_timedwait(&cond, &lock, &until) == ETIMEDOUT) break;
  }
  enum pat_wakeup_result r = open_ && !pending ? PAT_WAKEUP_TIMEOUT : PAT_WAKEUP_RUNG;
  pthread_mutex_unlock(&lock);
  return r;
}

void pat_wakeup_close(void) {
  pthread_mutex_lock(&lock);
  open_ = 0;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&lock);
}
