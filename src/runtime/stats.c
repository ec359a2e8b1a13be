/* Per-process statistics (see stats.h). */
#include "runtime/stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pat.h"

#define NALGS (int)(sizeof((PAT_Stats *)0)->calls_per_alg / sizeof((PAT_Stats *)0)->calls_per_alg[0])

/* A call that exchanged nothing only counts, on the path of every call, so
 * each thread counts its own calls: a plain load and store of its own
 * counters, no lock and no locked instruction.  A `lock add` on one shared
 * counter was 6.5% of a pass-through call's samples (about 35 ns of
 * 0.56 us; osu_allgather, 1 B, shared memory, P = 2), more than the rest of
 * libpat's path.  A thread's counters are linked into `threads` when it
 * first counts and folded into `gone` when it exits; a reset keeps the sums
 * of that moment as `base`, so it never races with a thread counting.  The
 * calls are the sum of the per-algorithm counts, and of those whose
 * algorithm has no slot (`other`). */
typedef struct thread_counts {
  atomic_llong per_alg[NALGS], other;
  struct thread_counts *next;
} thread_counts;

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER; /* guards everything below but the counts */
static PAT_Stats stats;                                          /* the rest */
static thread_counts *threads;                                   /* the live threads' counters */
static long long gone[NALGS + 1], base[NALGS + 1];               /* [NALGS]: other */
static atomic_llong uncounted; /* calls of threads that could not get counters (out of memory) */
static pthread_key_t exit_key;
static int have_exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static __thread thread_counts *mine __attribute__((tls_model("initial-exec")));

static void thread_gone(void *counts) {
  thread_counts *t = counts;
  pthread_mutex_lock(&stats_lock);
  for (thread_counts **p = &threads; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      break;
    }
  for (int a = 0; a < NALGS; a++) gone[a] += atomic_load_explicit(&t->per_alg[a], memory_order_relaxed);
  gone[NALGS] += atomic_load_explicit(&t->other, memory_order_relaxed);
  pthread_mutex_unlock(&stats_lock);
  free(t);
  mine = NULL; /* this runs in the exiting thread: a call from a later destructor counts anew */
}

static void make_exit_key(void) {
  have_exit_key = pthread_key_create(&exit_key, thread_gone) == 0;
}

static thread_counts *my_counts(void) {
  if (mine) return mine;
  pthread_once(&exit_key_once, make_exit_key);
  thread_counts *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  /* without a key the counters stay linked (and counted) after the thread exits */
  if (have_exit_key) pthread_setspecific(exit_key, t);
  pthread_mutex_lock(&stats_lock);
  t->next = threads;
  threads = t;
  pthread_mutex_unlock(&stats_lock);
  return mine = t;
}

/* Only this thread writes its counters: no increment is lost, and a reader
 * sees each whole (aligned 64-bit stores). */
static inline void bump(atomic_llong *count) {
  atomic_store_explicit(count, atomic_load_explicit(count, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* Every call counted so far, per slot ([NALGS]: other); stats_lock held. */
static void sum_counts(long long sum[NALGS + 1]) {
  memcpy(sum, gone, sizeof gone);
  for (const thread_counts *t = threads; t; t = t->next) {
    for (int a = 0; a < NALGS; a++) sum[a] += atomic_load_explicit(&t->per_alg[a], memory_order_relaxed);
    sum[NALGS] += atomic_load_explicit(&t->other, memory_order_relaxed);
  }
  sum[NALGS] += atomic_load_explicit(&uncounted, memory_order_relaxed);
}

void pat_stats_reset(void) {
  pthread_mutex_lock(&stats_lock);
  memset(&stats, 0, sizeof stats);
  sum_counts(base);
  pthread_mutex_unlock(&stats_lock);
}

void pat_stats_call(const pat_call_stats *c) {
  thread_counts *t = my_counts();
  if (!t)
    atomic_fetch_add_explicit(&uncounted, 1, memory_order_relaxed);
  else
    bump(c->alg >= 0 && c->alg < NALGS ? &t->per_alg[c->alg] : &t->other);
  if (!c->exchanged && !c->bg_steps && !c->fg_steps) return;
  pthread_mutex_lock(&stats_lock);
  stats.exchanged_calls += c->exchanged;
  stats.bg_steps += c->bg_steps;
  stats.fg_steps += c->fg_steps;
  stats.exchange_wait_sum += c->exchange_wait_s;
  if (c->exchange_wait_s > stats.exchange_wait_max) stats.exchange_wait_max = c->exchange_wait_s;
  if (c->predicted) {
    stats.predicted_calls++;
    stats.pred_abs_error_sum += c->pred_err_s;
    if (c->pred_err_s > stats.pred_abs_error_max) stats.pred_abs_error_max = c->pred_err_s;
  }
  pthread_mutex_unlock(&stats_lock);
}

void pat_stats_background(double cpu_s, double wall_s) {
  pthread_mutex_lock(&stats_lock);
  stats.bg_cpu_seconds = cpu_s;
  stats.bg_wall_seconds = wall_s;
  pthread_mutex_unlock(&stats_lock);
}

void pat_stats_read(PAT_Stats *out) {
  long long sum[NALGS + 1];
  pthread_mutex_lock(&stats_lock);
  *out = stats;
  sum_counts(sum);
  out->calls = sum[NALGS] - base[NALGS];
  for (int a = 0; a < NALGS; a++) {
    out->calls_per_alg[a] = sum[a] - base[a];
    out->calls += out->calls_per_alg[a];
  }
  pthread_mutex_unlock(&stats_lock);
}
