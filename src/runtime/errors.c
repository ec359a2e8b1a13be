/* Error reporting: every PAT function returns an MPI error code; the text of
 * the last failure in this thread is kept for PAT_Error_string. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

static _Thread_local char last_message[512];
static _Thread_local int last_code = MPI_SUCCESS;

int pat_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  last_code = code;
  if (pat_rt.verbose > 0) fprintf(stderr, "libpat: %s\n", last_message);
  return code;
}

const char *PAT_Error_string(int errorcode) {
  static _Thread_local char text[MPI_MAX_ERROR_STRING + 600];
  if (errorcode == MPI_SUCCESS) return "no error";
  if (errorcode == last_code && last_message[0]) return last_message;
  int len = 0;
  if (MPI_Error_string(errorcode, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", errorcode);
  return text;
}
