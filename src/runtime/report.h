/*
 * The finalize report (PAT_REPORT=1, or PAT_VERBOSE=2): per call site
 * (communicator, count, datatype) the calls, the algorithms chosen, the mean
 * and largest elapsed time in the call (e = exit - arrival) and the error of
 * the arrival prediction.  Sites are those of the communicator's call-site
 * table (pat/sites.h): its statistics sit beside it, indexed alike, and
 * become finished rows when the communicator goes (or a site is replaced).
 * PAT_Finalize gathers every rank's rows to world rank 0, which merges the
 * ranks of each site and prints one table on stderr.
 */
#ifndef PAT_REPORT_H
#define PAT_REPORT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/algorithms.h"
#include "decide/engine.h"
#include "pat/sites.h"
#include "runtime/comm_base.h"

#define PAT_REPORT_DESC 40

typedef struct pat_site_report {
  char type_desc[PAT_REPORT_DESC]; /* the datatype of its first call, described */
  long long calls, pred_calls, exchanged, algs[PAT_ALG_COUNT];
  double e_sum, e_max, err_sum, err_max;
} pat_site_report;

typedef struct pat_comm_report {
  int id; /* 1 + the communicator's entry in the report, 0 before its first call, -1: none */
  pat_site_report site[PAT_SITES_MAX];
} pat_comm_report;

struct pat_call_stats;

/* A time in seconds as the report prints it: us, ms or s. */
void pat_report_fmt_time(double s, char *out, size_t size);

/* At PAT_Init (collective over world): on if world rank 0's setting says so. */
int pat_report_init(MPI_Comm world, int enabled);
/* The report is being collected (set at PAT_Init, cleared at PAT_Finalize):
 * read on every call, so that a call without a report costs no function call. */
extern int pat_report_on;
void pat_report_record(pat_comm_report *rep, const pat_comm_base *b, int site, MPI_Datatype type,
                       int64_t elapsed_ns, const struct pat_call_stats *call);
/* One call of site `site` of the communicator whose report part is rep;
 * elapsed: e = exit - arrival.  The caller holds the communicator's lock,
 * which guards the site's slot (the report's own lock is taken only for the
 * communicator's first call). */
static inline void pat_report_call(pat_comm_report *rep, const pat_comm_base *b, int site, MPI_Datatype type,
                                   int64_t elapsed_ns, const struct pat_call_stats *call) {
  if (pat_report_on) pat_report_record(rep, b, site, type, elapsed_ns, call);
}
/* Site `site` of the communicator's call-site table is about to be
 * replaced by a new one, or the communicator goes: its statistics, with
 * what the engine learned there (engine NULL: it has no state of the site,
 * none of its calls ran under auto), become a finished row (before the
 * engine's site state is reset). */
void pat_report_site_done(pat_comm_report *rep, const pat_sites *sites, pat_engine *engine, int site);
/* At PAT_Finalize, after every communicator is done (collective over world):
 * gather, print on world rank 0, free. */
void pat_report_finalize(void);

#endif
