/*
 * The application's side of arrival prediction: PAT_ProcessingStart,
 * PAT_Edge and PAT_ProcessingEnd, and the contribution of a prediction to
 * the next arrival exchange of the communicator last used.
 *
 * A rank contributes once per exchange: at the first edge of the compute
 * phase (linear extrapolation), at the end of the phase if it had no edge,
 * from the call site's history right after the previous call when the
 * application is not instrumented, or else on arrival.
 */
#include "pat/clock.h"
#include "pat/predict.h"
#include "runtime/runtime.h"

int pat_setting_needs_exchange(int setting) {
  return setting == PAT_ALG_AUTO || (setting >= 0 && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL));
}

int pat_contribute(pat_comm_state *cs, int64_t arrival_ns, int64_t block_bytes, int kind) {
  if (cs->x.state != PAT_X_IDLE || cs->P < 2) return MPI_SUCCESS;
  if (pat_test_prediction_hook) arrival_ns = pat_test_prediction_hook(cs->rank, cs->P, cs->x.seq, arrival_ns);
  pat_xrec rec = {arrival_ns, block_bytes, pat_clock_global_ns(), pat_rt.alg, kind};
  return pat_exchange_start(&cs->x, cs->ctrl, &rec);
}

/* Early contributions need the background thread to progress them. */
static void contribute_current(int64_t arrival_ns, int kind) {
  if (!pat_rt.background) return;
  pthread_mutex_lock(&pat_rt.lock);
  pat_comm_state *cs = pat_rt.current;
  pthread_mutex_unlock(&pat_rt.lock);
  if (!cs) return; /* no all-gather yet: nothing to predict for */
  pthread_mutex_lock(&cs->lock);
  if (pat_setting_needs_exchange(pat_rt.alg)) pat_contribute(cs, arrival_ns, cs->last_bytes, kind);
  pthread_mutex_unlock(&cs->lock);
  pat_background_wake();
}

int PAT_ProcessingStart(void) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingStart: call PAT_Init first");
  pat_rt.instrumented = 1;
  pat_rt.phase_active = 1;
  pat_rt.phase_contributed = 0;
  pat_rt.phase_start_ns = pat_clock_global_ns();
  return MPI_SUCCESS;
}

int PAT_Edge(double percent) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Edge: call PAT_Init first");
  if (!(percent > 0.0 && percent < 100.0)) return pat_fail(MPI_ERR_ARG, "PAT_Edge: percent must be in (0, 100)");
  if (!pat_rt.phase_active)
    return pat_fail(MPI_ERR_OTHER, "PAT_Edge: no compute phase (call PAT_ProcessingStart first)");
  if (pat_rt.phase_contributed) return MPI_SUCCESS;
  pat_rt.phase_contributed = 1;
  int64_t now = pat_clock_global_ns();
  contribute_current(pat_predict_edge(pat_rt.phase_start_ns, now, percent), PAT_XREC_EDGE);
  return MPI_SUCCESS;
}

int PAT_ProcessingEnd(void) {
  if (!pat_rt.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingEnd: call PAT_Init first");
  if (!pat_rt.phase_active)
    return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingEnd: no compute phase (call PAT_ProcessingStart first)");
  if (!pat_rt.phase_contributed) contribute_current(pat_clock_global_ns(), PAT_XREC_PHASE_END);
  pat_rt.phase_active = 0;
  pat_rt.phase_contributed = 1;
  return MPI_SUCCESS;
}
