/* Per-process statistics (see stats.h). */
#include "runtime/stats.h"

#include <pthread.h>
#include <string.h>

#include "pat.h"
#include "runtime/errors.h"
#include "runtime/runtime.h"

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static PAT_Stats stats;

void pat_stats_reset(void) {
  pthread_mutex_lock(&stats_lock);
  memset(&stats, 0, sizeof stats);
  pthread_mutex_unlock(&stats_lock);
}

void pat_stats_call(const pat_call_stats *c) {
  pthread_mutex_lock(&stats_lock);
  stats.calls++;
  stats.exchanged_calls += c->exchanged;
  stats.bg_steps += c->bg_steps;
  stats.fg_steps += c->fg_steps;
  if (c->alg >= 0 && c->alg < (int)(sizeof stats.calls_per_alg / sizeof stats.calls_per_alg[0]))
    stats.calls_per_alg[c->alg]++;
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

int PAT_GetStats(PAT_Stats *out) {
  if (!out) return pat_fail(MPI_ERR_ARG, "PAT_GetStats: stats is NULL");
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_GetStats: call PAT_Init first");
  pthread_mutex_lock(&stats_lock);
  *out = stats;
  pthread_mutex_unlock(&stats_lock);
  return MPI_SUCCESS;
}
