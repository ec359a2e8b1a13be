/*
 * The background thread's doorbell: whoever gives the thread work rings it
 * (a communicator's lock released with work marked, comm.h; a retirement;
 * the thread's stop), and the thread sleeps on it between passes -- until it
 * is rung when nothing is in flight, with a short timeout while something
 * is.  Apart from the thread itself (background.c), so that the modules that
 * give it work need not know the thread that walks them.
 */
#ifndef PAT_WAKEUP_H
#define PAT_WAKEUP_H

#include <stdint.h>

enum pat_wakeup_result {
  PAT_WAKEUP_PENDING, /* rung during the pass: did not sleep */
  PAT_WAKEUP_RUNG,    /* slept, and was rung (or closed) */
  PAT_WAKEUP_TIMEOUT  /* slept the whole timeout */
};

/* Before the thread starts / after it was joined. */
void pat_wakeup_open(void);
void pat_wakeup_destroy(void);
/* There is work (does nothing while no background thread runs). */
void pat_wakeup_ring(void);
/* The thread, before each pass: forget the rings so far; 0 once closed. */
int pat_wakeup_begin_pass(void);
/* The thread, after a pass: sleep until rung or closed, or at most
 * timeout_ns when it is >= 0. */
enum pat_wakeup_result pat_wakeup_wait(int64_t timeout_ns);
/* Make the thread's next pat_wakeup_begin_pass return 0, and wake it. */
void pat_wakeup_close(void);

#endif
