/* Retiring a freed communicator without blocking (see retire.h). */
#include "runtime/retire.h"

#include <stdlib.h>

#include "exec/executor.h"
#include "runtime/comm.h"

enum { RETIRE_LIVE = 0, RETIRE_EXCHANGE, RETIRE_FIN, RETIRE_DONE };

void pat_retire_begin(pat_comm_state *cs, int may_follow) {
  pat_retirement *rt = &cs->retire;
  rt->stage = RETIRE_EXCHANGE;
  if (cs->P < 2 || !cs->background) { /* nothing ahead of a call without a background thread */
    rt->stage = RETIRE_DONE;
    return;
  }
  if (cs->x.state == PAT_X_IDLE && may_follow) {
    pat_xrec none = {.prev_call = -1, .prev_alg = -1, .setting = PAT_XSETTING_MIXED, .kind = PAT_XREC_NONE};
    if (pat_exchange_start(&cs->x, cs->priv, &none) != MPI_SUCCESS) rt->stage = RETIRE_DONE;
  }
}

static int records_real(const pat_exchange *x) {
  for (int i = 0; i < x->P; i++)
    if (x->all[i].kind == PAT_XREC_NONE) return 0;
  return 1;
}

static int start_fins(pat_comm_state *cs) {
  pat_retirement *rt = &cs->retire;
  rt->fin_sends = malloc((size_t)cs->P * sizeof *rt->fin_sends);
  rt->fin_seen = calloc((size_t)cs->P, 1);
  if (!rt->fin_sends || !rt->fin_seen) return MPI_ERR_NO_MEM;
  for (int r = 0; r < cs->P; r++) {
    rt->fin_sends[r] = MPI_REQUEST_NULL;
    if (r == cs->rank) continue;
    int rc = MPI_Isend(NULL, 0, MPI_BYTE, r, pat_tag(PAT_TAG_GEN_FIN, 0), cs->priv, &rt->fin_sends[r]);
    if (rc != MPI_SUCCESS) return rc;
  }
  rt->fin_seen[cs->rank] = 1;
  rt->fins_left = cs->P - 1;
  return MPI_SUCCESS;
}

/* Receive and discard what src sent, up to and including its fin. */
static void drain_to_fin(pat_comm_state *cs, int src) {
  pat_retirement *rt = &cs->retire;
  for (;;) {
    int flag = 0, bytes = 0;
    MPI_Status st;
    if (MPI_Iprobe(src, MPI_ANY_TAG, cs->priv, &flag, &st) != MPI_SUCCESS || !flag) return;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    char *junk = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!junk) return;
    MPI_Recv(junk, bytes, MPI_BYTE, src, st.MPI_TAG, cs->priv, MPI_STATUS_IGNORE);
    free(junk);
    if (pat_tag_generation(st.MPI_TAG) == PAT_TAG_GEN_FIN) {
      rt->fin_seen[src] = 1;
      rt->fins_left--;
      return;
    }
  }
}

int pat_retire_progress(pat_comm_state *cs) {
  pat_retirement *rt = &cs->retire;
  if (rt->stage == RETIRE_EXCHANGE) {
    int done = 1;
    if (cs->x.state == PAT_X_STARTED && (pat_exchange_test(&cs->x, &done) != MPI_SUCCESS)) done = 1;
    if (!done) return 0;
    /* Background plans can only have started after an exchange with a
     * real record from every rank: the ones consumed by calls, or this one. */
    int plans_ran = cs->x.seq > 0 || (cs->x.state == PAT_X_DONE && records_real(&cs->x));
    pat_plan_drop(cs); /* cancels its posted receives */
    if (!plans_ran) {
      rt->stage = RETIRE_DONE;
      return 1;
    }
    rt->stage = start_fins(cs) == MPI_SUCCESS ? RETIRE_FIN : RETIRE_DONE;
  }
  if (rt->stage == RETIRE_FIN) {
    for (int src = 0; src < cs->P && rt->fins_left > 0; src++)
      if (!rt->fin_seen[src]) drain_to_fin(cs, src);
    if (rt->fins_left > 0) return 0;
    int sent = 0;
    if (MPI_Testall(cs->P, rt->fin_sends, &sent, MPI_STATUSES_IGNORE) != MPI_SUCCESS) sent = 1;
    if (!sent) return 0;
    rt->stage = RETIRE_DONE;
  }
  return rt->stage == RETIRE_DONE;
}

void pat_retire_free(pat_comm_state *cs) {
  free(cs->retire.fin_sends);
  free(cs->retire.fin_seen);
  cs->retire.fin_sends = NULL;
  cs->retire.fin_seen = NULL;
}
