/* The decision log (see decisions.h). */
#include "runtime/decisions.h"

#include <stdio.h>

#include "algorithms/algorithms.h"
#include "decide/explore.h"
#include "runtime/process.h"

int pat_decisions_on(void) { return pat_proc.settings.decisions[0] != '\0'; }

void pat_decisions_write(const pat_comm_state *cs, int site, long long call, const pat_call_stats *st, int alg,
                         int exchanged, int64_t arrival_ns, int64_t exit_ns) {
  if (!pat_decisions_on() || site < 0) return;
  char path[PAT_SETTING_TEXT + 32], state[1024];
  snprintf(path, sizeof path, "%s.%d", pat_proc.settings.decisions, pat_proc.world_rank);
  pat_engine_describe_site(&cs->engine, site, state, sizeof state);
  /* one open per call: the file stays complete if the program dies later */
  FILE *f = fopen(path, "a");
  if (!f) return;
  static const char *whys[] = {"chosen", "kept", "explored"};
  const char *why = exchanged ? whys[st->why] : "-";
  fprintf(f,
          "P %d site %d call %lld site_call %lld alg %s exchanged %d e %.3fms choice %s %s %s arrival_ns %lld "
          "exit_ns %lld\n",
          cs->base.P, site, call, cs->sites.site[site].calls, pat_algorithms[alg].name, exchanged,
          1e-6 * (double)(exit_ns - arrival_ns), why,
          !exchanged ? "-" : st->regime == PAT_REGIME_IMBALANCED ? "imbalanced" : "balanced", state,
          (long long)arrival_ns, (long long)exit_ns);
  fclose(f);
}
