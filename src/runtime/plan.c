/* Plans (see plan.h). */
#include "runtime/plan.h"

#include <stdlib.h>
#include <string.h>

#include "model/build_args.h"
#include "pat/clock.h"
#include "pat/shape.h"
#include "runtime/errors.h"
#include "runtime/netparams.h"
#include "runtime/process.h"
#include "runtime/timeline.h"
#include "runtime/wait_nap.h"

int pat_planner_init(pat_planner *pl, int P) {
  memset(pl, 0, sizeof *pl);
  pl->last_alg = -1;
  pl->plan.arrival = malloc((size_t)P * sizeof *pl->plan.arrival);
  pl->plan.shape = malloc((size_t)P * sizeof *pl->plan.shape);
  return pl->plan.arrival && pl->plan.shape ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void drop(pat_plan *p) {
  if (p->has_exec) {
    if (p->run.have_exec) pat_exec_cancel(&p->run.exec);
    pat_run_release(&p->run); /* waits for what is still pending: nothing uses the stage after it */
    pat_kept_stage_done(&p->stage);
    p->has_exec = 0;
  }
  p->decided = 0;
}

pat_kept_stage *pat_planner_kept(pat_planner *pl) { return pl->plan.has_exec ? &pl->balanced_stage : &pl->plan.stage; }

void *pat_planner_stage(pat_planner *pl, size_t need) { return pat_kept_stage_get(pat_planner_kept(pl), need); }

void pat_planner_stage_done(pat_planner *pl) {
  pat_kept_stage_done(&pl->plan.stage);
  pat_kept_stage_done(&pl->balanced_stage);
}

void pat_planner_free(pat_planner *pl) {
  drop(&pl->plan);
  pat_kept_stage_free(&pl->plan.stage);
  pat_kept_stage_free(&pl->balanced_stage);
  free(pl->plan.arrival);
  free(pl->plan.shape);
  for (int a = 0; a < PAT_ALG_COUNT; a++)
    if (pl->classic[a]) {
      pat_sched_free(pl->classic[a]);
      free(pl->classic[a]);
    }
  memset(pl, 0, sizeof *pl);
}

void pat_plan_drop(pat_planner *pl) {
  if (pl->plan.decided) pl->last_digest = pl->plan.digest;
  drop(&pl->plan);
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t pat_plan_digest(int P, const pat_plan *p) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < P; i++) h = mix(h, (uint64_t)p->arrival[i]);
  h = mix(h, (uint64_t)p->key);
  h = mix(h, (uint64_t)p->bytes);
  h = mix(h, p->shape_hash);
  h = mix(h, (uint64_t)(int64_t)p->setting);
  h = mix(h, (uint64_t)p->args.tau);
  h = mix(h, (uint64_t)p->args.alpha);
  h = mix(h, (uint64_t)p->choice.alg);
  h = mix(h, (uint64_t)p->choice.root);
  return h;
}

/* Every rank's previous call at the site, from its record, where the engine
 * learns from them. */
static void records_to_engine(pat_engine *engine, const pat_exchange *x, int P) {
  pat_last_call *prev = pat_engine_records(engine);
  for (int i = 0; i < P; i++) {
    const pat_xrec *r = &x->all[i];
    prev[i] = (pat_last_call){.call = r->prev_call,
                              .arrival_ns = r->prev_arrival_ns,
                              .elapsed_ns = r->prev_elapsed_ns,
                              .predicted_ns = r->prev_predicted_ns,
                              .alg = r->prev_alg,
                              .flags = r->prev_flags,
                              .exchange_ns = r->exchange_ns};
  }
}

void pat_plan_learn(const pat_comm_base *b, pat_engine *engine, const pat_exchange *x, const pat_sites *sites,
                    int site) {
  records_to_engine(engine, x, b->P);
  pat_engine_learn(engine, site, site >= 0 ? sites->site[site].calls : 0);
  pat_engine_settle(engine); /* as the choice after it would: the same state whichever thread learned */
}

void pat_plan_decide(pat_planner *pl, const pat_comm_base *b, pat_engine *engine, const pat_exchange *x,
                     const pat_sites *sites, const pat_plan_call *call) {
  pat_plan *p = &pl->plan;
  /* what the site's previous call cost, before the choice that it may change */
  if (engine) {
    records_to_engine(engine, x, b->P);
    pat_engine_learn(engine, call->site, call->site >= 0 ? sites->site[call->site].calls : 0);
  }
  for (int i = 0; i < b->P; i++) p->arrival[i] = x->all[i].arrival_ns;
  p->setting = call->setting;
  p->key = call->key;
  p->bytes = call->bytes;
  p->has_shape = call->shape != NULL;
  p->shape_hash = 0;
  if (call->shape) {
    memcpy(p->shape, call->shape, (size_t)b->P * sizeof *p->shape);
    p->shape_hash = pat_shape_hash(b->P, p->shape);
  }
  p->site = call->site;
  p->replanned = call->replanned;
  pat_engine_call ec = {.site = call->site,
                        .site_calls = call->site >= 0 ? sites->site[call->site].calls : 0,
                        .setting = call->setting,
                        .bytes = call->bytes,
                        .shape = call->shape,
                        .arrival = p->arrival,
                        .bg_start_ns = call->bg_start_ns,
                        .records = pat_exchange_all_kind(x, PAT_XREC_ACTUAL)    ? PAT_RECORDS_ACTUAL
                                   : pat_exchange_all_kind(x, PAT_XREC_HISTORY) ? PAT_RECORDS_HISTORY
                                                                                : PAT_RECORDS_MIXED};
  if (engine) {
    pat_engine_choose(engine, &ec, &p->choice);
  } else { /* a fixed setting: its algorithm, BSLB's root 0 as in the paper, nothing predicted */
    memset(&p->choice, 0, sizeof p->choice);
    for (int a = 0; a < PAT_ALG_COUNT; a++) p->choice.ebar_ns[a] = INT64_MAX;
    p->choice.static_ns = INT64_MAX;
    p->choice.alg = p->choice.static_alg = call->setting;
    p->choice.history = ec.records == PAT_RECORDS_HISTORY;
  }
  memset(&p->args, 0, sizeof p->args);
  if (pat_algorithms[p->choice.alg].build)
    p->args = pat_call_build_args(pat_netparams(), p->choice.alg, b->P, b->node, b->rank, p->arrival, (double)call->bytes,
                                  p->choice.root);
  p->args.nodes = b->nodes;
  p->args.block_sizes = p->has_shape ? p->shape : NULL;
  p->decided = 1;
  p->digest = pat_plan_digest(b->P, p);
}

int pat_plan_prepare_exec(pat_planner *pl, const pat_comm_base *b, int64_t exchange_seq) {
  pat_plan *p = &pl->plan;
  if (p->has_exec) return MPI_SUCCESS;
  /* Plans of the last PAT_TAG_PLAN_GENS/2 exchanges, replanned or not,
   * never share tags, so a stale background receive can never catch another
   * plan's message, and a stale message (a dropped plan's background signal)
   * can never satisfy this plan's receive; leftovers are drained here. */
  int plan_gen = pat_tag_plan_gen(exchange_seq);
  pat_run_where w = pat_run_where_of(b, plan_gen + (p->replanned ? 1 : 0), p->choice.alg);
  pat_run *r = &p->run;
  memset(r, 0, sizeof *r);
  int rc = pat_run_build_from(r, p->choice.alg, &p->args);
  if (rc == MPI_SUCCESS) rc = pat_run_packed(r, &w, p->bytes, p->has_shape ? p->shape : NULL, &p->stage, NULL);
  if (rc == MPI_SUCCESS)
    rc = pat_run_exec(r, &w, 0,
                      pat_wait_nap_ns(pat_wait_smallest_blocks(r->s, b->rank), p->choice.alg, (double)p->bytes,
                                      pat_netparams()));
  if (rc != MPI_SUCCESS) {
    pat_run_release(r);
    return pat_fail(rc, "cannot prepare the %s schedule", pat_algorithms[p->choice.alg].name);
  }
  pat_drain_stale(b->priv, b->P, b->route ? b->route->rank : NULL, plan_gen);
  p->has_exec = 1;
  return MPI_SUCCESS;
}

int pat_plan_progress(pat_planner *pl, int *busy) {
  pat_exec *e = &pl->plan.run.exec;
  /* data flow: receives go ahead, and sends of what has come in (relays);
   * sends of the own block wait for the call */
  if (e->window > 0) return pat_exec_flow_progress(e, busy);
  for (;;) {
    if (e->inflight) {
      int done, rc = pat_exec_test(e, &done);
      if (rc != MPI_SUCCESS) return rc;
      if (!done) {
        *busy = 1;
        return MPI_SUCCESS;
      }
    }
    /* the background stops where this rank's own data is needed */
    if (pat_exec_done(e) || pat_exec_next_needs_own(e)) return MPI_SUCCESS;
    int rc = pat_exec_post(e);
    if (rc != MPI_SUCCESS) return rc;
  }
}

int pat_plan_classic(pat_planner *pl, const pat_comm_base *b, int alg, const pat_sched **out) {
  pat_sched **slot = &pl->classic[alg];
  if (!*slot) {
    pat_run made = {0};
    pat_run_where w = pat_run_where_of(b, PAT_TAG_GEN_CLASSIC, alg);
    int rc = pat_run_build_balanced(&made, &w, 0, NULL);
    if (rc != MPI_SUCCESS) return rc;
    if (!(*slot = malloc(sizeof **slot))) {
      pat_run_release(&made);
      return pat_fail(MPI_ERR_NO_MEM, "out of memory");
    }
    **slot = made.sched; /* the cache keeps it */
    pl->classic_smallest[alg] = pat_wait_smallest_blocks(*slot, b->rank);
  }
  *out = *slot;
  return MPI_SUCCESS;
}

/* PAT_TIMELINE's record of a call that ran, when it is on, with its exit
 * now (predicted: the plan's arrivals, NULL without a plan; handover: when
 * the foreground took over). */
static void record(const pat_comm_base *b, const pat_run *r, const int64_t *predicted, const pat_call_args *c,
                   int64_t handover) {
  if (pat_timeline_on())
    pat_timeline_write(b->P, b->rank, r->alg, c->bytes, r->s, &r->exec, predicted, c->arrival, handover,
                       pat_clock_global_ns());
}

/* A run made for the call alone: its own block in place, the schedule run
 * to the end, recorded, released. */
static int run_alone(const pat_comm_base *b, pat_run *r, const pat_run_where *w, int rc, int64_t nap_ns,
                     const pat_call_args *c) {
  int64_t handover = pat_timeline_on() ? pat_clock_global_ns() : 0; /* no clock read unless recording */
  if (rc == MPI_SUCCESS) rc = pat_run_put_own(r, c);
  if (rc == MPI_SUCCESS && r->s->nops > 0) rc = pat_run_exec(r, w, 1, nap_ns);
  if (rc == MPI_SUCCESS) rc = pat_run_finish(r);
  if (rc == MPI_SUCCESS && r->have_exec) record(b, r, NULL, c, handover);
  pat_run_release(r); /* waits for anything still pending: nothing uses the buffers after it */
  return rc;
}

int pat_plan_run_classic(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c) {
  const pat_sched *s;
  int rc = pat_plan_classic(pl, b, alg, &s);
  if (rc != MPI_SUCCESS) return rc;
  pat_run r = {0};
  pat_run_where w = pat_run_where_of(b, PAT_TAG_GEN_CLASSIC, alg);
  pat_run_borrow(&r, alg, s);
  rc = pat_run_typed(&r, &w, c);
  return run_alone(b, &r, &w, rc, pat_wait_nap_ns(pl->classic_smallest[alg], alg, (double)c->bytes, pat_netparams()),
                   c);
}

int pat_plan_run_balanced(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c) {
  pat_run r = {0};
  pat_run_where w = pat_run_where_of(b, PAT_TAG_GEN_CLASSIC, alg);
  int rc = pat_run_build_balanced(&r, &w, (double)c->bytes, c->shape);
  if (rc == MPI_SUCCESS) rc = pat_run_packed(&r, &w, c->bytes, c->shape, pat_planner_kept(pl), c);
  int64_t nap = rc == MPI_SUCCESS ? pat_wait_nap_ns(pat_wait_smallest_blocks(r.s, b->rank), alg, (double)c->bytes,
                                                   pat_netparams())
                                  : 0;
  rc = run_alone(b, &r, &w, rc, nap, c);
  pat_planner_stage_done(pl);
  return rc;
}

int pat_plan_run_planned(pat_planner *pl, const pat_comm_base *b, int64_t exchange_seq, const pat_call_args *c,
                         long long *bg_steps, long long *fg_steps) {
  int rc = pat_plan_prepare_exec(pl, b, exchange_seq);
  if (rc != MPI_SUCCESS) return rc;
  pat_plan *plan = &pl->plan;
  pat_run *r = &plan->run;
  /* unequal blocks: the plan's offsets (prepare_exec) are of these counts (call.c's plan_for) */
  rc = pat_buffers_set_user(&r->buf, c->recvbuf, c->recvcount, c->recvtype, c->counts, c->displs);
  *bg_steps = r->exec.steps_done;
  int64_t handover = pat_timeline_on() ? pat_clock_global_ns() : 0; /* no clock read unless recording */
  if (rc == MPI_SUCCESS) rc = pat_run_put_own(r, c);
  if (rc == MPI_SUCCESS) rc = pat_run_finish(r);
  if (rc == MPI_SUCCESS) record(b, r, plan->arrival, c, handover);
  *fg_steps = r->exec.steps_done - *bg_steps;
  return rc;
}
