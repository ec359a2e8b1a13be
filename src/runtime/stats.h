/* Per-process statistics (PAT_GetStats): one record per call, the
 * background thread's CPU time. */
#ifndef PAT_STATS_H
#define PAT_STATS_H

typedef struct pat_call_stats {
  int alg;               /* what ran */
  int exchanged;         /* the call exchanged arrivals */
  double exchange_wait_s; /* time the caller waited for the arrival exchange */
  int predicted;          /* this rank's arrival was predicted before it happened */
  double pred_err_s;      /* |predicted - actual arrival| */
  long long bg_steps, fg_steps; /* schedule steps done by the background thread / in the call */
} pat_call_stats;

void pat_stats_reset(void);
void pat_stats_call(const pat_call_stats *c);
/* A call that ran alg and did nothing else worth recording (the
 * pass-through): pat_stats_call without the record. */
void pat_stats_count(int alg);
/* What the background thread measured of itself when it stopped. */
void pat_stats_background(double cpu_s, double wall_s);
/* Everything recorded so far (PAT_GetStats adds the running thread's times). */
struct PAT_Stats;
void pat_stats_read(struct PAT_Stats *out);

#endif
