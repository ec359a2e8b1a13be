/* The portfolio table: names, builders and properties of every algorithm. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "algorithms/algorithms.h"

const pat_alg_info pat_algorithms[PAT_ALG_COUNT] = {
    [PAT_ALG_NATIVE] = {"native", NULL, PAT_ALGF_NATIVE, "the MPI library's own MPI_Allgather"},
    [PAT_ALG_RING] = {"ring", pat_allgather_ring, PAT_ALGF_CLASSIC, "parallel ring, P-1 steps"},
    [PAT_ALG_NEX] = {"nex", pat_allgather_nex, PAT_ALGF_CLASSIC, "neighbour exchange, P/2 steps (ring for odd P)"},
    [PAT_ALG_RDB] = {"rdb", pat_allgather_rdb, PAT_ALGF_CLASSIC, "recursive doubling, log2 P steps (+2 if P is not a power of 2)"},
    [PAT_ALG_BRUCK] = {"bruck", pat_allgather_bruck, PAT_ALGF_CLASSIC, "Bruck dissemination, ceil(log2 P) steps"},
    [PAT_ALG_LNBC] = {"lnbc", pat_allgather_lnbc, PAT_ALGF_CLASSIC | PAT_ALGF_ROOTED, "linear gather to the root + binomial broadcast"},
    [PAT_ALG_BDR] = {"bdr", pat_allgather_bdr, PAT_ALGF_ARRIVAL, "background disseminated ring (Proficz 2021)"},
    [PAT_ALG_BSLB] = {"bslb", pat_allgather_bslb, PAT_ALGF_ARRIVAL | PAT_ALGF_ROOTED, "arrival-sorted synchronized linear gather + broadcast (Proficz 2021)"},
    [PAT_ALG_ARD] = {"ard", pat_allgather_ard, PAT_ALGF_ARRIVAL, "arrival-driven dissemination (libpat)"},
    [PAT_ALG_DIRECT] = {"direct", pat_allgather_direct, PAT_ALGF_CLASSIC, "direct exchange with every rank, a window of W messages per step"},
    [PAT_ALG_RELAY] = {"relay", pat_allgather_relay, PAT_ALGF_ARRIVAL | PAT_ALGF_PLAN_AHEAD, "arrival-ordered scatter and relay, run as a data flow (libpat)"},
    [PAT_ALG_HRING] = {"hring", pat_allgather_hring, PAT_ALGF_NODES,
                       "two-level: blocks shared in the node, a pipelined ring between nodes, ports rotating over "
                       "each node's ranks (libpat)"},
    [PAT_ALG_HRELAY] = {"hrelay", pat_allgather_hrelay, PAT_ALGF_ARRIVAL | PAT_ALGF_PLAN_AHEAD | PAT_ALGF_NODES,
                        "two-level RELAY: a block shared in its node at once, scattered over the other nodes and "
                        "relayed between them, each piece handed on inside the node (libpat)"},
};

int pat_alg_by_name(const char *name) {
  if (!name) return PAT_ALG_UNKNOWN;
  if (strcasecmp(name, "auto") == 0) return PAT_ALG_AUTO;
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (strcasecmp(name, pat_algorithms[i].name) == 0) return i;
  return PAT_ALG_UNKNOWN;
}

const char *pat_alg_names(void) {
  static _Thread_local char names[256]; /* from the table, so a new algorithm needs no edit here */
  size_t used = 0;
  for (int i = 0; i < PAT_ALG_COUNT && used < sizeof names; i++)
    used += (size_t)snprintf(names + used, sizeof names - used, "%s, ", pat_algorithms[i].name);
  if (used < sizeof names) snprintf(names + used, sizeof names - used, "auto");
  return names;
}

int pat_build(int alg, pat_sched *out, const pat_build_args *a) {
  if (alg < 0 || alg >= PAT_ALG_COUNT || !pat_algorithms[alg].build || a->P < 1) return PAT_EINVAL;
  if (a->self != PAT_ALL_RANKS && (a->self < 0 || a->self >= a->P)) return PAT_EINVAL;
  int rc = pat_sched_init(out, a->P, a->self);
  if (rc) return rc;
  out->alg = alg;
  if (pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) out->flags |= PAT_SCHED_ARRIVAL;
  rc = pat_algorithms[alg].build(out, a);
  if (!rc) rc = pat_sched_finalize(out);
  if (rc) pat_sched_free(out);
  return rc;
}
