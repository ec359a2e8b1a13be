/*
 * The background thread: progresses arrival exchanges, makes the plan as
 * soon as the records are in, and runs the background part of an
 * arrival-aware schedule while the application still computes.
 */
#ifndef PAT_BACKGROUND_H
#define PAT_BACKGROUND_H

int pat_background_start(void);
void pat_background_stop(void);
/* The running thread's CPU and wall time so far (s), read without waking
 * it; 0 if no thread runs (pat_stats_background then holds the last). */
int pat_background_times(double *cpu_s, double *wall_s);

#endif
