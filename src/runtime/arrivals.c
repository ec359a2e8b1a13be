/* The runtime's side of arrival prediction (see arrivals.h). */
#include "runtime/arrivals.h"

#include <string.h>

#include "pat.h"
#include "pat/clock.h"
#include "pat/phase.h"
#include "runtime/comm.h"
#include "runtime/debug.h"
#include "runtime/errors.h"
#include "runtime/runtime.h"

static pat_phase phase; /* the application's compute phase (one per process) */

void pat_arrivals_reset(void) { memset(&phase, 0, sizeof phase); }

int pat_contribute(pat_comm_state *cs, int64_t arrival_ns, int64_t block_bytes, int kind) {
  if (cs->x.state != PAT_X_IDLE || cs->P < 2) return MPI_SUCCESS;
  if (pat_test_prediction_hook) arrival_ns = pat_test_prediction_hook(cs->rank, cs->P, cs->x.seq, arrival_ns);
  pat_xrec rec = {.arrival_ns = arrival_ns,
                  .block_bytes = block_bytes,
                  .contributed_ns = pat_clock_global_ns(),
                  .setting = pat_proc.alg,
                  .kind = kind};
  pat_policy_fill_record(cs, block_bytes, &rec); /* the site's last call: what it cost */
  int rc = pat_exchange_start(&cs->x, cs->priv, &rec);
  if (rc == MPI_SUCCESS && cs->background) pat_comm_mark_work(cs);
  return rc;
}

void pat_contribute_from_history(pat_comm_state *cs) {
  if (!pat_proc.background || phase.instrumented || !cs->policy.next_exchanges) return;
  int site;
  int64_t arrival, bytes;
  if (!pat_sites_predict(&cs->sites, &site, &arrival, &bytes)) return;
  pat_contribute(cs, arrival, bytes, PAT_XREC_HISTORY);
}

/* A prediction made by instrumentation goes to the communicator used last;
 * early contributions need the background thread to progress them. */
static void contribute_current(int64_t arrival_ns, int kind) {
  if (!pat_proc.background) return;
  pat_comm_state *cs = pat_comm_lock_current();
  if (!cs) return; /* no all-gather yet: nothing to predict for */
  if (cs->policy.next_exchanges && cs->sites.last >= 0)
    pat_contribute(cs, arrival_ns, cs->sites.site[cs->sites.last].bytes, kind);
  pat_comm_unlock_current(cs);
}

static int phase_error(const char *fn, int status) {
  if (status == PAT_PHASE_BAD_PERCENT) return pat_fail(MPI_ERR_ARG, "%s: percent must be in (0, 100)", fn);
  return pat_fail(MPI_ERR_OTHER, "%s: no compute phase (call PAT_ProcessingStart first)", fn);
}

int PAT_ProcessingStart(void) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingStart: call PAT_Init first");
  pat_phase_start(&phase, pat_clock_global_ns());
  return MPI_SUCCESS;
}

int PAT_Edge(double percent) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Edge: call PAT_Init first");
  int64_t arrival;
  int status = pat_phase_edge(&phase, pat_clock_global_ns(), percent, &arrival);
  if (status < 0) return phase_error("PAT_Edge", status);
  if (status == PAT_PHASE_PREDICT) contribute_current(arrival, PAT_XREC_EDGE);
  return MPI_SUCCESS;
}

int PAT_ProcessingEnd(void) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingEnd: call PAT_Init first");
  int64_t arrival;
  int status = pat_phase_end(&phase, pat_clock_global_ns(), &arrival);
  if (status < 0) return phase_error("PAT_ProcessingEnd", status);
  if (status == PAT_PHASE_PREDICT) contribute_current(arrival, PAT_XREC_PHASE_END);
  return MPI_SUCCESS;
}
