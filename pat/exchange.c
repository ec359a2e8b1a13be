/* The arrival exchange; see exchange.h. */
#include "pat/exchange.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pat/clock.h"

int pat_exchange_init(pat_exchange *x, int P) {
  memset(x, 0, sizeof *x);
  x->P = P;
  x->req = MPI_REQUEST_NULL;
  x->all = calloc((size_t)P, sizeof *x->all);
  return x->all ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void pat_exchange_free(pat_exchange *x) {
  free(x->all);
  x->all = NULL;
}

int pat_exchange_start(pat_exchange *x, MPI_Comm ctrl, const pat_xrec *mine) {
  if (x->state != PAT_X_IDLE) return MPI_ERR_INTERN;
  x->mine = *mine;
  x->started_ns = pat_clock_local_ns();
  /* records are plain bytes: the library assumes one data representation */
  /* PMPI: under libpat_mpi, MPI_Iallgather is libpat's own (src/dropin) */
  int rc = PMPI_Iallgather(&x->mine, (int)sizeof x->mine, MPI_BYTE, x->all, (int)sizeof x->mine, MPI_BYTE, ctrl,
                           &x->req);
  if (rc == MPI_SUCCESS) x->state = PAT_X_STARTED;
  return rc;
}

int pat_exchange_test(pat_exchange *x, int *done) {
  *done = x->state == PAT_X_DONE;
  if (x->state != PAT_X_STARTED) return MPI_SUCCESS;
  int rc = MPI_Test(&x->req, done, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && *done) x->state = PAT_X_DONE;
  return rc;
}

int pat_exchange_wait(pat_exchange *x) {
  if (x->state != PAT_X_STARTED) return MPI_SUCCESS;
  int rc;
  if (x->wait_nap_ns > 0) {
    /* the wait lasts until the last rank arrives (ms): spinning meanwhile
     * takes the CPU that rank may need to get here */
    struct timespec nap = {0, (long)x->wait_nap_ns};
    for (int done = 0;;) {
      rc = MPI_Test(&x->req, &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS || done) break;
      nanosleep(&nap, NULL);
    }
  } else {
    rc = MPI_Wait(&x->req, MPI_STATUS_IGNORE);
  }
  if (rc == MPI_SUCCESS) x->state = PAT_X_DONE;
  return rc;
}

void pat_exchange_consume(pat_exchange *x) {
  x->state = PAT_X_IDLE;
  x->seq++;
}

int pat_exchange_all_kind(const pat_exchange *x, int kind) {
  for (int i = 0; i < x->P; i++)
    if (x->all[i].kind != kind) return 0;
  return 1;
}

void pat_exchange_summary(const pat_exchange *x, pat_xsummary *s) {
  s->agreed_bytes = x->all[0].block_bytes;
  s->setting = x->all[0].setting;
  s->min_arrival = s->max_arrival = x->all[0].arrival_ns;
  s->complete_ns = x->all[0].contributed_ns;
  s->actual_bytes_differ = 0;
  const pat_xrec *actual = NULL; /* the first record made on arrival */
  for (int i = 0; i < x->P; i++) {
    const pat_xrec *r = &x->all[i];
    if (r->kind == PAT_XREC_ACTUAL) {
      if (actual && (r->block_bytes != actual->block_bytes || r->shape_hash != actual->shape_hash))
        s->actual_bytes_differ = 1;
      actual = r;
    }
    if (i == 0) continue;
    if (r->contributed_ns > s->complete_ns) s->complete_ns = r->contributed_ns;
    if (r->block_bytes != s->agreed_bytes) s->agreed_bytes = 0;
    if (r->setting != s->setting) s->setting = PAT_XSETTING_MIXED;
    if (r->arrival_ns < s->min_arrival) s->min_arrival = r->arrival_ns;
    if (r->arrival_ns > s->max_arrival) s->max_arrival = r->arrival_ns;
  }
}
