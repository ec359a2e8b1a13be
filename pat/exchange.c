/* The arrival exchange; see exchange.h. */
#include "pat/exchange.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pat/clock.h"

static int init_shape(pat_exchange *x) {
  x->pow2 = (x->P & (x->P - 1)) == 0;
  while ((1 << x->rounds) < x->P) x->rounds++;
  x->all = calloc((size_t)x->P, sizeof *x->all);
  x->rotated = x->pow2 ? NULL : calloc((size_t)x->P, sizeof *x->rotated);
  return x->all && (x->pow2 || x->rotated) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int pat_exchange_init(pat_exchange *x, MPI_Comm comm) {
  memset(x, 0, sizeof *x);
  x->comm = comm;
  x->tag_base = 1;
  x->req[0] = x->req[1] = MPI_REQUEST_NULL;
  int rc = MPI_Comm_size(comm, &x->P);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(comm, &x->rank);
  return rc == MPI_SUCCESS ? init_shape(x) : rc;
}

int pat_exchange_init_routed(pat_exchange *x, MPI_Comm recv_comm, int P, int rank, const int *peer,
                             const MPI_Comm *send_comm, int tag_base) {
  memset(x, 0, sizeof *x);
  x->comm = recv_comm;
  x->peer = peer;
  x->send_comm = send_comm;
  x->tag_base = tag_base;
  x->P = P;
  x->rank = rank;
  x->req[0] = x->req[1] = MPI_REQUEST_NULL;
  return init_shape(x);
}

/* One round's receive from rank `from` and send to rank `to`. */
static int post_pair(pat_exchange *x, void *in, int from, void *out, int to, int bytes, int tag, int *received_posted) {
  int src = x->peer ? x->peer[from] : from, dst = x->peer ? x->peer[to] : to;
  int rc = MPI_Irecv(in, bytes, MPI_BYTE, src, tag, x->comm, &x->req[0]);
  *received_posted = rc == MPI_SUCCESS;
  if (rc == MPI_SUCCESS) rc = MPI_Isend(out, bytes, MPI_BYTE, dst, tag, x->send_comm ? x->send_comm[to] : x->comm, &x->req[1]);
  return rc;
}

void pat_exchange_free(pat_exchange *x) {
  free(x->all);
  free(x->rotated);
  x->all = x->rotated = NULL;
}

/* Round k moves 2^k records.  A power of two: with rank ^ 2^k, the aligned
 * group of 2^k records each side holds, into its place in all[] (recursive
 * doubling).  Otherwise: the first min(2^k, P - 2^k) of the records held,
 * rotated so that rotated[i] is rank + i's, to rank - 2^k, and as many from
 * rank + 2^k after them (Bruck). */
static int post_round(pat_exchange *x) {
  int d = 1 << x->round, tag = x->tag_base + x->round, rc, received_posted = 0;
  int size = (int)sizeof(pat_xrec);
  if (x->pow2) {
    int peer = x->rank ^ d;
    pat_xrec *mine = x->all + (x->rank & ~(d - 1)), *theirs = x->all + (peer & ~(d - 1));
    rc = post_pair(x, theirs, peer, mine, peer, d * size, tag, &received_posted);
  } else {
    int count = d < x->P - d ? d : x->P - d;
    int from = (x->rank + d) % x->P, to = (x->rank - d + x->P) % x->P;
    rc = post_pair(x, x->rotated + d, from, x->rotated, to, count * size, tag, &received_posted);
  }
  if (rc != MPI_SUCCESS) {
    /* nothing of the round stays posted: the next test posts it again (as a
     * failed MPI_Test of the one request was tried again before) */
    if (received_posted) {
      PMPI_Cancel(&x->req[0]);
      PMPI_Request_free(&x->req[0]);
    }
    x->req[0] = x->req[1] = MPI_REQUEST_NULL;
  }
  return rc;
}

static void finish(pat_exchange *x) {
  if (!x->pow2)
    for (int i = 0; i < x->P; i++) x->all[(x->rank + i) % x->P] = x->rotated[i];
  x->state = PAT_X_DONE;
}

/* Completes rounds while their messages are in (all of them when
 * blocking), posting the next one each time. */
static int advance(pat_exchange *x, int blocking) {
  while (x->state == PAT_X_STARTED) {
    int done = 1, rc;
    if (blocking)
      rc = MPI_Waitall(2, x->req, MPI_STATUSES_IGNORE);
    else
      rc = MPI_Testall(2, x->req, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (!done) return MPI_SUCCESS;
    if (++x->round == x->rounds) {
      finish(x);
    } else if ((rc = post_round(x)) != MPI_SUCCESS) {
      x->round--; /* its requests are null: done at the next test, which posts this round again */
      return rc;
    }
  }
  return MPI_SUCCESS;
}

int pat_exchange_start(pat_exchange *x, const pat_xrec *mine) {
  if (x->state != PAT_X_IDLE) return MPI_ERR_INTERN;
  x->mine = *mine;
  x->started_ns = pat_clock_local_ns();
  /* records are plain bytes: the library assumes one data representation */
  if (x->pow2)
    x->all[x->rank] = *mine;
  else
    x->rotated[0] = *mine;
  x->round = 0;
  x->state = PAT_X_STARTED;
  if (x->rounds == 0) {
    finish(x);
    return MPI_SUCCESS;
  }
  int rc = post_round(x);
  if (rc != MPI_SUCCESS) x->state = PAT_X_IDLE;
  return rc;
}

int pat_exchange_test(pat_exchange *x, int *done) {
  int rc = advance(x, 0);
  *done = x->state == PAT_X_DONE;
  return rc;
}

int pat_exchange_wait(pat_exchange *x) {
  if (x->state != PAT_X_STARTED) return MPI_SUCCESS;
  if (x->wait_nap_ns <= 0) return advance(x, 1);
  /* the wait lasts until the last rank arrives (ms): spinning meanwhile
   * takes the CPU that rank may need to get here */
  struct timespec nap = {0, (long)x->wait_nap_ns};
  for (;;) {
    int rc = advance(x, 0);
    if (rc != MPI_SUCCESS || x->state == PAT_X_DONE) return rc;
    nanosleep(&nap, NULL);
  }
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
