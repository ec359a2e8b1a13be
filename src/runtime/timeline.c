/* The per-op timeline of calls (see timeline.h). */
#include "runtime/timeline.h"

#include <stdio.h>

#include "algorithms/algorithms.h"
#include "pat/clock.h"
#include "runtime/process.h"

static long long calls; /* calls recorded by this process: the call number in the file */

int pat_timeline_on(void) { return pat_proc.settings.timeline[0] != '\0'; }

static const char *kind_name(int kind) {
  switch (kind) {
    case PAT_OP_SEND: return "send";
    case PAT_OP_RECV: return "recv";
    case PAT_OP_SIGNAL_SEND: return "ssend";
    default: return "srecv";
  }
}

static const char *who(unsigned char fg_bits, int bit) { return fg_bits & bit ? "fg" : "bg"; }

void pat_timeline_write(int P, int rank, int alg, int64_t bytes, const pat_sched *s, const pat_exec *e,
                        const int64_t *predicted, int64_t arrival, int64_t handover, int64_t exit) {
  if (!pat_timeline_on() || !e->t_post) return;
  char path[PAT_SETTING_TEXT + 32];
  snprintf(path, sizeof path, "%s.%d", pat_proc.settings.timeline, pat_proc.world_rank);
  /* one open per call: the file stays complete if the program dies later */
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "call %lld rank %d P %d alg %s window %d bytes %lld arrival %lld handover %lld exit %lld", calls++, rank,
          P, pat_algorithms[alg].name, s->send_window, (long long)bytes, (long long)arrival, (long long)handover,
          (long long)exit);
  if (predicted) {
    fprintf(f, " predicted");
    for (int i = 0; i < P; i++) fprintf(f, "%c%lld", i ? ',' : ' ', (long long)predicted[i]);
  }
  fprintf(f, "\n");
  for (size_t i = 0; i < e->nops; i++) {
    const pat_op *op = &e->ops[i];
    double blocks = 0;
    for (int k = 0; k < op->nspans; k++)
      blocks += op->span[k].count * (double)(op->span[k].hi - op->span[k].lo) / PAT_FRAC_ONE;
    fprintf(f, "op %zu step %d %s peer %d blocks %.6f post %lld %s done %lld %s\n", i, op->step, kind_name(op->kind),
            op->peer, blocks, (long long)e->t_post[i], who(e->t_fg[i], 1), (long long)e->t_done[i],
            who(e->t_fg[i], 2));
  }
  fclose(f);
}
