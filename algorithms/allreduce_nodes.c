/*
 * The phases inside a node shared by the two-level all-reduces (HRING,
 * HRELAY): H nodes of at least k ranks each, members in rank order; the
 * vector's P segments make k chunks of consecutive segments and member i of
 * every node owns chunk i.
 *   - a node's ring over its first k members: the reduce-scatter that leaves
 *     chunk i complete for the node at member i, or the all-gather that hands
 *     every chunk to every member (k - 1 steps each);
 *   - a node's extras (members past the first k): each adds its whole vector
 *     into member (position mod k) first and gets the result back last.
 *
 * Cost (intra-node alpha_s, beta_s, gamma_s; vector of m bytes): each ring
 * (k - 1) (alpha_s + beta_s m / k), the reduce-scatter's combinations
 * (k - 1) / k m gamma_s; the extras E (alpha_s + beta_s m) each way and
 * E m gamma_s, E the most extras a member takes.
 */
#include "algorithms/allreduce.h"

pat_span pat_allreduce_chunk_part(int P, int k, int c, int parts, int j) {
  const int lo = (int)((long long)c * P / k), size = (int)((long long)(c + 1) * P / k) - lo;
  const int from = (int)((long long)j * size / parts), to = (int)((long long)(j + 1) * size / parts);
  return pat_blocks(P, lo + from, to - from);
}

int pat_allreduce_node_ring(pat_sched *s, const pat_nodes *n, int h, int k, int step, int reduce) {
  const int P = n->P;
  for (int t = 0; t < k - 1; t++)
    for (int j = 0; j < k; j++) {
      int from = pat_node_member(n, h, j), to = pat_node_member(n, h, (j + 1) % k);
      pat_span sp = pat_allreduce_chunk_part(P, k, ((j - t - (reduce ? 1 : 0)) % k + k) % k, 1, 0);
      int rc = reduce ? pat_sched_reduce(s, step + t, from, to, 1, &sp, 0)
                      : pat_sched_transfer(s, step + t, from, to, 1, &sp, 0);
      if (rc) return rc;
    }
  return PAT_OK;
}

int pat_allreduce_node_extras(pat_sched *s, const pat_nodes *n, int h, int k, int first, int reduce) {
  const pat_span all = pat_blocks(n->P, 0, n->P);
  for (int p = k; p < pat_nodes_size(n, h); p++) {
    int extra = pat_node_member(n, h, p), into = pat_node_member(n, h, p % k), step = first + (p - k) / k;
    int rc = reduce ? pat_sched_reduce(s, step, extra, into, 1, &all, 0)
                    : pat_sched_transfer(s, step, into, extra, 1, &all, 0);
    if (rc) return rc;
  }
  return PAT_OK;
}

int pat_allreduce_node_shape(const pat_nodes *n, int *k) {
  int most = 0;
  *k = n->P;
  for (int h = 0; h < n->H; h++) {
    *k = pat_nodes_size(n, h) < *k ? pat_nodes_size(n, h) : *k;
    most = pat_nodes_size(n, h) > most ? pat_nodes_size(n, h) : most;
  }
  return (most - *k + *k - 1) / *k;
}
