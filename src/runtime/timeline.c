/* The per-op timeline of calls (see timeline.h). */
#include "runtime/timeline.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "algorithms/algorithms.h"
#include "pat/clock.h"
#include "runtime/process.h"

static long long calls; /* calls recorded by this process: the call number in the file */

int pat_timeline_on(void) { return pat_proc.settings.timeline[0] != '\0'; }

/* Records reach the file whole: the application's threads and the
 * background thread append to the same file, and a stream's buffer, flushed
 * when full, had cut a long record into several writes that another
 * thread's came between.  The lock is a leaf (docs/locks.md). */
static pthread_mutex_t append_lock = PTHREAD_MUTEX_INITIALIZER;

FILE *pat_timeline_begin(pat_timeline_record *r) {
  r->text = NULL;
  r->len = 0;
  r->f = open_memstream(&r->text, &r->len);
  return r->f;
}

void pat_timeline_end(pat_timeline_record *r) {
  if (!r->f) return;
  int ok = fclose(r->f) == 0;
  r->f = NULL;
  char path[PAT_SETTING_TEXT + 32];
  snprintf(path, sizeof path, "%s.%d", pat_proc.settings.timeline, pat_proc.world_rank);
  pthread_mutex_lock(&append_lock);
  int fd = ok ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1; /* one open per record: the file stays
                                                                         complete if the program dies later */
  for (size_t at = 0; fd >= 0 && at < r->len;) {
    ssize_t n = write(fd, r->text + at, r->len - at);
    if (n <= 0) break;
    at += (size_t)n;
  }
  if (fd >= 0) close(fd);
  pthread_mutex_unlock(&append_lock);
  free(r->text);
  r->text = NULL;
}

static const char *kind_name(int kind) {
  switch (kind) {
    case PAT_OP_SEND: return "send";
    case PAT_OP_RECV: return "recv";
    case PAT_OP_SIGNAL_SEND: return "ssend";
    default: return "srecv";
  }
}

static const char *who(unsigned char fg_bits, int bit) { return fg_bits & bit ? "fg" : "bg"; }

/* Bytes of block j: the fractions of the op lines are of each block's own
 * size, which an all-gatherv's blocks do not share. */
static double block_bytes(const pat_buffers *b, int j) {
  if (b->offsets) return (double)(b->offsets[j + 1] - b->offsets[j]);
  if (b->packed && !b->counts) return (double)b->block_bytes;
  int type_size = 0;
  MPI_Type_size(b->recvtype, &type_size);
  return (double)type_size * (b->counts ? b->counts[j] : b->recvcount);
}

static long long op_bytes(const pat_op *op, const pat_buffers *b, int P) {
  double bytes = 0;
  for (int k = 0; k < op->nspans; k++)
    for (int i = 0; i < op->span[k].count; i++)
      bytes += block_bytes(b, (op->span[k].first + i) % P) * (op->span[k].hi - op->span[k].lo) / PAT_FRAC_ONE;
  return (long long)(bytes + 0.5);
}

void pat_timeline_ops(FILE *f, const char *word, int P, const pat_exec *e) {
  for (size_t i = 0; i < e->nops; i++) {
    const pat_op *op = &e->ops[i];
    double blocks = 0;
    for (int k = 0; k < op->nspans; k++)
      blocks += op->span[k].count * (double)(op->span[k].hi - op->span[k].lo) / PAT_FRAC_ONE;
    fprintf(f, "%s %zu step %d %s peer %d blocks %.6f post %lld %s done %lld %s bytes %lld\n", word, i, op->step,
            kind_name(op->kind), op->peer, blocks, (long long)e->t_post[i], who(e->t_fg[i], 1), (long long)e->t_done[i],
            who(e->t_fg[i], 2), e->buf ? op_bytes(op, e->buf, P) : -1);
  }
}

void pat_timeline_write(int P, int rank, int alg, int64_t bytes, const pat_sched *s, const pat_exec *e,
                        const int64_t *predicted, int64_t arrival, int64_t handover, int64_t exit) {
  if (!pat_timeline_on() || !e->t_post) return;
  pat_timeline_record r;
  FILE *f = pat_timeline_begin(&r);
  if (!f) return;
  fprintf(f, "call %lld rank %d P %d alg %s window %d bytes %lld arrival %lld handover %lld exit %lld", calls++, rank,
          P, pat_algorithms[alg].name, s->send_window, (long long)bytes, (long long)arrival, (long long)handover,
          (long long)exit);
  if (predicted) {
    fprintf(f, " predicted");
    for (int i = 0; i < P; i++) fprintf(f, "%c%lld", i ? ',' : ' ', (long long)predicted[i]);
  }
  fprintf(f, "\n");
  pat_timeline_ops(f, "op", P, e);
  pat_timeline_end(&r);
}
