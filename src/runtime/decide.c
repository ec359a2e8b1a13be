/* Which algorithm a call runs (see decide.h). */
#include "runtime/decide.h"

#include "algorithms/algorithms.h"
#include "model/select.h"
#include "runtime/comm.h"
#include "runtime/netparams.h"
#include "runtime/runtime.h"

int pat_setting_needs_exchange(int setting) {
  return setting == PAT_ALG_AUTO || (setting >= 0 && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL));
}

int pat_next_call_exchanges(const pat_comm_state *cs) {
  return cs->P > 1 && pat_setting_needs_exchange(pat_proc.alg);
}

static int uses_intra(const pat_model_params *mp) {
  if (mp->dflt.has_intra) return 1;
  for (int a = 0; a < PAT_ALG_COUNT; a++)
    if (mp->alg[a].set && mp->alg[a].has_intra) return 1;
  return 0;
}

int pat_choose(pat_comm_state *cs, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns, int setting,
               int *root) {
  *root = 0;
  if (setting >= 0) return setting; /* fixed: BSLB's root stays 0, as in the paper */
  if (!arrival || cs->P < 2) return PAT_ALG_RING;
  pat_model_params mp = *pat_netparams();
  mp.node = uses_intra(&mp) ? cs->node : NULL;
  pat_select_in in = {0};
  in.P = cs->P;
  in.arrival_ns = arrival;
  in.bg_start_ns = bg_start_ns;
  in.block_bytes = (double)bytes;
  in.mp = &mp;
  in.allowed = 0;     /* every algorithm with a schedule */
  in.lnbc_root = 0;   /* LNBC's schedules are cached for root 0 */
  in.bslb_roots = 1;  /* BSLB rooted at the earliest predicted arrival */
  pat_select_out out;
  if (pat_select(&cs->planner.select, &in, &out) != PAT_OK || out.alg < 0) return PAT_ALG_RING;
  *root = out.root;
  return out.alg;
}
