/* The fluid network of the replay (see model_net.h). */
#include "model/model_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/sched/status.h"

_Static_assert(PAT_NET_SLOT_SHARES < PAT_REPLAY_SLOTS, "the network's slots lie past the space's");

int pat_net_init(pat_net *N, int nports, size_t nflows, pat_replay_space *sp) {
  memset(N, 0, sizeof *N);
  N->nports = nports;
  N->nflows = nflows;
  size_t nf = nflows ? nflows : 1, np = (size_t)nports;
  N->fl = pat_space_get(sp, PAT_NET_SLOT_FLOWS, nf * sizeof *N->fl);
  N->heap = pat_space_get(sp, PAT_NET_SLOT_HEAP, nf * sizeof *N->heap);
  N->pn = pat_space_zeroed(sp, PAT_NET_SLOT_PORT_LENGTHS, np * sizeof *N->pn);
  /* 1 / n for n = 1..nf, computed once per space: entries the space kept are the same numbers */
  size_t shares_known = sp->cap[PAT_NET_SLOT_SHARES] / sizeof *N->share;
  N->share = pat_space_grow(sp, PAT_NET_SLOT_SHARES, (nf + 1) * sizeof *N->share);
  if (!N->fl || !N->heap || !N->pn || !N->share || pat_space_ports(sp, np)) return PAT_ENOMEM;
  N->port = sp->port; /* the lists keep their memory: port_add grows them in place */
  N->pcap = sp->pcap;
  N->share[0] = INFINITY; /* never used: a flow is on both its ports */
  for (size_t n = shares_known > 1 ? shares_known : 1; n <= nf; n++) N->share[n] = 1.0 / (double)n;
  for (size_t i = 0; i < nf; i++) N->fl[i] = (pat_net_flow){.pos_h = PAT_NET_NOWHERE};
  return PAT_OK;
}

/* ---- completion heap: flow ids ordered by (due, id), each flow once ---- */
static int h_less(const pat_net *N, size_t a, size_t b) {
  double ta = N->fl[a].due, tb = N->fl[b].due;
  if (ta != tb) return ta < tb;
  return a < b;
}

static void h_place(pat_net *N, size_t i, size_t id) {
  N->heap[i] = id;
  N->fl[id].pos_h = i;
}

static void h_up(pat_net *N, size_t i) {
  size_t id = N->heap[i];
  while (i > 0 && h_less(N, id, N->heap[(i - 1) / 2])) {
    h_place(N, i, N->heap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  h_place(N, i, id);
}

static void h_down(pat_net *N, size_t i) {
  size_t id = N->heap[i], n = N->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && h_less(N, N->heap[c + 1], N->heap[c])) c++;
    if (!h_less(N, N->heap[c], id)) break;
    h_place(N, i, N->heap[c]);
    i = c;
  }
  h_place(N, i, id);
}

/* File flow id's completion at t: in place if it is in the heap. */
static void h_file(pat_net *N, size_t id, double t) {
  pat_net_flow *f = &N->fl[id];
  if (f->pos_h == PAT_NET_NOWHERE) {
    f->due = t;
    h_place(N, N->nheap++, id);
    h_up(N, f->pos_h);
    return;
  }
  int earlier = t < f->due;
  f->due = t;
  if (earlier)
    h_up(N, f->pos_h);
  else
    h_down(N, f->pos_h);
}

static void h_remove(pat_net *N, size_t id) {
  size_t i = N->fl[id].pos_h, last = N->heap[--N->nheap];
  N->fl[id].pos_h = PAT_NET_NOWHERE;
  if (last == id) return;
  h_place(N, i, last);
  h_up(N, i);
  h_down(N, N->fl[last].pos_h);
}

int pat_net_next(pat_net *N, double *t, size_t *id) {
  if (N->nheap == 0) return 0;
  *id = N->heap[0];
  *t = N->fl[*id].due;
  return 1;
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
    if ((size_t)g->sport == p)
      g->pos_s = pos;
    else
      g->pos_r = pos;
  }
}

/* ---- rates ---- */

/* Flow id's rate is its share of the busier of its two ports; bring its
 * remaining work to now first, and file its new finish if that moved. */
static int rerate(pat_net *N, size_t id, double now) {
  pat_net_flow *f = &N->fl[id];
  size_t ns = N->pn[f->sport], nr = N->pn[f->rport];
  double m = N->share[ns > nr ? ns : nr];
  if (f->rate == m) return PAT_OK; /* its heap entry still holds */
  if (f->solo)
    f->rem = f->finish_solo - now;
  else
    f->rem -= f->rate * (now - f->tlast);
  if (f->rem < 0) f->rem = 0;
  f->tlast = now;
  if (m < 1.0) f->solo = 0;
  f->rate = m;
  h_file(N, id, f->solo ? f->finish_solo : now + f->rem / m);
  return PAT_OK;
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

int pat_net_add(pat_net *N, size_t id, int sport, int rport, double now, double work, double finish_solo) {
  pat_net_flow *f = &N->fl[id];
  f->sport = sport;
  f->rport = rport;
  f->active = 1;
  f->solo = 1;
  f->rem = work;
  f->tlast = now;
  f->rate = -1;
  f->finish_solo = finish_solo;
  if (port_add(N, (size_t)sport, id, &f->pos_s) || port_add(N, (size_t)rport, id, &f->pos_r)) return PAT_ENOMEM;
  return rerate_ports(N, (size_t)sport, (size_t)rport, now);
}

int pat_net_remove(pat_net *N, size_t id, double now) {
  pat_net_flow *f = &N->fl[id];
  f->active = 0;
  if (f->pos_h != PAT_NET_NOWHERE) h_remove(N, id);
  port_remove(N, (size_t)f->sport, f->pos_s);
  port_remove(N, (size_t)f->rport, f->pos_r);
  return rerate_ports(N, (size_t)f->sport, (size_t)f->rport, now);
}
