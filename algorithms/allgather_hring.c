/*
 * HRING: a two-level all-gather for ranks that share nodes (libpat), run as
 * a data flow (schedule.h, send_window > 0); the balanced candidate beside
 * HRELAY, in the spirit of Open MPI's HAN.
 *
 * The unit is a group: a run of consecutive ranks of one node (with ranks
 * placed by slot, a node is one group).  A group's ranks send their blocks
 * to the group's port in their node, which hands every rank of the node the
 * whole group but its own block (at most two spans).  Between nodes the
 * groups travel a ring of the H nodes, one message per group and hop: group
 * G of node g enters node g + d (d = 1 .. H - 1) through that node's port
 * for G, which hands G to the other ranks of its node and, unless d = H - 1,
 * forwards it to the next node's port.  A group moves on as soon as it is
 * held: the ring is pipelined group by group.  Ports rotate with the group
 * (port_of), so every rank of a node carries a share of its node's
 * inter-node traffic.
 *
 * Node n's link carries the P - k_n blocks of the other nodes in and, on a
 * ring of equal nodes, as many out: the one-port optimum at node level; a
 * group leaves its node once.  Messages: about (k - 1) (H + 2) per node and
 * group hop, so that P = 4096 in nodes of 128 is about 1.4 * 10^5
 * transfers, not P^2.
 *
 * Cost (Hockney, block of m bytes, k ranks per node, inter-node (alpha,
 * beta), intra-node (alpha_s, beta_s)): about (H - 1)(alpha + k beta m)
 * through the ring plus the last group's (k - 1)(alpha_s + k beta_s m)
 * hand-out, after the node's own gather (alpha_s + k beta_s m).
 *
 * Steps (tags and order only), G the group's index (groups numbered by
 * their first rank) and NG their number: its own gather 2G, its own
 * hand-out 2G + 1; hop d of G is 2 NG + 2 NG (d - 1) + G and that hop's
 * hand-out NG later, so no pair meets twice in a step.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

/* Sends in flight per rank: a port's hand-outs of what came in, as RELAY's window. */
#define HRING_WINDOW 64

typedef struct group {
  int node, first, count; /* ranks first .. first + count - 1, all of node `node` */
} group;

/* The runs of consecutive ranks of each node, numbered by their first rank; returns how many. */
static int make_groups(const pat_nodes *n, group *g) {
  int ng = 0;
  for (int r = 0; r < n->P; r++) {
    if (r > 0 && n->of[r] == n->of[r - 1]) {
      g[ng - 1].count++;
      continue;
    }
    g[ng++] = (group){n->of[r], r, 1};
  }
  return ng;
}

/* The groups of each node: numbers glist[gstart[h] .. gstart[h + 1]), increasing. */
typedef struct node_groups {
  int *gstart, *glist;
} node_groups;

static int index_groups(const pat_nodes *n, const group *g, int ng, node_groups *ix) {
  ix->gstart = calloc((size_t)n->H + 1, sizeof *ix->gstart);
  ix->glist = malloc((size_t)ng * sizeof *ix->glist);
  int *fill = calloc((size_t)n->H + 1, sizeof *fill);
  if (!ix->gstart || !ix->glist || !fill) {
    free(fill);
    return PAT_ENOMEM;
  }
  for (int G = 0; G < ng; G++) ix->gstart[g[G].node + 1]++;
  for (int h = 0; h < n->H; h++) ix->gstart[h + 1] += ix->gstart[h];
  for (int G = 0; G < ng; G++) ix->glist[ix->gstart[g[G].node] + fill[g[G].node]++] = G;
  free(fill);
  return PAT_OK;
}

/* Node h's port for group G.  A node's own groups rotate over its ranks by their place among its
 * groups, and the other nodes' groups by their place among those (the number of groups before G that
 * are not h's), so that consecutive incoming groups enter through consecutive ranks whatever the
 * placement: rotating by G itself, or by its first rank, sends every incoming group through one
 * rank where the nodes' ranks interleave or come k at a time. */
static int port_of(const pat_nodes *n, const node_groups *ix, const group *g, int h, int G) {
  const int *mine = ix->glist + ix->gstart[h], count = ix->gstart[h + 1] - ix->gstart[h];
  int lo = 0, hi = count; /* h's groups numbered below G */
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (mine[mid] < G)
      lo = mid + 1;
    else
      hi = mid;
  }
  const int place = g[G].node == h ? lo : G - lo;
  return n->member[n->start[h] + place % pat_nodes_size(n, h)];
}

/* `from` hands group G to rank `to`, all of it but `to`'s own block (at most two spans). */
static int hand(pat_sched *s, int P, const group *G, int from, int to, int step) {
  pat_span sp[2];
  int ns = 0;
  if (to >= G->first && to < G->first + G->count) {
    if (to > G->first) sp[ns++] = pat_blocks(P, G->first, to - G->first);
    if (to + 1 < G->first + G->count) sp[ns++] = pat_blocks(P, to + 1, G->first + G->count - to - 1);
  } else {
    sp[ns++] = pat_blocks(P, G->first, G->count);
  }
  return ns ? pat_sched_transfer(s, step, from, to, ns, sp, 0) : PAT_OK;
}

/* `from` hands group G to every rank of node h but itself. */
static int hand_out(pat_sched *s, const pat_nodes *n, const group *G, int h, int from, int step) {
  for (int i = n->start[h]; i < n->start[h + 1]; i++)
    if (n->member[i] != from && hand(s, n->P, G, from, n->member[i], step)) return PAT_ENOMEM;
  return PAT_OK;
}

int pat_allgather_hring(pat_sched *s, const pat_build_args *a) {
  const int P = a->P;
  s->send_window = HRING_WINDOW;
  if (P < 2) return PAT_OK;
  pat_nodes own;
  group *g = malloc((size_t)P * sizeof *g);
  const pat_nodes *np = g ? pat_nodes_of(a, &own) : NULL;
  if (!np) {
    free(g);
    return PAT_ENOMEM;
  }
  const pat_nodes n = *np;
  const int ng = make_groups(&n, g);
  node_groups ix = {0};
  int rc = index_groups(&n, g, ng, &ix);
  for (int G = 0; G < ng && rc == PAT_OK; G++) { /* the group inside its own node */
    const int port = port_of(&n, &ix, g, g[G].node, G);
    for (int r = g[G].first; r < g[G].first + g[G].count && rc == PAT_OK; r++)
      if (r != port) {
        pat_span own = pat_blocks(P, r, 1);
        rc = pat_sched_transfer(s, 2 * G, r, port, 1, &own, 0);
      }
    if (rc == PAT_OK) rc = hand_out(s, &n, &g[G], g[G].node, port, 2 * G + 1);
  }
  for (int G = 0; G < ng && rc == PAT_OK; G++) { /* the ring */
    int holder = port_of(&n, &ix, g, g[G].node, G);
    for (int d = 1; d < n.H && rc == PAT_OK; d++) {
      const int h = (g[G].node + d) % n.H, port = port_of(&n, &ix, g, h, G);
      const int step = 2 * ng + 2 * ng * (d - 1) + G;
      pat_span sp = pat_blocks(P, g[G].first, g[G].count);
      rc = pat_sched_transfer(s, step, holder, port, 1, &sp, 0);
      if (rc == PAT_OK) rc = hand_out(s, &n, &g[G], h, port, step + ng);
      holder = port;
    }
  }
  s->flags |= PAT_SCHED_MULTI_SEND | PAT_SCHED_MULTI_RECV;
  pat_nodes_free(&own);
  free(ix.gstart);
  free(ix.glist);
  free(g);
  return rc;
}
