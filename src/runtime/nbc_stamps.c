/* A measured non-blocking call's stamps (see nbc_stamps.h). */
#include "runtime/nbc_stamps.h"

#include <stdlib.h>

#include "exec/buffers.h"
#include "exec/message.h"

int pat_nbc_stamps_post(pat_nbc_stamps *s, const pat_run_where *w, int64_t post_ns, int64_t took_ns) {
  int P = w->P, me = w->rank, tag = pat_tag_stamp(w->tag_gen), rc = MPI_SUCCESS;
  s->P = P;
  s->n = 0;
  s->mine[0] = post_ns;
  s->mine[1] = took_ns;
  s->all = malloc(2 * (size_t)P * sizeof *s->all);
  s->req = malloc(2 * (size_t)P * sizeof *s->req);
  if (!s->all || !s->req) return MPI_ERR_NO_MEM;
  s->all[2 * me] = post_ns;
  s->all[2 * me + 1] = took_ns;
  for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
    if (r != me)
      rc = MPI_Irecv(&s->all[2 * r], 2, MPI_INT64_T, pat_route_rank(w->route, r), tag, w->comm, &s->req[s->n++]);
  for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
    if (r != me)
      rc = MPI_Isend(s->mine, 2, MPI_INT64_T, pat_route_rank(w->route, r), tag, pat_route_comm(w->route, r, w->comm),
                     &s->req[s->n++]);
  return rc;
}

int pat_nbc_stamps_test(pat_nbc_stamps *s, int *rc) {
  if (!s->req) return 1;
  int done = 0, err = MPI_Testall(s->n, s->req, &done, MPI_STATUSES_IGNORE);
  if (err != MPI_SUCCESS) *rc = err;
  return done || err != MPI_SUCCESS;
}

double pat_nbc_stamps_took(const pat_nbc_stamps *s) {
  if (!s->all) return -1;
  double sum = 0;
  for (int r = 0; r < s->P; r++) {
    if (s->all[2 * r + 1] < 0) return -1;
    sum += (double)s->all[2 * r + 1];
  }
  return sum / s->P / 1e9;
}

int64_t pat_nbc_stamps_last_post(const pat_nbc_stamps *s) {
  int64_t last = s->mine[0];
  for (int r = 0; s->all && r < s->P; r++) last = s->all[2 * r] > last ? s->all[2 * r] : last;
  return last;
}

void pat_nbc_stamps_free(pat_nbc_stamps *s) {
  free(s->all);
  free(s->req);
  s->all = NULL;
  s->req = NULL;
  s->n = 0;
}
