/*
 * PAT_Allgather: the prologue it shares with PAT_Allgatherv
 * (pat_gather_enter), argument checking; the arrival exchange and the plan
 * when the setting needs them; then the chosen algorithm's schedule, run by
 * run.h in its variant (or the MPI library's own all-gather for NATIVE);
 * finally the call site's history, which predicts the next arrival.  From
 * the state on it is call.h's path, which every all-gatherv that does not
 * pass through takes too (callv.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pat.h"
#include "pat/clock.h"
#include "pat/shape.h"
#include "runtime/args.h"
#include "runtime/arrivals.h"
#include "runtime/call.h"
#include "runtime/comm.h"
#include "runtime/decisions.h"
#include "runtime/errors.h"
#include "runtime/report.h"
#include "runtime/process.h"
#include "runtime/stats.h"
#include "runtime/through.h"

/* Zero bytes on a classic schedule without an exchange: nothing tells this
 * rank that the others passed zero too, so the schedule still runs, with
 * one-byte blocks of scratch (the user's buffers are not touched).  A rank
 * that passed 0 while others pass more then receives their larger blocks
 * and returns MPI_ERR_TRUNCATE, instead of returning at once and leaving
 * them waiting (issue 25, defect 4).  The cost: a correct all-zero call
 * takes the schedule's rounds of one-byte messages. */
static int run_zero(pat_comm_state *cs, int alg, const pat_call_args *c) {
  char *scratch = calloc((size_t)cs->base.P + 1, 1);
  if (!scratch) return pat_fail(MPI_ERR_NO_MEM, "%s: out of memory", c->name);
  pat_call_args z = {.sendbuf = scratch + cs->base.P,
                       .sendcount = 1,
                       .sendtype = MPI_BYTE,
                       .recvbuf = scratch,
                       .recvcount = 1,
                       .recvtype = MPI_BYTE,
                       .comm = c->comm,
                       .bytes = 1,
                       .arrival = c->arrival,
                       .name = c->name,
                       .key = 1};
  int rc = pat_plan_run_classic(&cs->planner, &cs->base, alg, &z);
  free(scratch);
  return rc;
}

/* Inlined into the static path, where it is the usual choice on one node. */
static inline int run_native(const pat_call_args *c) {
  int rc = c->displs ? PMPI_Allgatherv(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->counts, c->displs,
                                       c->recvtype, c->comm)
                     : PMPI_Allgather(c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype,
                                      c->comm);
  return pat_mpi_own_result(rc, c->name);
}

static int run_alg(pat_comm_state *cs, int alg, const pat_call_args *c, long long *bg_steps, long long *fg_steps) {
  *bg_steps = *fg_steps = 0;
  if (alg == PAT_ALG_NATIVE) return run_native(c);
  if (c->bytes == 0) return MPI_SUCCESS; /* every rank moves nothing */
  if (pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL)
    return pat_plan_run_planned(&cs->planner, &cs->base, cs->x.seq, c, bg_steps, fg_steps);
  return pat_plan_run_classic(&cs->planner, &cs->base, alg, c);
}

/* The records in hand were made ahead and cannot settle this call's size:
 * drop them (and any plan), and exchange again, every rank on arrival.
 * Every rank that gets here gets here alike (decided from agreed facts). */
static int exchange_on_arrival(pat_comm_state *cs, int64_t arrival, const pat_call_args *c, pat_xsummary *sum) {
  pat_plan_drop(&cs->planner);
  pat_exchange_consume(&cs->x);
  int rc = pat_contribute(cs, arrival, c->key, c->shape_hash, PAT_XREC_ACTUAL);
  if (rc == MPI_SUCCESS) rc = pat_exchange_wait(&cs->x);
  if (rc == MPI_SUCCESS) pat_exchange_summary(&cs->x, sum);
  return rc;
}

/* Are the call's blocks other than the ones a plan made ahead for its key
 * is laid out by -- the site's, as every rank keeps them (background.c)?
 * A shape key covers blocks that drift a little, and the markers of an
 * all-gather where unequal blocks were predicted have none. */
static int blocks_differ(const pat_comm_state *cs, int site, const pat_call_args *c) {
  const int64_t *planned = site >= 0 ? cs->sites.site[site].shape : NULL;
  if (!pat_key_is_shape(c->key) || !planned) return 0;
  if (!c->shape || c->shape_hash != cs->sites.site[site].shape_hash) return 1;
  return memcmp(planned, c->shape, (size_t)cs->base.P * sizeof *planned) != 0; /* what the stage is laid out by */
}

/* Keep the plan if it was made for (setting, this call), else decide it
 * now: what every rank whose call matches the records does, so that all of
 * them run the same schedule with the same tags.  Whether it is made again
 * with other tags (replanned) is decided from facts every rank shares, never
 * from whether this rank's background had made one: blocks that are not
 * the ones planned ahead for their key get other tags, since a plan made
 * ahead may have moved blocks of the old sizes. */
static void plan_for(pat_comm_state *cs, int site, int setting, const pat_call_args *c, const pat_xsummary *sum) {
  pat_plan *plan = &cs->planner.plan;
  int as_expected = sum->setting == setting && sum->agreed_bytes == c->key;
  int differ = blocks_differ(cs, site, c);
  if (plan->decided && !(as_expected && !differ && plan->setting == setting && plan->key == c->key))
    pat_plan_drop(&cs->planner);
  if (plan->decided) return;
  pat_plan_call call = {.site = site,
                        .setting = setting,
                        .key = c->key,
                        .bytes = c->bytes,
                        .shape = c->shape,
                        .bg_start_ns = sum->complete_ns,
                        .replanned = !as_expected || differ};
  pat_engine *engine = setting == PAT_ALG_AUTO ? pat_comm_engine_at(cs, site) : NULL; /* made by the call's entry */
  /* records made under auto, the call now under a fixed setting (PAT_UseAlg between them): the engine
   * learns from them as a background plan ahead under auto would have on some ranks (background.c) */
  if (!engine && sum->setting == PAT_ALG_AUTO && cs->engine_ready && (site < 0 || cs->engine_site[site]))
    pat_plan_learn(&cs->base, &cs->engine, &cs->x, &cs->sites, site);
  pat_plan_decide(&cs->planner, &cs->base, engine, &cs->x, &cs->sites, &call);
}

/* What exchanging cost this call (engine.h, pat_engine_end): from the later of
 * its arrival and the last rank's contribution, before which no exchange can
 * end, to now, its choice made. */
static int64_t exchange_cost(const pat_comm_state *cs, int64_t arrival) {
  int64_t ready = arrival;
  for (int i = 0; i < cs->base.P; i++)
    if (cs->x.all[i].contributed_ns > ready) ready = cs->x.all[i].contributed_ns;
  const int64_t now = pat_clock_global_ns();
  return now > ready ? now - ready : 0;
}

/* What the decision log says of an exchanged call: what ran and why. */
static void note_choice(pat_call_stats *st, const pat_choice *ch) {
  st->alg = ch->alg;
  st->why = ch->kept ? PAT_WHY_KEPT : ch->explored ? PAT_WHY_EXPLORED : PAT_WHY_CHOSEN;
  st->regime = ch->regime;
}

/* This rank's size differs from the one every record predicted (records
 * made ahead, from history or an edge).  Either every rank's does (a
 * correct program that changed its size) or only some (an erroneous one),
 * and this rank cannot tell which, while the ranks whose size matches run
 * the predicted plan at once.  So this rank runs that plan too, with
 * scratch blocks of the predicted size filled with a marker: if every block
 * it receives is a marker, every rank is here, and all exchange again on
 * arrival; otherwise some rank gathered real data: an erroneous program,
 * MPI_ERR_TRUNCATE here (the matching ranks cannot tell: they return
 * success with a marker block).  The markers go the way the call would
 * (an all-gatherv's as an all-gatherv: NATIVE must be the same collective
 * on every rank).  Returns 1 if every rank is here. */
static int run_with_markers(pat_comm_state *cs, int setting, const pat_call_args *c, const pat_xsummary *sum,
                            pat_call_stats *st, int *rc) {
  static const unsigned char magic[16] = {0x70, 0x61, 0x74, 0x3a, 0x73, 0x69, 0x7a, 0x65,
                                          0xa5, 0x5a, 0xc3, 0x3c, 0x96, 0x69, 0x0f, 0xf0};
  int P = cs->base.P, rank = cs->base.rank;
  int64_t key = sum->agreed_bytes;
  int site = pat_sites_lookup(&cs->sites, key);
  /* the predicted blocks: key bytes each, or the shape this rank's own
   * history predicted (its record carried that key, so its site is here) */
  const int64_t *shape = pat_key_is_shape(key) && site >= 0 ? cs->sites.site[site].shape : NULL;
  if (pat_key_is_shape(key) && !shape) {
    *rc = pat_fail(MPI_ERR_INTERN, "%s: the predicted blocks are not known here", c->name);
    return 0;
  }
  int64_t largest = 0;
  for (int r = 0; r < P; r++) largest = shape && shape[r] > largest ? shape[r] : largest;
  /* an all-gather cannot pass unequal blocks: its markers, where unequal
   * ones were predicted, are blocks of the largest (every rank of a correct
   * program is then here, and all of them do the same) */
  int64_t equal = shape ? largest : key;
  if (!c->displs) shape = NULL;
  int64_t total = 0;
  for (int r = 0; r < P; r++) total += shape ? shape[r] : equal;
  if (equal > INT32_MAX || (c->displs && total > INT32_MAX)) {
    *rc = pat_fail(MPI_ERR_TRUNCATE, "%s: this rank's size differs from the predicted one", c->name);
    return 0;
  }
  int64_t mine_bytes = shape ? shape[rank] : equal;
  unsigned char *buf = malloc((size_t)total + (size_t)mine_bytes + 1);
  int *layout = c->displs ? malloc(2 * (size_t)P * sizeof *layout) : NULL; /* counts, then displacements */
  if (!buf || (c->displs && !layout)) {
    free(buf);
    free(layout);
    *rc = pat_fail(MPI_ERR_NO_MEM, "%s: out of memory", c->name);
    return 0;
  }
  unsigned char *mine = buf + total;
  for (int64_t i = 0; i < mine_bytes; i++) mine[i] = magic[i % 16];
  pat_call_args m = {.sendbuf = mine,
                       .sendcount = (int)equal,
                       .sendtype = MPI_BYTE,
                       .recvbuf = buf,
                       .recvcount = (int)equal,
                       .recvtype = MPI_BYTE,
                       .comm = cs->base.user,
                       .bytes = equal,
                       .name = c->name,
                       .key = key,
                       .shape = shape};
  MPI_Datatype block = MPI_DATATYPE_NULL; /* an all-gatherv of equal blocks: one block per count, so displacements fit in int */
  if (layout && shape) {
    int64_t at = 0;
    for (int r = 0; r < P; r++) {
      layout[r] = (int)shape[r];
      layout[P + r] = (int)at;
      at += shape[r];
    }
    m.sendcount = (int)mine_bytes;
    m.bytes = pat_sites_block_bytes(&cs->sites, site); /* shape is the site's: its mean and hash are kept there */
    m.shape_hash = cs->sites.site[site].shape_hash;
    m.counts = layout;
    m.displs = layout + P;
  } else if (layout) {
    for (int r = 0; r < P; r++) {
      layout[r] = 1;
      layout[P + r] = r;
    }
    MPI_Type_contiguous((int)equal, MPI_BYTE, &block);
    MPI_Type_commit(&block);
    m.sendcount = m.recvcount = 1;
    m.sendtype = m.recvtype = block;
    m.counts = layout;
    m.displs = layout + P;
  }
  plan_for(cs, site, setting, &m, sum);
  note_choice(st, &cs->planner.plan.choice);
  *rc = run_alg(cs, st->alg, &m, &st->bg_steps, &st->fg_steps);
  int all_markers = *rc == MPI_SUCCESS;
  int64_t at = 0;
  for (int r = 0; r < P && all_markers; r++) {
    int64_t b = shape ? shape[r] : equal;
    for (int64_t i = 0; i < b && all_markers; i++)
      if (buf[at + i] != magic[i % 16]) all_markers = 0;
    at += b;
  }
  free(buf);
  free(layout);
  if (block != MPI_DATATYPE_NULL) MPI_Type_free(&block);
  if (!all_markers)
    *rc = pat_fail(MPI_ERR_TRUNCATE, "%s: this rank's blocks differ from the ones the other ranks pass (an "
                                     "erroneous program); nothing was gathered here", c->name);
  return all_markers;
}

/* A call that exchanges arrivals first: contribute (if not yet), wait for
 * every record, keep the plan made ahead if it was made for exactly this
 * call, else plan now; run it.  *ran = 0: nothing ran (the exchange
 * failed, or the records show that ranks passed different sizes).  Then
 * finish_exchanged.  *ran_key: the key the call ran as -- this rank's,
 * or the predicted one when this rank's blocks alone differed (it then
 * records the call as the others do, so that their states stay alike). */
static int run_exchanged(pat_comm_state *cs, int site, int setting, int64_t arrival, const pat_call_args *c,
                         pat_call_stats *st, int *ran, int64_t *ran_key) {
  *ran_key = c->key;
  int rc = pat_contribute(cs, arrival, c->key, c->shape_hash, PAT_XREC_ACTUAL);
  int64_t t0 = pat_clock_local_ns();
  if (rc == MPI_SUCCESS) rc = pat_exchange_wait(&cs->x);
  *ran = rc == MPI_SUCCESS;
  if (!*ran) return pat_fail(rc, "%s: arrival exchange failed", c->name);
  if (cs->x.mine.kind != PAT_XREC_ACTUAL) {
    st->predicted = 1;
    st->pred_err_s = (double)llabs(cs->x.mine.arrival_ns - arrival) * 1e-9;
  }
  pat_xsummary sum;
  pat_exchange_summary(&cs->x, &sum);
  /* Records made ahead carry predicted sizes: they settle this call only if
   * they agree and this rank's size is theirs (issue 25, defect 3). */
  if (!pat_exchange_all_kind(&cs->x, PAT_XREC_ACTUAL)) {
    int again = sum.agreed_bytes <= 0; /* the predictions disagree: every rank sees it */
    if (!again && sum.agreed_bytes != c->key) {
      again = run_with_markers(cs, setting, c, &sum, st, &rc);
      if (!again) { /* the others ran the predicted call: record it as they do */
        *ran_key = sum.agreed_bytes;
        st->exchange_wait_s = (double)(pat_clock_local_ns() - t0) * 1e-9;
        return rc;
      }
    }
    if (again) {
      rc = exchange_on_arrival(cs, arrival, c, &sum);
      if (rc != MPI_SUCCESS) {
        *ran = 0;
        return pat_fail(rc, "%s: arrival exchange failed", c->name);
      }
    }
  }
  st->exchange_wait_s = (double)(pat_clock_local_ns() - t0) * 1e-9;
  if (sum.actual_bytes_differ) { /* every rank sees the same records: all of them stop here */
    pat_plan_drop(&cs->planner);
    pat_exchange_consume(&cs->x);
    *ran = 0;
    return pat_fail(MPI_ERR_TRUNCATE, "%s: the ranks of the communicator passed different amounts of data (an "
                                      "erroneous program); nothing was gathered", c->name);
  }
  /* A plan made in the background stands only if it was made for exactly
   * this call; every rank sees the same records and the same call, so all
   * of them keep it or all of them replan. */
  plan_for(cs, site, setting, c, &sum);
  note_choice(st, &cs->planner.plan.choice);
  st->exchange_ns = exchange_cost(cs, arrival);
  return run_alg(cs, st->alg, c, &st->bg_steps, &st->fg_steps);
}

/* After an exchanged call ran (at `site`, created by now): under auto the
 * engine commits the choice (it learned from the records, every rank's
 * previous call there, when the plan was decided: plan.c), then the plan
 * and the records go. */
static void finish_exchanged(pat_comm_state *cs, pat_engine *engine, int site) {
  if (engine)
    pat_engine_commit(engine, site, cs->sites.site[site].calls, &cs->planner.plan.choice, PAT_ALG_AUTO,
                      cs->x.all[cs->base.rank].arrival_ns);
  pat_plan_drop(&cs->planner);
  pat_exchange_consume(&cs->x);
}

int pat_gather_pass_through(pat_comm_state *cs, const pat_call_args *c) {
  int rc = run_native(c);
  pat_gather_count_through(cs);
  return rc;
}

int pat_allgather_through(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  pat_comm_state *cs = pat_gather_passing_state(comm);
  if (!cs || !pat_allgather_plainly_valid(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype)) return 0;
  pat_gather_count_through(cs);
  return 1;
}

int pat_call_enter(const char *name, MPI_Comm comm, const MPI_Request *request, int nonblocking,
                   pat_comm_state **cs, int *inter) {
  *cs = NULL;
  *inter = 0;
  if (!pat_proc.initialized) return pat_fail(MPI_ERR_OTHER, "%s: call PAT_Init first", name);
  if (nonblocking && !request) return pat_fail(MPI_ERR_REQUEST, "%s: request is NULL", name);
  if (comm == MPI_COMM_NULL) return pat_fail(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", name);
  /* The communicator of this thread's last call (the usual case) has a
   * state, so it is a valid intra-communicator: no need to ask MPI. */
  *cs = pat_comm_cached(comm);
  if (!*cs && MPI_Comm_test_inter(comm, inter) != MPI_SUCCESS)
    return pat_fail(MPI_ERR_COMM, "%s: invalid communicator", name);
  return MPI_SUCCESS;
}

int pat_gather_enter(const pat_call_args *c, pat_comm_state **cs, int *rc) {
  int inter;
  *rc = pat_call_enter(c->name, c->comm, NULL, 0, cs, &inter);
  /* An inter-communicator all-gather(v) has other semantics (each group
   * receives the other's blocks, whose size may differ from its own): it
   * is MPI's, arguments and all. */
  if (*rc == MPI_SUCCESS && inter) *rc = run_native(c);
  return *rc != MPI_SUCCESS || inter;
}

int PAT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (pat_allgather_through(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)) {
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return pat_mpi_own_result(rc, "PAT_Allgather");
  }
  pat_call_args c =
      pat_allgather_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "PAT_Allgather");
  pat_comm_state *cs;
  int rc;
  if (pat_gather_enter(&c, &cs, &rc)) return rc;
  int through = cs && pat_gather_passes_through(cs);
  c.arrival = through ? 0 : pat_clock_global_ns();
  rc = pat_check_allgather(c.name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &c.bytes);
  if (rc != MPI_SUCCESS) return rc;
  c.key = c.bytes;
  if (!cs) {
    rc = pat_comm_get(comm, &cs);
    if (rc != MPI_SUCCESS) return rc;
    through = pat_gather_passes_through(cs);
  }
  if (through) return pat_gather_pass_through(cs, &c);
  return pat_gather_run(cs, &c);
}

int pat_gather_run(pat_comm_state *cs, pat_call_args *c) {
  pat_comm_enter_call(cs);
  int rc, setting = pat_proc.alg, alg, ran = 1;
  /* a new site is made only once the call has run: a call that fails on
   * every rank (ranks passing different sizes) leaves no trace in the table */
  int site = pat_sites_lookup(&cs->sites, c->key), fresh = site < 0;
  pat_call_stats st = {.exchange_ns = -1};
  const int64_t *shape = c->shape; /* the site keeps the blocks of its last call */
  /* auto's engine decides; a fixed setting runs its algorithm without it.  A
   * site made under a fixed setting is new to the engine: its first call
   * under auto is a new site's, as the engine sees it */
  int new_to_engine = fresh || !cs->engine_site[site];
  pat_engine *engine = setting == PAT_ALG_AUTO ? pat_comm_engine_at(cs, site) : NULL;
  if (setting == PAT_ALG_AUTO && !engine) {
    pat_comm_leave_call(cs);
    return pat_fail(MPI_ERR_NO_MEM, "%s: out of memory", c->name);
  }
  /* records contributed ahead (cs->next_exchanges) are exchanged whatever the setting now */
  int exchanged = cs->base.P > 1 && (cs->next_exchanges || (engine ? pat_engine_exchanges(engine, setting, new_to_engine)
                                                                    : pat_comm_fixed_exchanges(cs, setting)));
  if (exchanged) {
    int64_t ran_key;
    rc = run_exchanged(cs, site, setting, c->arrival, c, &st, &ran, &ran_key);
    alg = st.alg;
    if (ran_key != c->key) { /* this rank's blocks alone differed: recorded as the others record the call */
      c->key = ran_key;
      site = pat_sites_lookup(&cs->sites, c->key);
      fresh = site < 0;
      shape = NULL; /* the site's stay the others' */
      if (!fresh) c->bytes = pat_sites_block_bytes(&cs->sites, site);
      if (engine) pat_comm_engine_at(cs, site);
    }
  } else {
    /* a fixed classic setting, the static choice of auto, or a single process */
    alg = cs->base.P < 2       ? PAT_ALG_RING
          : setting >= 0       ? setting
          : site < 0 && shape ? pat_engine_static_choice_v(engine, shape)
                               : pat_engine_static_choice(engine, site, c->bytes);
    if (alg == PAT_ALG_NATIVE)
      rc = run_native(c); /* st's steps stay 0, as run_alg leaves them */
    else if ((pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL) && c->displs)
      rc = pat_plan_run_balanced(&cs->planner, &cs->base, alg, c);
    else if (c->bytes == 0 && cs->base.P > 1 && !(pat_algorithms[alg].flags & PAT_ALGF_ARRIVAL))
      rc = run_zero(cs, alg, c);
    else
      rc = run_alg(cs, alg, c, &st.bg_steps, &st.fg_steps);
  }
  if (!ran) { /* nothing recorded: the site's last call stays what the next record carries */
    pat_comm_leave_call(cs);
    return rc;
  }
  int64_t exit_ns = pat_clock_global_ns();
  if (fresh) {
    int victim = pat_sites_victim(&cs->sites), made;
    if (victim >= 0) /* the new site takes its place */
      pat_report_site_done(&cs->report, &cs->sites, pat_comm_engine_of(cs, victim), victim);
    site = pat_sites_find(&cs->sites, c->recvcount, c->key, &made);
    if (shape && pat_sites_set_shape(&cs->sites, site, cs->base.P, shape) != 0) shape = NULL;
    cs->engine_site[site] = 0;
    if (engine) pat_comm_engine_at(cs, site);
  } else if (shape) {
    pat_sites_set_shape(&cs->sites, site, cs->base.P, shape); /* on failure it keeps the last blocks it had */
  }
  if (exchanged) finish_exchanged(cs, engine, site);
  pat_sites_record(&cs->sites, site, c->arrival, exit_ns);
  int next = pat_sites_next(&cs->sites);
  pat_engine_end end = {.site = site,
                        .call = cs->sites.calls - 1, /* the call just recorded */
                        .setting = setting,
                        .alg = alg,
                        .arrival_ns = c->arrival,
                        .exit_ns = exit_ns,
                        .exchange_ns = new_to_engine ? -1 : st.exchange_ns, /* a site's first call is cold */
                        .next_site = next >= 0 && cs->engine_site[next] ? next : -1, /* the engine's sites only */
                        .next_site_calls = next >= 0 ? cs->sites.site[next].calls : 0};
  if (engine) {
    pat_engine_end_call(engine, &end);
    cs->next_exchanges = cs->base.P > 1 && pat_engine_next_exchanges(engine);
    pat_decisions_write(cs, site, end.call, &st, alg, exchanged, c->arrival, exit_ns);
  } else {
    cs->next_exchanges = pat_comm_fixed_exchanges(cs, setting);
  }
  __atomic_store_n(&cs->planner.last_alg, alg, __ATOMIC_RELAXED); /* PAT_LastAlg reads it unlocked */
  st.exchanged = exchanged;
  st.alg = alg;
  pat_report_call(&cs->report, &cs->base, site, c->recvtype, exit_ns - c->arrival, &st);
  if (rc == MPI_SUCCESS) pat_contribute_from_history(cs);
  pat_comm_leave_call(cs);
  pat_stats_call(&st);
  pat_comm_set_current(cs);
  if (rc == MPI_SUCCESS || pat_error_raised(rc)) return rc; /* MPI's own says what failed */
  return pat_fail(rc, "%s: %s failed", c->name, pat_algorithms[alg].name);
}
