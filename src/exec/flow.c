/*
 * Data-flow execution (schedule.h, send_window > 0): a rank's ops are not
 * run step by step; every receive is posted as soon as the rank starts the
 * schedule, and a send is posted as soon as every byte it carries is held
 * and fewer than `window` of the rank's sends are in flight, the first ready
 * one in (step, order added) order.  A many-step schedule of pieces and
 * relays then waits only for the data each send needs, not for the slowest
 * transfer of every step.
 *
 * What a send waits for is computed once, at init: the receives whose bytes
 * overlap its spans (each byte comes in exactly once, so their completion is
 * exactly "held"), and the rank's own block if it carries part of it (held
 * once the foreground runs, pat_exec_run).
 *
 * Pacing (pat_exec_set_pace): a send posted to MPI completes as soon as the
 * kernel takes it (eager), so the window does not bound what waits in the
 * host's socket buffers and NIC queue; a late rank's own block then went out
 * behind the forwards its background thread had queued, several times its
 * wire time late (BENCHMARKS.md, History, 2026-11-25).
 * With a link rate, forwards wait here instead, while the estimated queue
 * (every send's bytes at the rate, from when it was posted) is longer than
 * the lead; sends of the own block are never held.  A held send is due at a
 * time, not at a completion (a peer may be waiting for it), so while one is
 * held the run tests and naps until it is due instead of blocking in MPI.
 *
 * A reduction (PAT_SCHED_REDUCE) runs so too, with the order lockstep
 * gives every byte: a send carries what its bytes held before its step
 * (it waits for the receives of earlier steps that bring any of them to be
 * applied), and a receive lands in a buffer of its own (exec/reduce.h) and
 * is applied, combined or copied in, once it has arrived, every send of its
 * step or before that reads any of its bytes is complete, and every receive
 * before it that brings any of them is applied.  So every byte is combined
 * in the schedule's order, whatever order the messages come in: the same
 * bits as lockstep, a non-commutative op's rank order kept; but a message
 * is taken in as soon as its sender has it, and a send leaves as soon as
 * its bytes are final for it.  Its dependencies are found by pairing ops
 * (quadratic in the rank's ops: the all-reduces' schedules have a few per
 * rank and step).
 *
 * Errors are those of lockstep: a request that completes in error (a
 * truncated receive: ranks passed different counts) is a data error, kept,
 * and the other ops still run so that no peer is left waiting; a failure to
 * post, or a cancel, abandons every op in flight (cancelled, those MPI
 * cannot let go handed over as pending).  Completion is by MPI_Waitsome /
 * MPI_Testsome, never MPI_Waitall (Open MPI 4.1's can spin on an error).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/flow.h"
#include "exec/message.h"

enum { FLOW_IDLE = 0, FLOW_POSTED = 1, FLOW_DONE = 2, FLOW_ARRIVED = 3 /* a reduction's receive, not applied */ };

static double pace_ns_per_byte;  /* 0: no pacing */
static int64_t pace_queue_end;   /* when the bytes posted so far are estimated to have left the link */
static long long paced_sends;
#define PACE_NAP_NS 100000   /* the longest nap while a send is held: completions are tested meanwhile */
#define PACE_MIN_NAP_NS 5000

void pat_exec_set_pace(double ns_per_byte) { pace_ns_per_byte = ns_per_byte > 0 ? ns_per_byte : 0; }
long long pat_exec_paced_sends(void) { return __atomic_load_n(&paced_sends, __ATOMIC_RELAXED); }

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Is send i paced: does it leave the node?  A message to a rank of the same
 * node goes through shared memory, not the link: counted at the link's rate
 * and held, the hand-outs of a two-level schedule (HRING) took 1.6 times as
 * long (4 hosts x 2 ranks). */
static int paced(const pat_exec *e, size_t i) {
  return pace_ns_per_byte > 0 && !e->unpaced && pat_buffers_off_node(e->buf, e->ops[i].peer);
}

/* Should ready send i wait for the link?  Counts the times it says so.  A
 * reduction's every send carries the rank's own contribution, so none is
 * spared as an all-gather's own block is: all wait alike, and the host's
 * queue stays short for the pieces that others wait for (held, RELAY's and
 * HRELAY's all-reduces were 1-8% faster on the emulated links). */
static int pace_holds(const pat_exec *e, size_t i) {
  if (!paced(e, i) || (e->needs_own[i] && !e->buf->reduce)) return 0;
  if (__atomic_load_n(&pace_queue_end, __ATOMIC_RELAXED) - mono_ns() <= PAT_PACE_LEAD_NS) return 0;
  __atomic_add_fetch(&paced_sends, 1, __ATOMIC_RELAXED);
  return 1;
}

/* A send of m is posted: the link's queue grows by its bytes' time. */
static void pace_add(const pat_msg *m) {
  int type_size = 0;
  MPI_Type_size(m->type, &type_size);
  int64_t add = (int64_t)((double)type_size * m->count * pace_ns_per_byte), now = mono_ns();
  int64_t end = __atomic_load_n(&pace_queue_end, __ATOMIC_RELAXED), next;
  do
    next = (end > now ? end : now) + add;
  while (!__atomic_compare_exchange_n(&pace_queue_end, &end, next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static int is_recv(const pat_op *op) { return op->kind == PAT_OP_RECV || op->kind == PAT_OP_SIGNAL_RECV; }

/* Every edge "send s needs receive r" (r brings a byte s carries), once per
 * pair (stamp[r] remembers the last send that took r), found through the
 * blocks s carries: bstart/blist list per block the receives that bring part
 * of it. */
typedef void dep_visit(pat_exec *e, size_t send, size_t recv, void *arg);

static void for_each_dependency(pat_exec *e, const size_t *bstart, const size_t *blist, size_t *stamp,
                                dep_visit *visit, void *arg) {
  const int P = e->P;
  for (size_t j = 0; j <= e->nops; j++) stamp[j] = (size_t)-1;
  for (size_t s = 0; s < e->nops; s++) {
    const pat_op *op = &e->ops[s];
    if (is_recv(op)) continue;
    for (int k = 0; k < op->nspans; k++)
      for (int i = 0; i < op->span[k].count; i++) {
        int blk = (op->span[k].first + i) % P;
        for (size_t q = bstart[blk]; q < bstart[blk + 1]; q++) {
          size_t r = blist[q];
          if (stamp[r] == s) continue;
          int hit = 0;
          for (int m = 0; m < e->ops[r].nspans && !hit; m++)
            hit = pat_spans_overlap(P, &op->span[k], &e->ops[r].span[m]);
          if (!hit) continue;
          stamp[r] = s;
          visit(e, s, r, arg);
        }
      }
  }
}

static void count_dependency(pat_exec *e, size_t send, size_t recv, void *arg) {
  (void)arg;
  e->dep_start[recv + 1]++;
  e->deps_left[send]++;
}

static void record_dependency(pat_exec *e, size_t send, size_t recv, void *pos) {
  e->dep_list[((size_t *)pos)[recv]++] = send;
}

/* Per block, the receives that bring part of it (CSR): send dependencies
 * are found through the blocks a send carries, not by pairing every send
 * with every receive. */
static int build_deps(pat_exec *e) {
  const int P = e->P;
  size_t n = e->nops;
  size_t *bstart = calloc((size_t)P + 1, sizeof *bstart), *blist = NULL, *stamp = NULL, *fill = NULL, *pos = NULL;
  size_t nby = 0;
  int rc = MPI_ERR_NO_MEM;
  if (!bstart) goto out;
  for (size_t j = 0; j < n; j++)
    if (is_recv(&e->ops[j]))
      for (int k = 0; k < e->ops[j].nspans; k++)
        for (int i = 0; i < e->ops[j].span[k].count; i++) bstart[(e->ops[j].span[k].first + i) % P + 1]++;
  for (int b = 0; b < P; b++) bstart[b + 1] += bstart[b];
  nby = bstart[P];
  blist = malloc((nby + 1) * sizeof *blist);
  fill = malloc(((size_t)P + 1) * sizeof *fill);
  stamp = malloc((n + 1) * sizeof *stamp);
  if (!blist || !fill || !stamp) goto out;
  memcpy(fill, bstart, ((size_t)P + 1) * sizeof *fill);
  for (size_t j = 0; j < n; j++)
    if (is_recv(&e->ops[j]))
      for (int k = 0; k < e->ops[j].nspans; k++)
        for (int i = 0; i < e->ops[j].span[k].count; i++) blist[fill[(e->ops[j].span[k].first + i) % P]++] = j;
  /* count each receive's dependants, then list them (in op order) */
  e->dep_start = calloc(n + 1, sizeof *e->dep_start);
  if (!e->dep_start) goto out;
  for_each_dependency(e, bstart, blist, stamp, count_dependency, NULL);
  for (size_t r = 0; r < n; r++) e->dep_start[r + 1] += e->dep_start[r];
  e->dep_list = malloc((e->dep_start[n] + 1) * sizeof *e->dep_list);
  pos = malloc((n + 1) * sizeof *pos);
  if (!e->dep_list || !pos) goto out;
  memcpy(pos, e->dep_start, (n + 1) * sizeof *pos);
  for_each_dependency(e, bstart, blist, stamp, record_dependency, pos);
  rc = MPI_SUCCESS;
out:
  free(bstart);
  free(blist);
  free(fill);
  free(stamp);
  free(pos);
  return rc;
}

/* A reduction's dependencies (CSR of each op's dependants) and landings. */
static int build_reduce_deps(pat_exec *e) {
  size_t n = e->nops;
  e->dep_start = calloc(n + 1, sizeof *e->dep_start);
  e->apply_left = calloc(n, sizeof *e->apply_left);
  e->applying = malloc(n * sizeof *e->applying);
  e->landing = calloc(n, sizeof *e->landing);
  if (!e->dep_start || !e->apply_left || !e->applying || !e->landing) return MPI_ERR_NO_MEM;
  for (size_t y = 0; y < n; y++) {
    if (is_recv(&e->ops[y])) e->apply_left[y] = 1; /* its arrival */
    for (size_t x = 0; x < n; x++)
      if (x != y && pat_reduce_waits(e->P, e->ops, y, x)) {
        e->dep_start[x + 1]++;
        if (is_recv(&e->ops[y]))
          e->apply_left[y]++;
        else
          e->deps_left[y]++;
      }
  }
  for (size_t x = 0; x < n; x++) e->dep_start[x + 1] += e->dep_start[x];
  e->dep_list = malloc((e->dep_start[n] + 1) * sizeof *e->dep_list);
  if (!e->dep_list) return MPI_ERR_NO_MEM;
  size_t *pos = e->applying; /* free until the run starts */
  memcpy(pos, e->dep_start, n * sizeof *pos);
  for (size_t y = 0; y < n; y++)
    for (size_t x = 0; x < n; x++)
      if (x != y && pat_reduce_waits(e->P, e->ops, y, x)) e->dep_list[pos[x]++] = y;
  for (size_t i = 0; i < n; i++)
    if (is_recv(&e->ops[i])) {
      int rc = pat_reduce_landing_make(e->buf, &e->ops[i], &e->landing[i]);
      if (rc != MPI_SUCCESS) return rc;
    }
  return MPI_SUCCESS;
}

int pat_exec_flow_init(pat_exec *e, int window) {
  size_t n = e->nops;
  e->window = window;
  if (n == 0) return MPI_SUCCESS;
  e->reqs = malloc(n * sizeof *e->reqs);
  e->statuses = malloc(n * sizeof *e->statuses);
  e->want_count = malloc(n * sizeof *e->want_count);
  e->want_type = malloc(n * sizeof *e->want_type);
  e->types = malloc(n * sizeof *e->types);
  e->state = calloc(n, 1);
  e->needs_own = calloc(n, 1);
  e->deps_left = calloc(n, sizeof *e->deps_left);
  e->done_idx = malloc(n * sizeof *e->done_idx);
  if (!e->reqs || !e->statuses || !e->want_count || !e->want_type || !e->types || !e->state || !e->needs_own || !e->deps_left ||
      !e->done_idx)
    return MPI_ERR_NO_MEM; /* the caller frees what was allocated (pat_exec_init) */
  int rc = e->buf->reduce ? build_reduce_deps(e) : build_deps(e);
  if (rc != MPI_SUCCESS) return rc;
  for (size_t i = 0; i < n; i++) {
    e->reqs[i] = MPI_REQUEST_NULL;
    e->types[i] = MPI_DATATYPE_NULL;
    if (!is_recv(&e->ops[i]))
      e->needs_own[i] = (unsigned char)(e->buf->reduce ? e->ops[i].nspans > 0 /* every byte holds the own */
                                                       : pat_spans_touch_block(e->P, e->ops[i].nspans, e->ops[i].span,
                                                                               e->self));
  }
  return MPI_SUCCESS;
}

void pat_exec_flow_free(pat_exec *e) {
  free(e->state);
  free(e->needs_own);
  free(e->deps_left);
  free(e->dep_start);
  free(e->dep_list);
  free(e->done_idx);
  if (e->landing && !e->keep_landings) /* else MPI may still write into them: left allocated */
    for (size_t i = 0; i < e->nops; i++) free(e->landing[i].mem);
  free(e->landing);
  free(e->apply_left);
  free(e->applying);
  e->landing = NULL;
  e->apply_left = NULL;
  e->applying = NULL;
  e->state = e->needs_own = NULL;
  e->deps_left = e->done_idx = NULL;
  e->dep_start = e->dep_list = NULL;
}

/* Post op i; its temporary datatype, if any, is kept until it completes
 * (the receive's count is checked in it). */
static int post(pat_exec *e, size_t i) {
  const pat_op *op = &e->ops[i];
  pat_msg m;
  int recv = is_recv(op), tag = pat_tag(e->tag_gen, op->step);
  int rc = recv && e->buf->reduce ? pat_reduce_describe_landing(e->buf, op, &e->landing[i], &m)
                                  : pat_exec_describe(e, op, &m);
  if (rc != MPI_SUCCESS) return rc;
  e->want_count[i] = recv ? pat_exec_expected_count(e, &m) : -1;
  e->want_type[i] = m.type;
  if (pat_exec_tracing())
    pat_exec_trace("comm %p %s peer %d tag %d gen %d step %d count %d (data flow)", (void *)e->buf->comm,
                   recv ? "RECV" : "SEND", op->peer, tag, e->tag_gen, op->step, m.count);
  pat_exec_stamp(e, i, 0);
  int peer = pat_buffers_peer(e->buf, op->peer);
  if (recv)
    rc = MPI_Irecv(m.addr, m.count, m.type, peer, tag, e->buf->comm, &e->reqs[i]);
  else {
    if (paced(e, i)) pace_add(&m);
    rc = MPI_Isend(m.addr, m.count, m.type, peer, tag, pat_buffers_send_comm(e->buf, op->peer), &e->reqs[i]);
  }
  e->types[i] = m.tmp;
  if (rc != MPI_SUCCESS) return rc;
  e->state[i] = FLOW_POSTED;
  if (!recv) e->sends_inflight++;
  return MPI_SUCCESS;
}

static int ready(const pat_exec *e, size_t i) {
  return e->state[i] == FLOW_IDLE && !is_recv(&e->ops[i]) && e->deps_left[i] == 0 &&
         (!e->needs_own[i] || e->own_held);
}

/* When a ready send held by pacing may go (ns from now, at least
 * PACE_MIN_NAP_NS, at most PACE_NAP_NS), or 0 if none is held. */
static int64_t pace_wait_ns(const pat_exec *e) {
  if (pace_ns_per_byte == 0 || e->sends_inflight >= e->window) return 0;
  size_t i = e->first_unposted_send;
  while (i < e->nops && !ready(e, i)) i++;
  if (i == e->nops) return 0;
  int64_t due = __atomic_load_n(&pace_queue_end, __ATOMIC_RELAXED) - PAT_PACE_LEAD_NS - mono_ns();
  return due < PACE_MIN_NAP_NS ? PACE_MIN_NAP_NS : due > PACE_NAP_NS ? PACE_NAP_NS : due;
}

/* Every receive once, then ready sends while the window has room and the
 * link's queue is short (pacing). */
static int post_ready(pat_exec *e) {
  if (!e->recvs_posted) {
    for (size_t i = 0; i < e->nops; i++)
      if (is_recv(&e->ops[i])) {
        int rc = post(e, i);
        if (rc != MPI_SUCCESS) return rc;
      }
    e->recvs_posted = 1;
  }
  while (e->first_unposted_send < e->nops &&
         (is_recv(&e->ops[e->first_unposted_send]) || e->state[e->first_unposted_send] != FLOW_IDLE))
    e->first_unposted_send++;
  for (size_t i = e->first_unposted_send; i < e->nops && e->sends_inflight < e->window; i++)
    if (ready(e, i) && !pace_holds(e, i)) {
      int rc = post(e, i);
      if (rc != MPI_SUCCESS) return rc;
    }
  return MPI_SUCCESS;
}

/* A reduction's op i is done (a send complete, a receive applied): its
 * dependants move, and receives whose turn comes are applied, in turn. */
static void reduce_done(pat_exec *e, size_t i) {
  size_t top = 0;
  e->applying[top++] = i;
  while (top > 0) {
    size_t x = e->applying[--top];
    if (is_recv(&e->ops[x])) { /* its turn: apply it */
      int rc = pat_reduce_apply_landing(e->buf, &e->ops[x], &e->landing[x]);
      if (rc != MPI_SUCCESS && e->data_error == MPI_SUCCESS) e->data_error = rc;
      e->state[x] = FLOW_DONE;
      e->ndone++;
      e->steps_done++;
    }
    for (size_t q = e->dep_start[x]; q < e->dep_start[x + 1]; q++) {
      size_t y = e->dep_list[q];
      if (!is_recv(&e->ops[y]))
        e->deps_left[y]--;
      else if (--e->apply_left[y] == 0)
        e->applying[top++] = y; /* each receive once: its count reaches 0 once */
    }
  }
}

/* A reduction's op i completed: a send is done; a receive has arrived, and
 * is applied if its turn has come. */
static void reduce_complete(pat_exec *e, size_t i) {
  if (is_recv(&e->ops[i])) {
    e->state[i] = FLOW_ARRIVED;
    if (--e->apply_left[i] == 0) reduce_done(e, i);
    return;
  }
  e->state[i] = FLOW_DONE;
  e->ndone++;
  e->steps_done++;
  e->sends_inflight--;
  reduce_done(e, i);
}

/* Op i completed with status st (its error in st->MPI_ERROR if err). */
static void complete(pat_exec *e, size_t i, const MPI_Status *st, int err) {
  pat_exec_stamp(e, i, 1);
  if (err == MPI_SUCCESS && e->want_count[i] >= 0) {
    int got = 0;
    MPI_Get_count(st, e->want_type[i], &got);
    if (got != e->want_count[i]) err = MPI_ERR_TRUNCATE;
  }
  if (err != MPI_SUCCESS && e->data_error == MPI_SUCCESS) e->data_error = err;
  if (e->types[i] != MPI_DATATYPE_NULL) MPI_Type_free(&e->types[i]);
  if (e->buf->reduce) {
    reduce_complete(e, i);
    return;
  }
  e->state[i] = FLOW_DONE;
  e->ndone++;
  e->steps_done++;
  if (is_recv(&e->ops[i])) {
    for (size_t q = e->dep_start[i]; q < e->dep_start[i + 1]; q++) e->deps_left[e->dep_list[q]]--;
  } else {
    e->sends_inflight--;
  }
}

/* Hand the outcome of MPI_Waitsome or MPI_Testsome to the ops.  An error
 * of a completed request belongs to the data (see the top); any other
 * failure abandons the call's ops. */
static int take_completed(pat_exec *e, int rc, int outcount) {
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    pat_exec_flow_abandon(e, rc);
    return rc;
  }
  if (outcount == MPI_UNDEFINED) return MPI_SUCCESS;
  for (int k = 0; k < outcount; k++) {
    int err = rc == MPI_ERR_IN_STATUS ? e->statuses[k].MPI_ERROR : MPI_SUCCESS;
    complete(e, (size_t)e->done_idx[k], &e->statuses[k], err);
  }
  return MPI_SUCCESS;
}

void pat_exec_flow_abandon(pat_exec *e, int error) {
  if (e->window <= 0) return;
  if (e->error == MPI_SUCCESS) e->error = error;
  if (e->npending > 0 || !e->state) return; /* abandoned before */
  int n = 0;
  for (size_t i = 0; i < e->nops; i++)
    if (e->state[i] == FLOW_POSTED && e->reqs[i] != MPI_REQUEST_NULL) {
      PMPI_Cancel(&e->reqs[i]);
      e->reqs[n++] = e->reqs[i];
      if ((size_t)(n - 1) != i) e->reqs[i] = MPI_REQUEST_NULL;
    }
  for (size_t i = (size_t)n; i < e->nops; i++) e->reqs[i] = MPI_REQUEST_NULL;
  if (pat_exec_tracing()) pat_exec_trace("comm %p CANCEL gen %d (data flow, %d in flight)", (void *)e->buf->comm, e->tag_gen, n);
  e->npending = pat_exec_keep_active(e->reqs, n);
  if (e->npending > 0 && e->landing) e->keep_landings = 1;
  for (size_t i = 0; i < e->nops; i++) {
    if (e->state[i] == FLOW_POSTED || e->state[i] == FLOW_ARRIVED) e->state[i] = FLOW_DONE;
    if (e->types[i] != MPI_DATATYPE_NULL) MPI_Type_free(&e->types[i]); /* MPI keeps those pending messages use */
  }
}

int pat_exec_flow_progress(pat_exec *e, int *busy) {
  *busy = 0;
  if (e->error != MPI_SUCCESS) return e->error;
  for (;;) {
    int rc = post_ready(e);
    if (rc != MPI_SUCCESS) {
      pat_exec_flow_abandon(e, rc);
      return rc;
    }
    if (e->ndone == e->nops) return MPI_SUCCESS;
    int outcount = 0;
    rc = MPI_Testsome((int)e->nops, e->reqs, &outcount, e->done_idx, e->statuses);
    rc = take_completed(e, rc, outcount);
    if (rc != MPI_SUCCESS) return rc;
    if (outcount == 0 || outcount == MPI_UNDEFINED) break;
  }
  *busy = e->ndone < e->nops;
  return MPI_SUCCESS;
}

int pat_exec_flow_run(pat_exec *e) {
  if (e->error != MPI_SUCCESS) return e->error;
  while (e->ndone < e->nops) {
    int rc = post_ready(e);
    if (rc != MPI_SUCCESS) {
      pat_exec_flow_abandon(e, rc);
      return rc;
    }
    int outcount = 0;
    /* a send held by pacing is due at a time, not at a completion: no blocking wait then (the
     * peers may be waiting for that very send) */
    int64_t held_ns = pace_wait_ns(e);
    if (e->nap_ns > 0 || held_ns > 0) {
      rc = MPI_Testsome((int)e->nops, e->reqs, &outcount, e->done_idx, e->statuses);
      if (rc == MPI_SUCCESS && (outcount == 0 || (held_ns > 0 && outcount == MPI_UNDEFINED))) {
        pat_exec_nap(held_ns > 0 && (e->nap_ns <= 0 || held_ns < e->nap_ns) ? held_ns : e->nap_ns);
        continue;
      }
    } else {
      rc = MPI_Waitsome((int)e->nops, e->reqs, &outcount, e->done_idx, e->statuses);
    }
    if (rc == MPI_SUCCESS && outcount == MPI_UNDEFINED) { /* nothing in flight, yet ops remain: a bad schedule */
      pat_exec_flow_abandon(e, MPI_ERR_INTERN);
      return MPI_ERR_INTERN;
    }
    rc = take_completed(e, rc, outcount);
    if (rc != MPI_SUCCESS) return rc;
  }
  return e->data_error;
}

/* Is op i done (in either way of running)? */
static int op_done(const pat_exec *e, size_t i) {
  if (e->window > 0) return e->state[i] == FLOW_DONE;
  return i < e->next && !(e->inflight && e->ops[i].step == e->inflight_step);
}

int pat_exec_blocks_received(const pat_exec *e) {
  unsigned char *missing = calloc((size_t)e->P, 1);
  if (!missing) return 0;
  for (size_t i = 0; i < e->nops; i++) {
    const pat_op *op = &e->ops[i];
    if (op->kind != PAT_OP_RECV || op_done(e, i)) continue;
    for (int k = 0; k < op->nspans; k++)
      for (int j = 0; j < op->span[k].count; j++) missing[(op->span[k].first + j) % e->P] = 1;
  }
  int held = 0;
  for (int b = 0; b < e->P; b++) held += b != e->self && !missing[b];
  free(missing);
  return held;
}
