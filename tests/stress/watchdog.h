/* A thread that aborts the job when the main thread stays in one phase for
 * longer than a limit, after printing what it was doing (so that a hang is
 * reported with its reproducer, not only as a ctest timeout).
 *
 *   watchdog_start(60.0, "stress_conformance");
 *   watchdog_enter("seed=1 case=17 all-gather ...");   // each phase
 *   watchdog_stop();
 *
 * A limit <= 0 disables it. */
#ifndef STRESS_WATCHDOG_H
#define STRESS_WATCHDOG_H

#define WATCHDOG_TEXT 4096
#define WATCHDOG_EXIT 3 /* MPI_Abort's error code on a hang */

void watchdog_start(double limit_s, const char *program);
/* A new phase begins now; text says what it is and how to reproduce it. */
void watchdog_enter(const char *text);
void watchdog_stop(void);

#endif
