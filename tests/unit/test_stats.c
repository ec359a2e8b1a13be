/* The per-call counters of PAT_GetStats (src/runtime/stats.c): each thread
 * counts its own calls without a locked instruction, so these check that no
 * call is lost or counted twice when threads count at once, exit before the
 * read, or count after a reset. */
#include <pthread.h>

#include "pat.h"
#include "runtime/stats.h"
#include "testutil.h"

enum { THREADS = 6, CALLS = 20000, SLOTS = 16 };

typedef struct job {
  int alg; /* the slot this thread's calls go to; SLOTS: no slot ("other") */
  pthread_barrier_t *start;
} job;

static void *count_calls(void *arg) {
  job *j = arg;
  pthread_barrier_wait(j->start); /* every thread counts at once */
  pat_call_stats c = {.alg = j->alg < SLOTS ? j->alg : -1};
  for (int i = 0; i < CALLS; i++) pat_stats_call(&c);
  return NULL;
}

/* THREADS threads count CALLS calls each and exit, while this thread counts
 * `own` calls to slot 0. */
static void run_threads(const int algs[THREADS], int own) {
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  pthread_t t[THREADS];
  job jobs[THREADS];
  for (int i = 0; i < THREADS; i++) {
    jobs[i] = (job){algs[i], &start};
    pthread_create(&t[i], NULL, count_calls, &jobs[i]);
  }
  pat_call_stats c = {.alg = 0};
  for (int i = 0; i < own; i++) pat_stats_call(&c);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
}

int main(void) {
  pat_stats_reset();
  PAT_Stats s;
  pat_stats_read(&s);
  CHECK(s.calls == 0, "after a reset: %lld calls", s.calls);

  /* two threads share slot 3, one counts calls without a slot */
  const int algs[THREADS] = {1, 3, 3, 5, 7, SLOTS};
  run_threads(algs, 1000);
  pat_stats_read(&s);
  CHECK(s.calls == (long long)THREADS * CALLS + 1000, "%lld calls, expected %lld", s.calls,
        (long long)THREADS * CALLS + 1000);
  CHECK(s.calls_per_alg[0] == 1000, "slot 0 (this thread): %lld", s.calls_per_alg[0]);
  CHECK(s.calls_per_alg[1] == CALLS, "slot 1: %lld", s.calls_per_alg[1]);
  CHECK(s.calls_per_alg[3] == 2 * CALLS, "slot 3 (two threads): %lld", s.calls_per_alg[3]);
  CHECK(s.calls_per_alg[5] == CALLS && s.calls_per_alg[7] == CALLS, "slots 5, 7: %lld %lld", s.calls_per_alg[5],
        s.calls_per_alg[7]);
  long long in_slots = 0;
  for (int a = 0; a < SLOTS; a++) in_slots += s.calls_per_alg[a];
  CHECK(s.calls - in_slots == CALLS, "calls without a slot: %lld", s.calls - in_slots);

  /* a reset forgets the exited threads' calls and this thread's */
  pat_stats_reset();
  pat_stats_read(&s);
  CHECK(s.calls == 0 && s.calls_per_alg[3] == 0, "after the second reset: %lld calls, slot 3 %lld", s.calls,
        s.calls_per_alg[3]);

  /* new threads after the reset, and this thread again */
  const int again[THREADS] = {2, 2, 2, 2, 2, 2};
  run_threads(again, 7);
  pat_stats_read(&s);
  CHECK(s.calls == (long long)THREADS * CALLS + 7, "after the reset: %lld calls", s.calls);
  CHECK(s.calls_per_alg[2] == (long long)THREADS * CALLS && s.calls_per_alg[0] == 7, "slots 2, 0: %lld %lld",
        s.calls_per_alg[2], s.calls_per_alg[0]);
  return TEST_RESULT();
}
