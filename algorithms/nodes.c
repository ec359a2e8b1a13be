/*
 * The node map as the hierarchical builders use it: every rank's node as a
 * number 0..H-1 (nodes numbered by their lowest rank), each node's members
 * in rank order, and the port of a node for a block: the member that takes
 * the block (or a piece of it) into the node and hands it to the others.
 * Ports rotate with the block so that a node's inter-node traffic is spread
 * over its ranks instead of all passing through one leader.
 */
#include <stdlib.h>

#include "algorithms/algorithms.h"

typedef struct node_key {
  int id, rank;
} node_key;

static int by_id_then_rank(const void *x, const void *y) {
  const node_key *p = x, *q = y;
  if (p->id != q->id) return p->id < q->id ? -1 : 1;
  return p->rank - q->rank;
}

static int by_rank(const void *x, const void *y) { return ((const node_key *)x)->rank - ((const node_key *)y)->rank; }

int pat_nodes_make(int P, const int *node, pat_nodes *n) {
  n->P = P;
  n->H = 0;
  n->regular = 0;
  n->of = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->of);
  n->start = malloc((size_t)(P + 1) * sizeof *n->start);
  n->member = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->member);
  n->pos = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->pos);
  node_key *k = malloc((size_t)(P > 0 ? P : 1) * sizeof *k), *lead = malloc((size_t)(P > 0 ? P : 1) * sizeof *lead);
  int *number = malloc((size_t)(P > 0 ? P : 1) * sizeof *number);
  int rc = n->of && n->start && n->member && n->pos && k && lead && number ? PAT_OK : PAT_ENOMEM;
  if (rc == PAT_OK) {
    for (int r = 0; r < P; r++) k[r] = (node_key){node ? node[r] : r, r};
    qsort(k, (size_t)P, sizeof *k, by_id_then_rank);
    int groups = 0; /* runs of one id; a run's first rank is its lowest */
    for (int i = 0; i < P; i++)
      if (i == 0 || k[i].id != k[i - 1].id) lead[groups] = (node_key){groups, k[i].rank}, groups++;
    qsort(lead, (size_t)groups, sizeof *lead, by_rank);
    for (int h = 0; h < groups; h++) number[lead[h].id] = h; /* nodes numbered by their lowest rank */
    for (int i = 0, g = -1; i < P; i++) {
      if (i == 0 || k[i].id != k[i - 1].id) g++;
      n->of[k[i].rank] = number[g];
    }
    n->H = groups;
    for (int h = 0; h <= groups; h++) n->start[h] = 0;
    for (int r = 0; r < P; r++) n->start[n->of[r] + 1]++;
    for (int h = 0; h < groups; h++) n->start[h + 1] += n->start[h];
    for (int h = 0; h < groups; h++) number[h] = n->start[h]; /* next free place in node h */
    for (int r = 0; r < P; r++) n->pos[r] = number[n->of[r]]++, n->member[n->pos[r]] = r;
    const int k = groups > 0 ? P / groups : 0;
    n->regular = groups > 0 && k * groups == P;
    for (int r = 0; r < P && n->regular; r++) n->regular = n->of[r] == r / k;
  }
  free(k);
  free(lead);
  free(number);
  if (rc != PAT_OK) pat_nodes_free(n);
  return rc;
}

const pat_nodes *pat_nodes_of(const pat_build_args *a, pat_nodes *own) {
  own->of = own->start = own->member = own->pos = NULL;
  if (a->nodes && a->nodes->P == a->P) return a->nodes;
  return pat_nodes_make(a->P, a->node, own) == PAT_OK ? own : NULL;
}

void pat_nodes_free(pat_nodes *n) {
  free(n->of);
  free(n->start);
  free(n->member);
  free(n->pos);
  n->of = n->start = n->member = n->pos = NULL;
}

int pat_nodes_port(const pat_nodes *n, int h, int block, int piece, int pieces) {
  /* by the block's place among the blocks of the other nodes (its place in the node order, less node
   * h's own ranks before it), not its rank: ranks dealt round-robin over the nodes would otherwise
   * bring every block of one node in through one port, and so would uneven nodes */
  const int size = pat_nodes_size(n, h), at = n->pos[block];
  const int place = at < n->start[h] ? at : at >= n->start[h + 1] ? at - size : at - n->start[h];
  return n->member[n->start[h] + (int)(((int64_t)place * pieces + piece) % size)];
}
