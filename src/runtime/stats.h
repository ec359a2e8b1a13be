/* Per-process statistics (PAT_GetStats): one record per call, the
 * background thread's CPU time. */
#ifndef PAT_STATS_H
#define PAT_STATS_H

#include <stdatomic.h>
#include <stdint.h>

enum { PAT_WHY_CHOSEN = 0, PAT_WHY_KEPT, PAT_WHY_EXPLORED };

typedef struct pat_call_stats {
  int alg;               /* what ran */
  int why, regime;       /* an exchanged call's: kept, explored or chosen (decisions.h), and the regime its
                            choice saw (explore.h) */
  int exchanged;         /* the call exchanged arrivals */
  double exchange_wait_s; /* time the caller waited for the arrival exchange */
  int64_t exchange_ns;    /* what exchanging cost the call, as auto's engine takes it (pat_engine_end); -1: none */
  int predicted;          /* this rank's arrival was predicted before it happened */
  double pred_err_s;      /* |predicted - actual arrival| */
  long long bg_steps, fg_steps; /* schedule steps done by the background thread / in the call */
} pat_call_stats;

void pat_stats_reset(void);
void pat_stats_call(const pat_call_stats *c);

/* The calls per algorithm.  Every thread counts its own calls: a plain load
 * and store of its own counters, no lock and no locked instruction (a `lock
 * add` on one shared counter was a visible part of a pass-through call's
 * profile on one node).  A
 * slot per algorithm of PAT_Stats (pat.h) and one more for the calls of
 * none; stats.c links a thread's counters when it first counts and folds
 * them into its sums when the thread exits. */
#define PAT_STATS_SLOTS 17
typedef struct pat_thread_counts {
  atomic_llong count[PAT_STATS_SLOTS];
  struct pat_thread_counts *next;
} pat_thread_counts;
/* this thread's counters (initial-exec, as comm.h's lookup); NULL until it first counts */
extern _Thread_local pat_thread_counts *pat_stats_mine __attribute__((tls_model("initial-exec")));
static inline int pat_stats_slot(int alg) { return alg >= 0 && alg < PAT_STATS_SLOTS - 1 ? alg : PAT_STATS_SLOTS - 1; }
/* only this thread writes its counters: no increment is lost, and a reader sees each whole */
static inline void pat_stats_bump(pat_thread_counts *t, int slot) {
  atomic_store_explicit(&t->count[slot], atomic_load_explicit(&t->count[slot], memory_order_relaxed) + 1,
                        memory_order_relaxed);
}
/* A thread's first count (its counters made), or one without counters. */
void pat_stats_count_first(int alg);
/* A call that ran alg and did nothing else worth recording (the
 * pass-through): pat_stats_call without the record.  Inline: it is on the
 * pass-through's gate (through.h). */
static inline void pat_stats_count(int alg) {
  if (pat_stats_mine)
    pat_stats_bump(pat_stats_mine, pat_stats_slot(alg));
  else
    pat_stats_count_first(alg);
}
/* What the background thread measured of itself when it stopped. */
void pat_stats_background(double cpu_s, double wall_s);
/* Everything recorded so far (PAT_GetStats adds the running thread's times). */
struct PAT_Stats;
void pat_stats_read(struct PAT_Stats *out);

#endif
