/* The build arguments of one call (see build_args.h). */
#include "model/build_args.h"

#include <math.h>

int64_t pat_quantise_ns(double seconds) {
  double ns = seconds * 1e9;
  if (!(ns < 9.2e18)) return INT64_MAX; /* also NaN */
  if (ns < -9.2e18) return INT64_MIN + 1;
  return (int64_t)llround(ns);
}

pat_build_args pat_call_build_args(const pat_model_params *mp, int alg, int P, const int *node, int self,
                                   const int64_t *arrival, double block_bytes, int root) {
  int64_t tau = pat_quantise_ns(pat_model_tau(mp, alg, block_bytes));
  pat_build_args a = {
      .P = P,
      .self = self,
      .arrival = arrival,
      .tau = tau > 0 ? tau : 1,
      .root = root,
      .alpha = pat_quantise_ns(pat_model_link(mp, alg)->inter.alpha),
      .block_bytes = block_bytes >= 9.2e18 ? INT64_MAX : (int64_t)block_bytes,
      .node = node,
      .nodes = node && node == mp->node ? mp->nodes : NULL, /* the caller's map of these ids, if it made one */
  };
  return a;
}
