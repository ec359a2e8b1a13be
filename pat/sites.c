/* Call-site history and the prediction of the next call (see sites.h). */
#include "pat/sites.h"

#include "pat/shape.h"

#include <stdlib.h>
#include <string.h>

void pat_sites_init(pat_sites *t) {
  memset(t, 0, sizeof *t);
  t->last = -1;
}

void pat_sites_free(pat_sites *t) {
  for (int i = 0; i < t->n; i++) free(t->site[i].shape);
  pat_sites_init(t);
}

int pat_sites_set_shape(pat_sites *t, int i, int P, const int64_t *bytes) {
  pat_site *s = &t->site[i];
  if (s->shape_n != P) {
    int64_t *v = realloc(s->shape, (size_t)P * sizeof *v);
    if (!v) return -1;
    s->shape = v;
    s->shape_n = P;
  }
  memcpy(s->shape, bytes, (size_t)P * sizeof *bytes);
  s->shape_hash = pat_shape_hash(P, bytes);
  return 0;
}

int64_t pat_sites_block_bytes(const pat_sites *t, int i) {
  const pat_site *s = &t->site[i];
  return s->shape ? pat_shape_mean(s->shape_n, s->shape) : s->bytes;
}

static void new_site(pat_site *s, int count, int64_t bytes) {
  /* count is kept for reports only */
  free(s->shape);
  memset(s, 0, sizeof *s);
  s->count = count;
  s->bytes = bytes;
  s->successor = -1;
  pat_gap_init(&s->gaps);
}

int pat_sites_victim(const pat_sites *t) {
  if (t->n < PAT_SITES_MAX) return -1;
  int v = 0;
  for (int k = 1; k < t->n; k++)
    if (t->site[k].last_call < t->site[v].last_call) v = k;
  return v;
}

int pat_sites_lookup(const pat_sites *t, int64_t bytes) {
  for (int i = 0; i < t->n; i++)
    if (t->site[i].bytes == bytes) return i;
  return -1;
}

int pat_sites_find(pat_sites *t, int count, int64_t bytes, int *fresh) {
  int i = pat_sites_lookup(t, bytes);
  *fresh = i < 0;
  if (i >= 0) return i;
  i = pat_sites_victim(t);
  if (i < 0) {
    i = t->n++;
  } else {
    *fresh = 2;
    for (int k = 0; k < t->n; k++) /* nobody is followed by the old site any more */
      if (t->site[k].successor == i) t->site[k].successor = -1;
    if (t->last == i) t->last = -1;
  }
  new_site(&t->site[i], count, bytes);
  t->site[i].last_call = t->calls;
  return i;
}

void pat_sites_record(pat_sites *t, int i, int64_t arrival_ns, int64_t exit_ns) {
  if (t->calls > 0 && t->last >= 0) {
    if (!t->skip_gaps) pat_gap_add(&t->site[i].gaps, arrival_ns - t->last_exit_ns);
    t->site[t->last].successor = i;
  }
  t->site[i].last_call = t->calls;
  t->site[i].calls++;
  t->last = i;
  t->last_exit_ns = exit_ns;
  t->calls++;
}

int pat_sites_next(const pat_sites *t) {
  if (t->last < 0) return -1;
  return t->site[t->last].successor >= 0 ? t->site[t->last].successor : t->last;
}

int pat_sites_predict(const pat_sites *t, int *site, int64_t *arrival_ns, int64_t *bytes) {
  int next = pat_sites_next(t);
  if (next < 0) return 0;
  int64_t gap;
  if (!pat_gap_predict(&t->site[next].gaps, &gap)) return 0;
  *site = next;
  *arrival_ns = t->last_exit_ns + gap;
  *bytes = t->site[next].bytes;
  return 1;
}
