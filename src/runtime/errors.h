/*
 * Errors.  Every PAT function returns an MPI error code; pat_fail records
 * the message of the last failure in this thread for PAT_Error_string.  The
 * pure layers (schedule, algorithms, model) return their own small status
 * codes (algorithms/sched/status.h); pat_mpi_error is the one mapping from those to MPI
 * error classes.
 */
#ifndef PAT_ERRORS_H
#define PAT_ERRORS_H

#include <mpi.h>

/* Record an error message for PAT_Error_string and return code. */
int pat_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* MPI's own call made for the application (an all-gather(v), an all-reduce,
 * a request's start or cancel) failed with code: recorded like pat_fail,
 * and marked as raised, since MPI has handed it to the communicator's error
 * handler already.  The drop-in, which
 * raises libpat's failures on that handler as MPI would, asks
 * pat_error_raised so that the handler runs once per failed call. */
int pat_fail_mpi_own(int code, const char *call);
/* The result of MPI's own call made for `call`: MPI_SUCCESS as it is, a
 * failure through pat_fail_mpi_own. */
static inline int pat_mpi_own_result(int code, const char *call) {
  return code == MPI_SUCCESS ? code : pat_fail_mpi_own(code, call);
}
/* Is code the last failure of this thread, one that MPI raised itself? */
int pat_error_raised(int code);

/* The MPI error class of a pure layer's status: out of memory is
 * MPI_ERR_NO_MEM; anything else a pure layer reports to the runtime is a
 * libpat bug (the runtime validates its inputs first): MPI_ERR_INTERN. */
int pat_mpi_error(int status);

/* Print failures on stderr as they are recorded (PAT_VERBOSE >= 1). */
void pat_errors_set_verbose(int verbose);

#endif
