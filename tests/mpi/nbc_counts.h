/*
 * The non-blocking calls libpat's background thread ran, by schedule (tests
 * linked with libpat's internals: runtime/nbc_queue.h's counters).
 */
#ifndef PAT_TEST_NBC_COUNTS_H
#define PAT_TEST_NBC_COUNTS_H

#include <string.h>

#include "pat.h"
#include "runtime/nbc_queue.h"

/* The algorithm's index (PAT_AlgName), -1 for none (auto). */
static inline int nbc_alg_index(const char *name) {
  for (int i = 0; i < PAT_AlgCount(); i++)
    if (!strcmp(PAT_AlgName(i), name)) return i;
  return -1;
}

/* Calls that ran the setting's schedule: auto's (blocks of 64 KiB and more) run RELAY or DIRECT (measured
 * against each other, decide/nbc_choice.h), or HRELAY. */
static inline long long nbc_ran_by(const char *alg) {
  if (strcmp(alg, "auto") != 0) return pat_nbc_completed_by(nbc_alg_index(alg));
  return pat_nbc_completed_by(nbc_alg_index("relay")) + pat_nbc_completed_by(nbc_alg_index("direct")) +
         pat_nbc_completed_by(nbc_alg_index("hrelay"));
}

#endif
