/* The node model: HRING and HRELAY at node granularity (see model_nodes.h). */
#include "model/model_nodes.h"

#include <math.h>
#include <stdlib.h>

int pat_model_nodes_fits(int alg, const pat_model_params *mp) {
  return (alg == PAT_ALG_HRING || alg == PAT_ALG_HRELAY) && mp->node && mp->shared_links && mp->nodes &&
         mp->nodes->regular && pat_nodes_hierarchical(mp->nodes);
}

/* What a node's ranks hold, kept as the latest delivery and who made it: a rank's last block comes
 * from the latest hand-out unless it made that hand-out itself (it then held the block when it took
 * it in, at `took`, and waits for the second latest). */
typedef struct latest {
  double v1, took, v2;
  int who;
} latest;

static void deliver(latest *l, double end, int who, double took) {
  if (who == l->who) {
    if (end > l->v1) l->v1 = end;
    if (took > l->took) l->took = took;
    return;
  }
  if (end > l->v1) {
    l->v2 = l->v1;
    l->v1 = end;
    l->who = who;
    l->took = took;
  } else if (end > l->v2) {
    l->v2 = end;
  }
}

static double last_for(const latest *l, int r) {
  if (r != l->who) return l->v1;
  return l->took > l->v2 ? l->took : l->v2;
}

typedef struct nm {
  const pat_nodes *n;
  int P, H, k;
  const double *a;
  pat_hockney inter, intra;
  double w, ws;             /* a block's time on a link, inside a node (s) */
  double *sfree, *rfree;    /* H each: when a node's send and receive link are next free */
  double *pfree;            /* P: when a rank's send port (its hand-outs) is next free */
  latest *got;              /* H */
  size_t transfers;
} nm;

/* A transfer of `work` link-seconds from node g to node h released at t: both links serve it in turn;
 * it ends when both have. */
static double link_transfer(nm *M, int g, int h, double t, double send_work, double recv_work) {
  const double s = (M->sfree[g] > t ? M->sfree[g] : t) + send_work;
  const double r = (M->rfree[h] > t ? M->rfree[h] : t) + recv_work;
  M->sfree[g] = s;
  M->rfree[h] = r;
  M->transfers++;
  return s > r ? s : r;
}

/* Rank `port` hands `blocks` blocks to the other k - 1 ranks of node h from t: its send port serves
 * the k - 1 messages together (they end together); returns when they end. */
static double hand_out(nm *M, int h, int port, double t, double blocks, double took) {
  const double start = M->pfree[port] > t + M->intra.alpha ? M->pfree[port] : t + M->intra.alpha;
  const double end = start + (M->k - 1) * blocks * M->ws;
  M->pfree[port] = end;
  deliver(&M->got[h], end, port, took);
  return end;
}

typedef struct by_arrival {
  double a;
  int r;
} by_arrival;

static int earlier(const void *x, const void *y) {
  const by_arrival *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return p->r - q->r;
}

/* A piece's next move, released at t: its scatter from its owner's node (relay < 0) or its relay's
 * sends on.  Served in release order: served in the order the blocks come instead, a relay's sends
 * for an early block held back a later node's own scatter, and chained the nodes one after the other,
 * far above the replay. */
typedef struct move {
  double t;
  int b, p, relay;
} move;

static int move_before(const move *x, const move *y) {
  if (x->t != y->t) return x->t < y->t;
  if (x->b != y->b) return x->b < y->b;
  return x->p < y->p;
}

static void push_move(move *h, size_t *n, move m) {
  size_t i = (*n)++;
  while (i > 0 && move_before(&m, &h[(i - 1) / 2])) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;
  h[i] = m;
}

static move pop_move(move *h, size_t *n) {
  move top = h[0], last = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && move_before(&h[c + 1], &h[c])) c++;
    if (!move_before(&h[c], &last)) break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0) h[i] = last;
  return top;
}

/* HRELAY (allgather_hrelay.c): blocks in arrival order; each handed out in its node at once, and
 * sent whole to every other node's port, or in kp pieces to relay nodes that send them on. */
static int hrelay(nm *M, const by_arrival *order, int kp) {
  const pat_nodes *n = M->n;
  const int H = M->H;
  const double al = M->inter.alpha;
  if (kp == 1) { /* released in arrival order: serving them in that order is serving them as released */
    for (int t = 0; t < M->P; t++) {
      const int b = order[t].r, g = n->of[b];
      const double ab = M->a[b];
      hand_out(M, g, b, ab, 1, -INFINITY);
      const double start = M->sfree[g] > ab + al ? M->sfree[g] : ab + al;
      M->sfree[g] = start + (H - 1) * M->w; /* its H - 1 copies share g's link and end together */
      for (int d = 1; d < H; d++) {
        const int h = (g + d) % H, port = pat_nodes_port(n, h, b, 0, 1);
        const double r = (M->rfree[h] > ab + al ? M->rfree[h] : ab + al) + M->w;
        M->rfree[h] = r;
        M->transfers++;
        const double got = r > M->sfree[g] ? r : M->sfree[g];
        hand_out(M, h, port, got, 1, got);
      }
    }
    return PAT_OK;
  }
  const int per = kp > H - 1 ? kp / (H - 1) : 1, relays = kp / per;
  const double piece = 1.0 / kp;
  move *heap = malloc((size_t)M->P * (size_t)kp * sizeof *heap);
  if (!heap) return PAT_ENOMEM;
  size_t nh = 0;
  for (int t = 0; t < M->P; t++) {
    const int b = order[t].r;
    hand_out(M, n->of[b], b, M->a[b], 1, -INFINITY);
    for (int q = 0; q < kp; q++) push_move(heap, &nh, (move){M->a[b] + al, b, q, -1});
  }
  while (nh > 0) {
    const move m = pop_move(heap, &nh);
    const int b = m.b, g = n->of[b], q = m.p, j = q / relays, i = q % relays, p = i * per + j;
    if (m.relay < 0) { /* the scatter of piece p to its relay node */
      const int R = pat_relay_of(H, g, p, kp), port = pat_nodes_port(n, R, b, p, kp);
      const double at_relay = link_transfer(M, g, R, m.t, piece * M->w, piece * M->w);
      hand_out(M, R, port, at_relay, piece, at_relay);
      push_move(heap, &nh, (move){at_relay + al, b, q, R});
      continue;
    }
    const int R = m.relay;
    const double start = M->sfree[R] > m.t ? M->sfree[R] : m.t;
    M->sfree[R] = start + (H - 2) * piece * M->w; /* the relay's H - 2 sends of the piece end together */
    for (int d = 1; d < H; d++) {
      const int h = (R + d) % H;
      if (h == g) continue;
      const int to = pat_nodes_port(n, h, b, p, kp);
      const double r = (M->rfree[h] > m.t ? M->rfree[h] : m.t) + piece * M->w;
      M->rfree[h] = r;
      M->transfers++;
      const double got = r > M->sfree[R] ? r : M->sfree[R];
      hand_out(M, h, to, got, piece, got);
    }
  }
  free(heap);
  return PAT_OK;
}

typedef struct hop {
  double t;
  int g;
} hop;

static int hop_earlier(const void *x, const void *y) {
  const hop *p = x, *q = y;
  if (p->t != q->t) return p->t < q->t ? -1 : 1;
  return p->g - q->g;
}

/* HRING (allgather_hring.c) on a regular map: a node is one group.  Its ranks send their blocks to
 * its first rank (the port of its own group), which hands the group out; the groups travel the ring
 * of nodes, hop by hop, each taken in and handed out by the port of its place. */
static int hring(nm *M, const by_arrival *order) {
  const pat_nodes *n = M->n;
  const int H = M->H, k = M->k;
  hop *at = malloc((size_t)H * sizeof *at);
  double *gathered = calloc((size_t)H, sizeof *gathered);
  if (!at || !gathered) {
    free(at);
    free(gathered);
    return PAT_ENOMEM;
  }
  for (int h = 0; h < H; h++) gathered[h] = M->a[n->member[n->start[h]]];
  for (int t = 0; t < M->P; t++) { /* the gathers: the port's receive port serves its node's blocks in turn */
    const int r = order[t].r, h = n->of[r], port = n->member[n->start[h]];
    if (r == port) continue;
    const double t0 = M->a[r] + M->intra.alpha;
    gathered[h] = (gathered[h] > t0 ? gathered[h] : t0) + M->ws;
  }
  for (int g = 0; g < H; g++) {
    const int port = n->member[n->start[g]];
    hand_out(M, g, port, gathered[g], k - 1, gathered[g]);
    at[g] = (hop){gathered[g], g};
  }
  for (int d = 1; d < H; d++) {
    qsort(at, (size_t)H, sizeof *at, hop_earlier); /* the links serve the hops in the order they are released */
    for (int i = 0; i < H; i++) {
      const int g = at[i].g, from = (g + d - 1) % H, h = (g + d) % H;
      const int place = g - (h < g ? 1 : 0), port = n->member[n->start[h] + place % k];
      const double got = link_transfer(M, from, h, at[i].t + M->inter.alpha, k * M->w, k * M->w);
      hand_out(M, h, port, got, k, got);
      at[i].t = got;
    }
  }
  free(at);
  free(gathered);
  return PAT_OK;
}

int pat_model_nodes(int alg, const pat_build_args *args, const double *a, const pat_model_params *mp,
                    double block_bytes, pat_model_result *out) {
  if (!pat_model_nodes_fits(alg, mp) || !a || !out || !(block_bytes >= 0)) return PAT_EINVAL;
  const pat_nodes *n = mp->nodes;
  const pat_link_model *lm = pat_model_link(mp, alg);
  nm M = {.n = n, .P = n->P, .H = n->H, .k = n->P / n->H, .a = a, .inter = lm->inter,
          .intra = lm->has_intra ? lm->intra : lm->inter};
  M.w = M.inter.beta * block_bytes;
  M.ws = M.intra.beta * block_bytes;
  M.sfree = calloc((size_t)M.H, sizeof *M.sfree);
  M.rfree = calloc((size_t)M.H, sizeof *M.rfree);
  M.pfree = calloc((size_t)M.P, sizeof *M.pfree);
  M.got = malloc((size_t)M.H * sizeof *M.got);
  by_arrival *order = malloc((size_t)M.P * sizeof *order);
  int rc = M.sfree && M.rfree && M.pfree && M.got && order ? PAT_OK : PAT_ENOMEM;
  if (rc == PAT_OK) {
    for (int h = 0; h < M.H; h++) M.got[h] = (latest){-INFINITY, -INFINITY, -INFINITY, -1};
    for (int r = 0; r < M.P; r++) order[r] = (by_arrival){a[r], r};
    qsort(order, (size_t)M.P, sizeof *order, earlier);
    if (alg == PAT_ALG_HRELAY)
      rc = hrelay(&M, order, pat_hrelay_pieces(n, args->block_bytes, pat_arrivals_near(args)));
    else
      rc = hring(&M, order);
  }
  if (rc == PAT_OK) {
    double sum = 0, emax = 0, fmax = 0, amax = 0;
    for (int r = 0; r < M.P; r++) {
      const double got = last_for(&M.got[n->of[r]], r), f = got > a[r] ? got : a[r], e = f - a[r];
      sum += e;
      emax = e > emax ? e : emax;
      fmax = f > fmax ? f : fmax;
      amax = a[r] > amax ? a[r] : amax;
      if (out->f) out->f[r] = f;
      if (out->e) out->e[r] = e;
      if (out->fg_step) out->fg_step[r] = -1;
    }
    out->ebar = sum / M.P;
    out->emax = emax;
    out->r = fmax;
    out->omega = amax;
    out->transfers = M.transfers;
    out->engine = PAT_ENGINE_FAST;
  }
  free(M.sfree);
  free(M.rfree);
  free(M.pfree);
  free(M.got);
  free(order);
  return rc;
}
