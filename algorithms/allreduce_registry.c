/* The all-reduce table: names, builders and properties (allreduce.h). */
#include <strings.h>

#include "algorithms/allreduce.h"

const pat_allreduce_info pat_allreduce_algorithms[PAT_ARED_COUNT] = {
    [PAT_ARED_RDB] = {"rdb", pat_allreduce_rdb, PAT_AREDF_ORDERED,
                      "recursive doubling on the whole vector, log2 P steps (+2 if P is not a power of 2)"},
    [PAT_ARED_RING] = {"ring", pat_allreduce_ring, 0, "ring reduce-scatter + ring all-gather, 2(P-1) steps"},
    [PAT_ARED_RABENSEIFNER] = {"rabenseifner", pat_allreduce_rabenseifner, PAT_AREDF_ORDERED,
                               "recursive-halving reduce-scatter + recursive-doubling all-gather, 2 log2 P steps "
                               "(+2 if P is not a power of 2)"},
    [PAT_ARED_RELAY] = {"relay", pat_allreduce_relay, PAT_AREDF_ARRIVAL,
                        "the predicted last rank owns nothing: the others reduce-scatter and spread the result in "
                        "pieces as a data flow; after the last arrival about beta*m"},
    [PAT_ARED_HRING] = {"hring", pat_allreduce_hring, 0,
                        "two levels: a ring reduce-scatter in each node, a ring between the nodes' owners of "
                        "each segment, a ring all-gather in each node; a node's link carries 2(H-1)/H m"},
    [PAT_ARED_HRELAY] = {"hrelay", pat_allreduce_hrelay, PAT_AREDF_ARRIVAL,
                         "two levels, arrival-aware: a reduce-scatter in each node, RELAY between the nodes (the "
                         "predicted last rank's node owns nothing), an all-gather in each node; after the last "
                         "arrival about beta*m"},
    [PAT_ARED_SLT] = {"slt", pat_allreduce_slt, PAT_AREDF_ARRIVAL,
                      "Proficz's sorted linear tree, pipelined: a chain in the predicted order of arrival sums the "
                      "vector up to the last rank and hands the result back down; after the last arrival about "
                      "beta*m"},
};

int pat_allreduce_by_name(const char *name) {
  if (!name) return PAT_ALG_UNKNOWN;
  for (int i = 0; i < PAT_ARED_COUNT; i++)
    if (strcasecmp(name, pat_allreduce_algorithms[i].name) == 0) return i;
  return PAT_ALG_UNKNOWN;
}

int pat_build_allreduce(int id, pat_sched *out, const pat_build_args *a) {
  if (id < 0 || id >= PAT_ARED_COUNT || a->P < 1) return PAT_EINVAL;
  if (a->self != PAT_ALL_RANKS && (a->self < 0 || a->self >= a->P)) return PAT_EINVAL;
  int rc = pat_sched_init(out, a->P, a->self);
  if (rc) return rc;
  out->alg = PAT_ARED_ALG_BASE + id;
  out->flags |= PAT_SCHED_REDUCE;
  rc = pat_allreduce_algorithms[id].build(out, a);
  if (!rc) rc = pat_sched_finalize(out);
  if (rc) pat_sched_free(out);
  return rc;
}
