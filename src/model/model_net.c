/* The fluid network of the replay (see model_net.h). */
#include "model/model_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/status.h"

int pat_net_init(pat_net *N, int P, size_t nflows) {
  memset(N, 0, sizeof *N);
  N->P = P;
  N->nflows = nflows;
  size_t nf = nflows ? nflows : 1, np = 2 * (size_t)P;
  N->fl = calloc(nf, sizeof *N->fl);
  N->port = calloc(np, sizeof *N->port);
  N->pn = calloc(np, sizeof *N->pn);
  N->pcap = calloc(np, sizeof *N->pcap);
  if (!N->fl || !N->port || !N->pn || !N->pcap) return PAT_ENOMEM;
  return PAT_OK;
}

void pat_net_free(pat_net *N) {
  if (N->port)
    for (size_t i = 0; i < 2 * (size_t)N->P; i++) free(N->port[i]);
  free(N->fl);
  free(N->port);
  free(N->pn);
  free(N->pcap);
  free(N->heap);
  memset(N, 0, sizeof *N);
}

/* ---- completion heap (entries of flows whose rate changed since are stale) ---- */
static int h_less(const pat_net_hent *a, const pat_net_hent *b) {
  if (a->t != b->t) return a->t < b->t;
  return a->id < b->id;
}

static int h_push(pat_net *N, double t, size_t id, unsigned version) {
  if (N->nheap == N->capheap) {
    size_t cap = N->capheap ? 2 * N->capheap : 256;
    pat_net_hent *h = realloc(N->heap, cap * sizeof *h);
    if (!h) return PAT_ENOMEM;
    N->heap = h;
    N->capheap = cap;
  }
  pat_net_hent e = {t, id, version};
  size_t i = N->nheap++;
  while (i > 0 && h_less(&e, &N->heap[(i - 1) / 2])) {
    N->heap[i] = N->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  N->heap[i] = e;
  return PAT_OK;
}

static void h_pop(pat_net *N) {
  pat_net_hent last = N->heap[--N->nheap];
  size_t i = 0, n = N->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && h_less(&N->heap[c + 1], &N->heap[c])) c++;
    if (!h_less(&N->heap[c], &last)) break;
    N->heap[i] = N->heap[c];
    i = c;
  }
  if (n > 0) N->heap[i] = last;
}

int pat_net_next(pat_net *N, double *t, size_t *id) {
  while (N->nheap > 0) {
    const pat_net_hent *e = &N->heap[0];
    const pat_net_flow *f = &N->fl[e->id];
    if (f->active && f->version == e->version) {
      *t = e->t;
      *id = e->id;
      return 1;
    }
    h_pop(N);
  }
  return 0;
}

/* ---- ports ---- */
static int port_add(pat_net *N, size_t p, size_t id, size_t *pos) {
  if (N->pn[p] == N->pcap[p]) {
    size_t cap = N->pcap[p] ? 2 * N->pcap[p] : 4;
    size_t *v = realloc(N->port[p], cap * sizeof *v);
    if (!v) return PAT_ENOMEM;
    N->port[p] = v;
    N->pcap[p] = cap;
  }
  *pos = N->pn[p];
  N->port[p][N->pn[p]++] = id;
  return PAT_OK;
}

static void port_remove(pat_net *N, size_t p, size_t pos) {
  size_t last = N->port[p][--N->pn[p]];
  if (pos < N->pn[p]) {
    N->port[p][pos] = last;
    pat_net_flow *g = &N->fl[last];
    if ((size_t)g->from == p)
      g->pos_s = pos;
    else
      g->pos_r = pos;
  }
}

/* ---- rates ---- */

/* Flow id's rate is its share of the busier of its two ports; bring its
 * remaining work to now first, and file its new finish if that moved. */
static int rerate(pat_net *N, size_t id, double now) {
  const size_t P = (size_t)N->P;
  pat_net_flow *f = &N->fl[id];
  size_t ns = N->pn[f->from], nr = N->pn[P + (size_t)f->to];
  double m = 1.0 / (double)(ns > nr ? ns : nr);
  if (f->rate == m) return PAT_OK; /* its heap entry still holds */
  if (f->solo)
    f->rem = f->finish_solo - now;
  else
    f->rem -= f->rate * (now - f->tlast);
  if (f->rem < 0) f->rem = 0;
  f->tlast = now;
  if (m < 1.0) f->solo = 0;
  f->rate = m;
  f->version++;
  return h_push(N, f->solo ? f->finish_solo : now + f->rem / m, id, f->version);
}

/* The counts of ports p1 (a send port) and p2 (a receive port) changed:
 * only their flows' shares moved. */
static int rerate_ports(pat_net *N, size_t p1, size_t p2, double now) {
  for (size_t k = 0; k < N->pn[p1]; k++)
    if (rerate(N, N->port[p1][k], now)) return PAT_ENOMEM;
  for (size_t k = 0; k < N->pn[p2]; k++)
    if (rerate(N, N->port[p2][k], now)) return PAT_ENOMEM;
  return PAT_OK;
}

int pat_net_add(pat_net *N, size_t id, int from, int to, double now, double work, double finish_solo) {
  const size_t P = (size_t)N->P;
  pat_net_flow *f = &N->fl[id];
  f->from = from;
  f->to = to;
  f->active = 1;
  f->solo = 1;
  f->rem = work;
  f->tlast = now;
  f->rate = -1;
  f->finish_solo = finish_solo;
  f->version = 0;
  if (port_add(N, (size_t)from, id, &f->pos_s) || port_add(N, P + (size_t)to, id, &f->pos_r)) return PAT_ENOMEM;
  return rerate_ports(N, (size_t)from, P + (size_t)to, now);
}

int pat_net_remove(pat_net *N, size_t id, double now) {
  const size_t P = (size_t)N->P;
  pat_net_flow *f = &N->fl[id];
  f->active = 0;
  port_remove(N, (size_t)f->from, f->pos_s);
  port_remove(N, P + (size_t)f->to, f->pos_r);
  return rerate_ports(N, (size_t)f->from, P + (size_t)f->to, now);
}
