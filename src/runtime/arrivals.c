/* The runtime's side of arrival prediction (see arrivals.h). */
#include "runtime/arrivals.h"

#include <stdatomic.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "pat.h"
#include "pat/clock.h"
#include "pat/phase.h"
#include "runtime/comm.h"
#include "runtime/debug.h"
#include "runtime/errors.h"
#include "runtime/process.h"

/* Each thread has its own compute phase: threads that instrument at the same
 * time never see each other's start or edge.  A phase made before the last
 * PAT_Init is forgotten (its generation is old). */
static _Thread_local pat_phase phase;
static _Thread_local unsigned phase_generation;
static atomic_uint generation = 1;
/* Some thread started a phase: the process is instrumented, and the
 * call-site history no longer predicts (instrumentation does). */
static atomic_int instrumented;

void pat_arrivals_reset(void) {
  atomic_fetch_add(&generation, 1);
  atomic_store(&instrumented, 0);
}

/* The calling thread's phase, cleared if it dates from before PAT_Init. */
static pat_phase *my_phase(void) {
  unsigned g = atomic_load_explicit(&generation, memory_order_relaxed);
  if (phase_generation != g) {
    memset(&phase, 0, sizeof phase);
    phase_generation = g;
  }
  return &phase;
}

_Static_assert(PAT_LAST_STATIC == PAT_PREV_STATIC && PAT_LAST_ALT == PAT_PREV_ALT &&
                   PAT_LAST_PREDICTED == PAT_PREV_PREDICTED && PAT_LAST_EXCHANGED == PAT_PREV_EXCHANGED,
               "a record's prev_flags carry the engine's PAT_LAST_* as they are");

/* This rank's record for a call of `bytes` per block carries its last call
 * at that site under auto, what auto's engine learns from (prev_call -1
 * when there is none, or the setting is fixed). */
static void fill_previous(pat_comm_state *cs, int64_t bytes, pat_xrec *rec) {
  int site = pat_sites_lookup(&cs->sites, bytes);
  const pat_engine *e = pat_proc.alg == PAT_ALG_AUTO ? pat_comm_engine_of(cs, site) : NULL;
  const pat_last_call *l = e ? pat_engine_last(e, site) : NULL;
  rec->prev_call = -1;
  rec->prev_alg = -1;
  rec->exchange_ns = e ? pat_engine_exchange_mine(e) : -1;
  if (!l) return;
  rec->prev_call = l->call;
  rec->prev_arrival_ns = l->arrival_ns;
  rec->prev_elapsed_ns = l->elapsed_ns;
  rec->prev_predicted_ns = l->predicted_ns;
  rec->prev_alg = l->alg;
  rec->prev_flags = l->flags;
}

int pat_contribute(pat_comm_state *cs, int64_t arrival_ns, int64_t block_bytes, uint64_t shape_hash, int kind) {
  if (cs->x.state != PAT_X_IDLE || cs->base.P < 2) return MPI_SUCCESS;
  if (pat_test_prediction_hook) arrival_ns = pat_test_prediction_hook(cs->base.rank, cs->base.P, cs->x.seq, arrival_ns);
  pat_xrec rec = {.arrival_ns = arrival_ns,
                  .block_bytes = block_bytes,
                  .shape_hash = shape_hash,
                  .contributed_ns = pat_clock_global_ns(),
                  .setting = pat_proc.alg,
                  .kind = kind};
  fill_previous(cs, block_bytes, &rec); /* the site's last call: what it cost */
  int rc = pat_exchange_start(&cs->x, &rec);
  if (rc == MPI_SUCCESS && cs->base.background) pat_comm_mark_work(cs);
  return rc;
}

/* Instrumentation predicts better than history, so an instrumented process
 * waits for its PAT_Edge -- except under a fixed algorithm that is planned
 * ahead (PAT_ALGF_PLAN_AHEAD), or auto at a site that runs one
 * (pat_engine_plans_ahead): its plan, made now from history, lets the
 * background thread take blocks in before the last rank's edge, which under
 * imbalance comes after the early ranks arrive (BENCHMARKS.md, History, 2026-11-23). */
static int plans_ahead(pat_comm_state *cs, int site) {
  int setting = pat_proc.alg;
  if (setting == PAT_ALG_AUTO) {
    const pat_engine *e = pat_comm_engine_of(cs, site);
    return e && pat_engine_plans_ahead(e, site);
  }
  return setting >= 0 && (pat_algorithms[setting].flags & PAT_ALGF_PLAN_AHEAD);
}

void pat_contribute_from_history(pat_comm_state *cs) {
  if (!pat_proc.background || !cs->next_exchanges) return;
  int site;
  int64_t arrival, bytes;
  if (!pat_sites_predict(&cs->sites, &site, &arrival, &bytes)) return;
  if (atomic_load_explicit(&instrumented, memory_order_relaxed) && !plans_ahead(cs, site)) return;
  pat_contribute(cs, arrival, bytes, cs->sites.site[site].shape_hash, PAT_XREC_HISTORY);
}

/* A prediction made by instrumentation goes to the communicator of the
 * process's last all-gather; early contributions need the background thread
 * to progress them.  If that communicator is inside a call (on another
 * thread), the prediction is dropped rather than waited for: that call may
 * need other ranks whose instrumenting threads wait likewise (issue 25), and
 * the call after it contributes on arrival instead. */
static void contribute_current(int64_t arrival_ns, int kind) {
  if (!pat_proc.background) return;
  pat_comm_state *cs = pat_comm_try_current();
  if (!cs) return; /* no all-gather yet, or it is busy: nothing to predict for now */
  if (cs->next_exchanges && cs->sites.last >= 0) {
    const pat_site *last = &cs->sites.site[cs->sites.last];
    pat_contribute(cs, arrival_ns, last->bytes, last->shape_hash, kind);
  }
  pat_comm_unlock_current(cs);
}

static int phase_error(const char *fn, int status) {
  if (status == PAT_PHASE_BAD_PERCENT) return pat_fail(MPI_ERR_ARG, "%s: percent must be in (0, 100)", fn);
  return pat_fail(MPI_ERR_OTHER, "%s: no compute phase (call PAT_ProcessingStart first)", fn);
}

int PAT_ProcessingStart(void) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingStart: call PAT_Init first");
  pat_phase *ph = my_phase();
  /* a second start would silently move the phase's origin and with it the
   * edge's extrapolation: an error, the open phase stays as it was */
  if (ph->active)
    return pat_fail(MPI_ERR_OTHER,
                    "PAT_ProcessingStart: this thread's compute phase is already open (call PAT_ProcessingEnd first)");
  pat_phase_start(ph, pat_clock_global_ns());
  atomic_store_explicit(&instrumented, 1, memory_order_relaxed);
  return MPI_SUCCESS;
}

int PAT_Edge(double percent) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_Edge: call PAT_Init first");
  int64_t arrival;
  int status = pat_phase_edge(my_phase(), pat_clock_global_ns(), percent, &arrival);
  if (status < 0) return phase_error("PAT_Edge", status);
  if (status == PAT_PHASE_PREDICT) contribute_current(arrival, PAT_XREC_EDGE);
  return MPI_SUCCESS;
}

int PAT_ProcessingEnd(void) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_ProcessingEnd: call PAT_Init first");
  int64_t arrival;
  int status = pat_phase_end(my_phase(), pat_clock_global_ns(), &arrival);
  if (status < 0) return phase_error("PAT_ProcessingEnd", status);
  if (status == PAT_PHASE_PREDICT) contribute_current(arrival, PAT_XREC_PHASE_END);
  return MPI_SUCCESS;
}

/* The state is made here if comm has none, as a first PAT_Allgather would
 * (collective): a prediction needs the state's exchange to go into. */
int PAT_PredictOn(MPI_Comm comm) {
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "PAT_PredictOn: call PAT_Init first");
  if (comm == MPI_COMM_NULL) return pat_fail(MPI_ERR_COMM, "PAT_PredictOn: comm is MPI_COMM_NULL");
  pat_comm_state *cs = pat_comm_find(comm);
  if (!cs || !cs->blocking_ready) {
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return pat_fail(MPI_ERR_COMM, "PAT_PredictOn: invalid communicator");
    if (inter) return MPI_SUCCESS;
    int rc = pat_comm_get(comm, &cs);
    if (rc != MPI_SUCCESS) return rc;
  }
  pat_comm_set_current(cs);
  return MPI_SUCCESS;
}
