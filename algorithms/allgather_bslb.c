/*
 * BSLB: arrival-aware all-gather (not built yet; see the issue tracker).
 */
#include "algorithms.h"

int pat_allgather_bslb(pat_sched *s, const pat_build_args *a) {
  (void)s;
  (void)a;
  return PAT_ENOTIMPL;
}
