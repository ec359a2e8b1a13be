/* Retiring a freed communicator without blocking (see retire.h). */
#include "runtime/retire.h"

#include <stdlib.h>

#include "exec/buffers.h"
#include "exec/executor.h"

enum { RETIRE_LIVE = 0, RETIRE_EXCHANGE, RETIRE_FIN, RETIRE_DONE };

void pat_retire_begin(pat_retirement *rt, const pat_comm_base *b, pat_exchange *x, int may_follow) {
  rt->stage = RETIRE_EXCHANGE;
  /* no message on any channel: nothing runs ahead of a call without the thread, and a state whose
   * blocking calls never ran has no channel of theirs (its priv is MPI_COMM_SELF: comm.c) */
  if (b->P < 2 || !b->background || b->priv == MPI_COMM_SELF) {
    rt->stage = RETIRE_DONE;
    return;
  }
  if (x->state == PAT_X_IDLE && may_follow) {
    pat_xrec none = {.prev_call = -1, .prev_alg = -1, .setting = PAT_XSETTING_MIXED, .kind = PAT_XREC_NONE,
                     .exchange_ns = -1};
    if (pat_exchange_start(x, &none) != MPI_SUCCESS) rt->stage = RETIRE_DONE;
  }
}

static int start_fins(pat_retirement *rt, const pat_comm_base *b) {
  rt->fin_sends = malloc((size_t)b->P * sizeof *rt->fin_sends);
  rt->fin_seen = calloc((size_t)b->P, 1);
  if (!rt->fin_sends || !rt->fin_seen) return MPI_ERR_NO_MEM;
  for (int r = 0; r < b->P; r++) {
    rt->fin_sends[r] = MPI_REQUEST_NULL;
    if (r == b->rank) continue;
    int rc = MPI_Isend(NULL, 0, MPI_BYTE, pat_route_rank(b->route, r), pat_tag(PAT_TAG_GEN_FIN, 0),
                       pat_route_comm(b->route, r, b->priv), &rt->fin_sends[r]);
    if (rc != MPI_SUCCESS) return rc;
  }
  rt->fin_seen[b->rank] = 1;
  rt->fins_left = b->P - 1;
  return MPI_SUCCESS;
}

/* Receive and discard what src sent, up to and including its fin. */
static void drain_to_fin(pat_retirement *rt, const pat_comm_base *b, int r) {
  int src = pat_route_rank(b->route, r); /* r's rank where its messages arrive */
  for (;;) {
    int flag = 0, bytes = 0;
    MPI_Status st;
    if (MPI_Iprobe(src, MPI_ANY_TAG, b->priv, &flag, &st) != MPI_SUCCESS || !flag) return;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    char *junk = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!junk) return;
    MPI_Recv(junk, bytes, MPI_BYTE, src, st.MPI_TAG, b->priv, MPI_STATUS_IGNORE);
    free(junk);
    if (pat_tag_generation(st.MPI_TAG) == PAT_TAG_GEN_FIN) {
      rt->fin_seen[r] = 1;
      rt->fins_left--;
      return;
    }
  }
}

int pat_retire_progress(pat_retirement *rt, const pat_comm_base *b, pat_exchange *x, pat_planner *pl) {
  if (rt->stage == RETIRE_EXCHANGE) {
    int done = 1;
    if (x->state == PAT_X_STARTED && (pat_exchange_test(x, &done) != MPI_SUCCESS)) done = 1;
    if (!done) return 0;
    pat_plan_drop(pl); /* cancels its posted receives */
    rt->stage = start_fins(rt, b) == MPI_SUCCESS ? RETIRE_FIN : RETIRE_DONE;
  }
  if (rt->stage == RETIRE_FIN) {
    for (int src = 0; src < b->P && rt->fins_left > 0; src++)
      if (!rt->fin_seen[src]) drain_to_fin(rt, b, src);
    if (rt->fins_left > 0) return 0;
    int sent = 0;
    if (MPI_Testall(b->P, rt->fin_sends, &sent, MPI_STATUSES_IGNORE) != MPI_SUCCESS) sent = 1;
    if (!sent) return 0;
    rt->stage = RETIRE_DONE;
  }
  return rt->stage == RETIRE_DONE;
}

void pat_retire_free(pat_retirement *rt) {
  free(rt->fin_sends);
  free(rt->fin_seen);
  rt->fin_sends = NULL;
  rt->fin_seen = NULL;
}
