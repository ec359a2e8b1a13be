/*
 * Plans: what a call runs, and the blocking call's runs (run.h).  From the
 * exchanged records to the algorithm (decide/engine.h), its build arguments
 * (model/build_args.h, the same ones the selection predicted with), and its
 * run, which the background thread starts and the foreground finishes; and
 * this rank's cached classic schedules, which depend only on P.
 *
 * A planner is one part of a communicator's state (comm.h): its functions
 * take it, the communicator's base (comm_base.h) and the other parts they
 * read, and run with the communicator's lock held.
 */
#ifndef PAT_PLAN_H
#define PAT_PLAN_H

#include <stdint.h>

#include "algorithms/algorithms.h"
#include "decide/engine.h"
#include "exec/executor.h"
#include "model/select.h"
#include "pat/exchange.h"
#include "pat/sites.h"
#include "runtime/args.h"
#include "runtime/comm_base.h"
#include "runtime/run.h"
#include "algorithms/sched/schedule.h"

/* The arrival-aware plan of the next call. */
typedef struct pat_plan {
  int decided;
  int setting;      /* the setting it was decided under */
  int64_t key;      /* the call it was decided for: its block size, or an all-gatherv's shape key (pat/shape.h) */
  int64_t bytes;    /* the block size the model saw: key, or the mean of shape */
  int has_shape;    /* decided for unequal blocks: shape[0..P-1] bytes, packed at offsets in rank order */
  int64_t *shape;   /* P (allocated with the planner) */
  uint64_t shape_hash; /* pat_shape_hash of shape, 0 for equal blocks */
  int site;         /* the call site it was decided for (-1: none) */
  pat_choice choice; /* the algorithm, its root, the predictions (decide/engine.h) */
  int replanned;    /* decided in the foreground because the inputs changed */
  int64_t *arrival; /* P predicted arrivals, common clock */
  uint64_t digest;  /* of its decision's inputs and outputs (pat_plan_digest, tests) */
  pat_build_args args; /* what its schedule is built from (tau, alpha, root, arrivals) */
  int has_exec;     /* its run made: schedule built, stage allocated, executor ready */
  pat_run run;
  pat_kept_stage stage; /* the run's stage memory, kept from plan to plan */
} pat_plan;

typedef struct pat_planner {
  pat_plan plan;
  pat_kept_stage balanced_stage; /* pat_planner_stage's when the plan's is in use */
  pat_sched *classic[PAT_ALG_COUNT]; /* this rank's classic schedules, built on first use */
  double classic_smallest[PAT_ALG_COUNT]; /* their smallest message (pat_wait_smallest_blocks) */
  int last_alg;                      /* what the last call ran (-1 before the first) */
  uint64_t last_digest;              /* digest of the last plan dropped after its call ran (tests): not of
                                        one the background thread made ahead for the next call */
} pat_planner;

/* Allocates what deciding needs (P arrivals), so that a decision cannot fail
 * on one rank alone.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int pat_planner_init(pat_planner *pl, int P);
void pat_planner_free(pat_planner *pl); /* drops the plan too */

/* What a plan is decided for. */
typedef struct pat_plan_call {
  int site;           /* the call site (-1: none yet) */
  int setting;        /* the algorithm setting (PAT_ALG_AUTO or an algorithm) */
  int64_t key;        /* the block size, or an all-gatherv's shape key */
  int64_t bytes;      /* the block size the model sees (a shape's mean) */
  const int64_t *shape; /* an all-gatherv's blocks (P bytes), NULL for equal ones */
  int64_t bg_start_ns; /* when the background could start it (the exchange completed) */
  int replanned;      /* decided in the foreground because the inputs changed */
} pat_plan_call;

/* Decide the plan of the call from the exchanged records x: under auto the
 * engine learns from them what the site's previous call cost (once per
 * call: a plan decided again from the same records learns nothing new),
 * then chooses (decide/engine.h) with what the call-site table knows of the
 * call's site; a fixed setting (engine NULL) is its own choice.  The plan
 * keeps the arrivals and the build arguments. */
void pat_plan_decide(pat_planner *pl, const pat_comm_base *b, pat_engine *engine, const pat_exchange *x,
                     const pat_sites *sites, const pat_plan_call *call);
/* What pat_plan_decide does to the engine without deciding: learn from the
 * records x what every rank's previous call at `site` cost (once per call),
 * and settle the refinement.  For a call under a fixed setting whose
 * records were made under auto: on ranks whose background thread planned
 * it ahead under auto the engine learned from them, and on every rank it
 * must. */
void pat_plan_learn(const pat_comm_base *b, pat_engine *engine, const pat_exchange *x, const pat_sites *sites,
                    int site);
/* Build its schedule, stage and executor (once); exchange_seq: the
 * sequence number of the exchange it was decided from (its tags). */
int pat_plan_prepare_exec(pat_planner *pl, const pat_comm_base *b, int64_t exchange_seq);
/* Run the background part as far as it goes without blocking; *busy = 1
 * while a step is in flight. */
int pat_plan_progress(pat_planner *pl, int *busy);
void pat_plan_drop(pat_planner *pl);
/* Digest of a plan's inputs and outputs: equal on every rank when they
 * decided alike (the tests compare it). */
uint64_t pat_plan_digest(int P, const pat_plan *p);

/* The stage a call that runs without a plan packs on (an all-gatherv's
 * static RELAY): the plan's, whose pages the exchanged calls have touched,
 * unless a plan holds it (the background thread may run a plan for a later
 * call); then one of its own.  The caller holds the communicator's lock for
 * the call, so no plan can take it meanwhile.  pat_planner_stage gives at
 * least `need` bytes of it (NULL when out of memory); return it with
 * pat_planner_stage_done after the call. */
pat_kept_stage *pat_planner_kept(pat_planner *pl);
void *pat_planner_stage(pat_planner *pl, size_t need);
void pat_planner_stage_done(pat_planner *pl);

/* This rank's schedule of classic algorithm alg (built on first use). */
int pat_plan_classic(pat_planner *pl, const pat_comm_base *b, int alg, const pat_sched **out);

/* A blocking call's runs, in the foreground, with the foreground's nap
 * (wait_nap.h) and PAT_TIMELINE's record:
 *  - classic: alg's cached schedule on the user's buffer (blocks of the
 *    counts at the displacements where c->displs), classic tags;
 *  - balanced: an arrival-aware algorithm without an exchange (an
 *    all-gatherv's static RELAY, decide/vchoice.h), its schedule for
 *    balanced arrivals (each block's pieces by its size) packed on the
 *    planner's stage;
 *  - planned: the plan decided (pat_plan_decide), packed on its stage, where
 *    the background thread may already have received (and forwarded)
 *    blocks; exchange_seq: the exchange it was decided from.  *bg_steps,
 *    *fg_steps: the steps (data flow: ops) done before the call and in it. */
int pat_plan_run_classic(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c);
int pat_plan_run_balanced(pat_planner *pl, const pat_comm_base *b, int alg, const pat_call_args *c);
int pat_plan_run_planned(pat_planner *pl, const pat_comm_base *b, int64_t exchange_seq, const pat_call_args *c,
                         long long *bg_steps, long long *fg_steps);

#endif
