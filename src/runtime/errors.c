/* Error reporting (see errors.h). */
#include "runtime/errors.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pat.h"
#include "algorithms/sched/status.h"

static _Thread_local char last_message[512];
static _Thread_local int last_code = MPI_SUCCESS;
static _Thread_local int last_raised; /* the last failure is MPI's own, already handed to the handler */
static int print_failures;

void pat_errors_set_verbose(int verbose) { print_failures = verbose > 0; }

int pat_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  last_code = code;
  last_raised = 0;
  if (print_failures) fprintf(stderr, "libpat: %s\n", last_message);
  return code;
}

int pat_fail_mpi_own(int code, const char *call) {
  pat_fail(code, "%s: MPI's own failed", call);
  last_raised = 1;
  return code;
}

int pat_error_raised(int code) { return code != MPI_SUCCESS && code == last_code && last_raised; }

int pat_mpi_error(int status) { return status == PAT_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INTERN; }

const char *PAT_Error_string(int errorcode) {
  static _Thread_local char text[MPI_MAX_ERROR_STRING + 600];
  if (errorcode == MPI_SUCCESS) return "no error";
  if (errorcode == last_code && last_message[0]) return last_message;
  int len = 0;
  if (MPI_Error_string(errorcode, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", errorcode);
  return text;
}
