/* The non-blocking form of an all-gather under the cost model (see model_nbc.h). */
#include "model/model_nbc.h"

#include <math.h>
#include <stdlib.h>

#include "algorithms/algorithms.h"

static int starts_ahead(int alg) { return (pat_algorithms[alg].flags & PAT_ALGF_PLAN_AHEAD) != 0; }

/* Mean over ranks of the bound max(T, lb_i), with the posts as arrivals. */
static double bound(int P, const int64_t *post_ns, double compute_s, double block_bytes,
                    const pat_model_params *mp, double *per_rank) {
  double *a = malloc((size_t)P * sizeof *a);
  if (!a) return NAN;
  int64_t first = post_ns[0];
  for (int i = 1; i < P; i++)
    if (post_ns[i] < first) first = post_ns[i];
  for (int i = 0; i < P; i++) a[i] = (double)(post_ns[i] - first) * 1e-9;
  double tau = pat_model_cost(mp->dflt.inter, block_bytes, 1.0);
  pat_lower_bound_nodes(P, a, tau, mp->node, per_rank);
  double sum = 0;
  for (int i = 0; i < P; i++) sum += fmax(compute_s, per_rank[i]);
  free(a);
  return sum / P;
}

int pat_model_nbc(pat_select_cache *c, int alg, int own_as, int P, const int64_t *post_ns, double compute_s,
                  double block_bytes, const pat_model_params *mp, pat_nbc_prediction *out) {
  if (P < 1 || !post_ns || !out || !(compute_s >= 0) || alg < 0 || alg >= PAT_ALG_COUNT) return PAT_EINVAL;
  int own = alg == PAT_ALG_NATIVE;
  int run = own ? own_as : alg;
  if (run < 0 || run >= PAT_ALG_COUNT || !pat_algorithms[run].build) return PAT_EINVAL;
  double *e = malloc((size_t)P * sizeof *e);
  if (!e) return PAT_ENOMEM;
  pat_model_result res = {.e = e};
  /* MPI's own runs as the blocking call; libpat's from the post, built balanced, ahead where it plans ahead */
  int rc = own ? pat_predict(c, run, 0, P, post_ns, PAT_NO_TIME, block_bytes, mp, &res)
               : pat_predict_built_balanced(c, run, P, post_ns, starts_ahead(run) ? PAT_NO_TIME : PAT_NO_BACKGROUND,
                                            block_bytes, mp, &res);
  if (rc == PAT_OK) {
    out->ebar = out->emax = 0;
    for (int i = 0; i < P; i++) {
      double ei = own ? compute_s + e[i] : fmax(e[i], compute_s);
      out->ebar += ei / P;
      out->emax = fmax(out->emax, ei);
    }
    out->lb = bound(P, post_ns, compute_s, block_bytes, mp, e);
  }
  free(e);
  return rc;
}
