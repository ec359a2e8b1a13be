/*
 * Status codes of the pure layers (schedule, algorithms, cost model): small
 * non-negative integers, never MPI error classes.  The runtime maps them to
 * MPI error classes in one place (runtime/errors.h).
 */
#ifndef PAT_STATUS_H
#define PAT_STATUS_H

#define PAT_OK 0
#define PAT_ENOMEM 1 /* an allocation failed */
#define PAT_EINVAL 2 /* invalid arguments (a caller's bug, or a schedule that does not match) */

/* "ok", "out of memory", "invalid arguments", or "status N" for others. */
const char *pat_status_string(int status);

#endif
