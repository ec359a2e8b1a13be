/* Call-site history and the prediction of the next call (see sites.h). */
#include "pat/sites.h"

#include <string.h>

void pat_sites_init(pat_sites *t) {
  memset(t, 0, sizeof *t);
  t->last = -1;
}

static void new_site(pat_site *s, int count, int64_t bytes) {
  memset(s, 0, sizeof *s);
  s->count = count;
  s->bytes = bytes;
  s->successor = -1;
  pat_gap_init(&s->gaps);
}

int pat_sites_find(pat_sites *t, int count, int64_t bytes, int *replaced) {
  *replaced = 0;
  for (int i = 0; i < t->n; i++)
    if (t->site[i].count == count && t->site[i].bytes == bytes) return i;
  int i = t->n;
  if (t->n < PAT_SITES_MAX) {
    t->n++;
  } else {
    i = 0;
    for (int k = 1; k < t->n; k++)
      if (t->site[k].last_call < t->site[i].last_call) i = k;
    *replaced = 1;
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
    pat_gap_add(&t->site[i].gaps, arrival_ns - t->last_exit_ns);
    t->site[t->last].successor = i;
  }
  t->site[i].last_call = t->calls;
  t->last = i;
  t->last_exit_ns = exit_ns;
  t->calls++;
}

int pat_sites_predict(const pat_sites *t, int *site, int64_t *arrival_ns, int64_t *bytes) {
  if (t->last < 0) return 0;
  int next = t->site[t->last].successor >= 0 ? t->site[t->last].successor : t->last;
  int64_t gap;
  if (!pat_gap_predict(&t->site[next].gaps, &gap)) return 0;
  *site = next;
  *arrival_ns = t->last_exit_ns + gap;
  *bytes = t->site[next].bytes;
  return 1;
}
