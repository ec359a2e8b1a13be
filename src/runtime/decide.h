/*
 * Which algorithm a call runs.  A fixed setting is obeyed; "auto" asks the
 * cost model (model/select.h) to predict every algorithm's mean elapsed
 * time for the exchanged arrivals -- measured balanced times where the model
 * file has them, the schedule replay for the response to imbalance, the
 * site's online refinement -- and takes the smallest, or, now and then, an
 * algorithm not yet measured at the site that is predicted within
 * PAT_EXPLORE_WITHIN of it (policy.h).  Every input is agreed (exchanged
 * records, the broadcast model, the site's policy state as of the end of
 * the previous call), so every rank decides the same; the decision reads
 * that state and never changes it (pat_policy_commit does, after the call).
 */
#ifndef PAT_DECIDE_H
#define PAT_DECIDE_H

#include <stdint.h>

#include "algorithms/algorithms.h"

struct pat_comm_state;

typedef struct pat_choice {
  int alg, root;
  int static_alg;                  /* what the call would run without an exchange */
  int explored;                    /* alg was chosen to be measured, not as the best */
  int kept;                        /* a plan-ahead algorithm kept from the site's last call (policy.h) */
  int64_t ebar_ns[PAT_ALG_COUNT];  /* predictions (refined), INT64_MAX: not predicted */
  double wait;                     /* the wait for the last arrival in them (s), which no algorithm avoids */
} pat_choice;

/* The choice for a call of `bytes` per block at `site` (-1: unknown site)
 * with these arrivals; bg_start_ns: when background work can start. */
void pat_choose(struct pat_comm_state *cs, int site, const int64_t *arrival, int64_t bytes, int64_t bg_start_ns,
                int setting, pat_choice *out);

/* ē of alg (s) for these arrivals, as the choice predicts it but without
 * refinement: 0, or -1 if it cannot be predicted. */
int pat_predict_alg(struct pat_comm_state *cs, int alg, const int64_t *arrival, int64_t bytes, double *ebar);

#endif
