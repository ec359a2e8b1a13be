/* Text of the pure layers' status codes (see status.h). */
#include "algorithms/sched/status.h"

#include <stdio.h>

const char *pat_status_string(int status) {
  switch (status) {
    case PAT_OK: return "ok";
    case PAT_ENOMEM: return "out of memory";
    case PAT_EINVAL: return "invalid arguments";
    default: {
      static _Thread_local char text[32];
      snprintf(text, sizeof text, "status %d", status);
      return text;
    }
  }
}
