/* Per-process statistics (see stats.h). */
#include "runtime/stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pat.h"

#define NALGS (int)(sizeof((PAT_Stats *)0)->calls_per_alg / sizeof((PAT_Stats *)0)->calls_per_alg[0])

/* Each thread counts its own calls (stats.h).  A thread's counters are
 * linked into `threads` when it first counts and folded into `gone` when it
 * exits; a reset keeps the sums of that moment as `base`, so it never races
 * with a thread counting.  Every count array has a slot per algorithm and
 * one more, OTHER, for the calls whose algorithm has none; the calls are the
 * sum of all slots. */
#define OTHER NALGS
#define SLOTS PAT_STATS_SLOTS
_Static_assert(PAT_STATS_SLOTS == NALGS + 1, "a slot per algorithm of PAT_Stats and OTHER");

typedef pat_thread_counts thread_counts;

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER; /* guards everything below but the counts */
static PAT_Stats stats;                                          /* the rest */
static thread_counts *threads;                                   /* the live threads' counters */
static long long gone[SLOTS], base[SLOTS];
static atomic_llong uncounted[SLOTS]; /* calls of threads that could not get counters (out of memory) */
static pthread_key_t exit_key;
static int have_exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
_Thread_local thread_counts *pat_stats_mine __attribute__((tls_model("initial-exec")));

static void add_counts(long long sum[SLOTS], atomic_llong const count[SLOTS]) {
  for (int slot = 0; slot < SLOTS; slot++) sum[slot] += atomic_load_explicit(&count[slot], memory_order_relaxed);
}

static void thread_gone(void *counts) {
  thread_counts *t = counts;
  pthread_mutex_lock(&stats_lock);
  for (thread_counts **p = &threads; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      break;
    }
  add_counts(gone, t->count);
  pthread_mutex_unlock(&stats_lock);
  free(t);
  pat_stats_mine = NULL; /* this runs in the exiting thread: a call from a later destructor counts anew */
}

static void make_exit_key(void) {
  have_exit_key = pthread_key_create(&exit_key, thread_gone) == 0;
}

static thread_counts *my_counts(void) {
  if (pat_stats_mine) return pat_stats_mine;
  pthread_once(&exit_key_once, make_exit_key);
  thread_counts *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  /* without a key the counters stay linked (and counted) after the thread exits */
  if (have_exit_key) pthread_setspecific(exit_key, t);
  pthread_mutex_lock(&stats_lock);
  t->next = threads;
  threads = t;
  pthread_mutex_unlock(&stats_lock);
  return pat_stats_mine = t;
}

/* Every call counted so far, per slot; stats_lock held. */
static void sum_counts(long long sum[SLOTS]) {
  memcpy(sum, gone, sizeof gone);
  for (const thread_counts *t = threads; t; t = t->next) add_counts(sum, t->count);
  add_counts(sum, uncounted);
}

void pat_stats_reset(void) {
  pthread_mutex_lock(&stats_lock);
  memset(&stats, 0, sizeof stats);
  sum_counts(base);
  pthread_mutex_unlock(&stats_lock);
}

void pat_stats_count_first(int alg) {
  int slot = pat_stats_slot(alg);
  thread_counts *t = my_counts();
  if (t)
    pat_stats_bump(t, slot);
  else
    atomic_fetch_add_explicit(&uncounted[slot], 1, memory_order_relaxed);
}

void pat_stats_call(const pat_call_stats *c) {
  pat_stats_count(c->alg);
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
  long long sum[SLOTS];
  pthread_mutex_lock(&stats_lock);
  *out = stats;
  sum_counts(sum);
  out->calls = 0;
  for (int slot = 0; slot < SLOTS; slot++) {
    if (slot != OTHER) out->calls_per_alg[slot] = sum[slot] - base[slot];
    out->calls += sum[slot] - base[slot];
  }
  pthread_mutex_unlock(&stats_lock);
}
