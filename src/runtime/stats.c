/* Per-process statistics (see stats.h). */
#include "runtime/stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "pat.h"

#define NALGS (int)(sizeof((PAT_Stats *)0)->calls_per_alg / sizeof((PAT_Stats *)0)->calls_per_alg[0])

/* A call that exchanged nothing only counts: one atomic counter, no lock
 * (it is on the path of every call).  The calls are the sum of the
 * per-algorithm counts, and of those whose algorithm has no slot. */
static atomic_llong calls_other, calls_per_alg[NALGS];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static PAT_Stats stats; /* the rest */

void pat_stats_reset(void) {
  pthread_mutex_lock(&stats_lock);
  memset(&stats, 0, sizeof stats);
  atomic_store(&calls_other, 0);
  for (int a = 0; a < NALGS; a++) atomic_store(&calls_per_alg[a], 0);
  pthread_mutex_unlock(&stats_lock);
}

void pat_stats_call(const pat_call_stats *c) {
  atomic_fetch_add_explicit(c->alg >= 0 && c->alg < NALGS ? &calls_per_alg[c->alg] : &calls_other, 1,
                            memory_order_relaxed);
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
  pthread_mutex_lock(&stats_lock);
  *out = stats;
  pthread_mutex_unlock(&stats_lock);
  out->calls = atomic_load(&calls_other);
  for (int a = 0; a < NALGS; a++) {
    out->calls_per_alg[a] = atomic_load(&calls_per_alg[a]);
    out->calls += out->calls_per_alg[a];
  }
}
