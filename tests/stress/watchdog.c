/* The hang watchdog (see watchdog.h). */
#include "watchdog.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static int running, stopping, rank = -1;
static double limit;
static struct timespec since;
static char text[WATCHDOG_TEXT], program[64];

static double seconds_between(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* Every thread's stack, from gdb attached to this process (not if
 * STRESS_NO_GDB is set, or gdb is missing): where a hang waits. */
static void print_stacks(void) {
  if (getenv("STRESS_NO_GDB")) return;
  char cmd[256];
  snprintf(cmd, sizeof cmd,
           "gdb -batch -nx -p %d -ex 'thread apply all bt 30' 2>/dev/null | grep -v '^\\[New LWP' 1>&2",
           (int)getpid());
  fprintf(stderr, "HANG world rank %d: every thread's stack:\n", rank);
  fflush(stderr);
  if (system(cmd) != 0) fprintf(stderr, "(gdb could not print the stacks)\n");
}

static void report_and_abort(double stuck) {
  fprintf(stderr, "HANG %s world rank %d: no progress for %.0f s in: %s\n", program, rank, stuck, text);
  fflush(stderr);
  print_stacks();
  MPI_Abort(MPI_COMM_WORLD, WATCHDOG_EXIT);
}

/* Wakes up every 200 ms (or when stopped) and compares the phase's age with the limit. */
static void *watch(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!stopping) {
    struct timespec now, until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&wake, &lock, &until);
    clock_gettime(CLOCK_MONOTONIC, &now);
    double stuck = seconds_between(&since, &now);
    if (!stopping && stuck > limit) report_and_abort(stuck);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

void watchdog_start(double limit_s, const char *prog) {
  if (limit_s <= 0) return;
  limit = limit_s;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(program, sizeof program, "%s", prog);
  clock_gettime(CLOCK_MONOTONIC, &since);
  snprintf(text, sizeof text, "start");
  stopping = 0;
  running = pthread_create(&thread, NULL, watch, NULL) == 0;
}

void watchdog_enter(const char *what) {
  if (!running) return;
  pthread_mutex_lock(&lock);
  clock_gettime(CLOCK_MONOTONIC, &since);
  snprintf(text, sizeof text, "%s", what);
  pthread_mutex_unlock(&lock);
}

void watchdog_stop(void) {
  if (!running) return;
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  running = 0;
}
