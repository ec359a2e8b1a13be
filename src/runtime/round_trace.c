/* The timeline of a persistent round (see round_trace.h). */
#include "runtime/round_trace.h"

#include <stdio.h>

#include "runtime/timeline.h"

void pat_round_trace_write(const pat_round_trace *t, const char *what) {
  pat_timeline_record r;
  FILE *f = pat_timeline_begin(&r);
  if (!f) return;
  fprintf(f, "round %lld %lld what %s rank %d P %d bytes %lld start %lld done %lld signal %lld waited %lld\n", t->id,
          t->round, what, t->rank, t->P, t->bytes, (long long)t->start, (long long)t->done, (long long)t->signal,
          (long long)t->waited);
  pat_timeline_end(&r);
}
