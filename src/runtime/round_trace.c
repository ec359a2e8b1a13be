/* The timeline of a non-blocking or persistent round (see round_trace.h). */
#include "runtime/round_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/process.h"

int pat_round_trace_add(pat_round_trace *t, int is_send, int kind, int peer, int owner, long long bytes) {
  if (t->nmsg == t->cap) {
    int cap = t->cap ? 2 * t->cap : 32;
    pat_trace_msg *m = realloc(t->msg, (size_t)cap * sizeof *m);
    if (!m) return -1;
    t->msg = m;
    t->cap = cap;
  }
  t->msg[t->nmsg] = (pat_trace_msg){.is_send = is_send, .kind = kind, .peer = peer, .owner = owner, .bytes = bytes};
  return t->nmsg++;
}

void pat_round_trace_pass(pat_round_trace *t, int64_t gap, int started) {
  if (started) {
    t->passes++;
    if (gap > t->max_gap) t->max_gap = gap;
  } else {
    t->prepasses++;
    if (gap > t->pre_max_gap) t->pre_max_gap = gap;
  }
}

static const char *kind_name(int kind) {
  return kind == PAT_TRACE_WHOLE ? "whole" : kind == PAT_TRACE_PIECE ? "piece" : "forwarded";
}

void pat_round_trace_write(const pat_round_trace *t, const char *what) {
  char path[PAT_SETTING_TEXT + 32];
  snprintf(path, sizeof path, "%s.%d", pat_proc.settings.timeline, pat_proc.world_rank);
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f,
          "round %lld %lld what %s rank %d P %d parity %d bytes %lld relay %d start %lld copy %lld %lld done %lld "
          "signal %lld waited %lld passes %lld maxgap %lld prepasses %lld premaxgap %lld\n",
          t->id, t->round, what, t->rank, t->P, t->parity, t->bytes, t->relay, (long long)t->start,
          (long long)t->copy_begin, (long long)t->copy_end, (long long)t->done, (long long)t->signal,
          (long long)t->waited, t->passes, (long long)t->max_gap, t->prepasses, (long long)t->pre_max_gap);
  for (int i = 0; i < t->nmsg; i++) {
    const pat_trace_msg *m = &t->msg[i];
    if (m->cancelled) continue;
    fprintf(f, "msg %s %s peer %d owner %d bytes %lld matched %lld posted %lld done %lld staged %d\n",
            m->is_send ? "send" : "recv", kind_name(m->kind), m->peer, m->owner, m->bytes, (long long)m->matched,
            (long long)m->posted, (long long)m->done, m->staged);
  }
  fclose(f);
}

void pat_round_trace_clear(pat_round_trace *t) {
  pat_trace_msg *msg = t->msg;
  int cap = t->cap;
  memset(t, 0, sizeof *t);
  t->msg = msg;
  t->cap = cap;
}

void pat_round_trace_free(pat_round_trace *t) {
  free(t->msg);
  memset(t, 0, sizeof *t);
}
