/*
 * A measured non-blocking call's stamps (decide/nbc_choice.h): at its start
 * each rank sends every other rank two numbers, when it posted the call and
 * how long its previous measured call on the communicator took here (from
 * the last rank's post, which the stamps of that call told, to its
 * completion here; -1: none), and the call completes once the others' came
 * too.  So each rank holds every rank's time of that previous call once
 * this one is done, and adds the same mean to the choice.  Timed from the
 * last post, a call leaves out the waits for the late ranks, which neither
 * candidate changes: with arrivals drawn anew every call they varied more
 * from call to call than RELAY and DIRECT differ, and timed from each
 * rank's own post the choice took DIRECT where RELAY is faster.  They go as the
 * call's messages go (its run's communicator, route and tag generation),
 * under the generation's one tag no step takes (exec/message.h).
 */
#ifndef PAT_NBC_STAMPS_H
#define PAT_NBC_STAMPS_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/run.h"

typedef struct pat_nbc_stamps {
  int64_t mine[2]; /* this rank's: post, took (ns) */
  int64_t *all;    /* every rank's pair (2P; this rank's too) */
  MPI_Request *req; /* the receives and sends, 2 (P - 1) */
  int n, P;
} pat_nbc_stamps;

/* Send this rank's stamps to the others of w and post the receives of
 * theirs.  Returns an MPI error code. */
int pat_nbc_stamps_post(pat_nbc_stamps *s, const pat_run_where *w, int64_t post_ns, int64_t took_ns);
/* 1 once every stamp is in (or an error: *rc), else 0. */
int pat_nbc_stamps_test(pat_nbc_stamps *s, int *rc);
/* The mean over the ranks of the previous call's time (s), -1 where a rank had none. */
double pat_nbc_stamps_took(const pat_nbc_stamps *s);
/* The last rank's post of this call (every stamp in). */
int64_t pat_nbc_stamps_last_post(const pat_nbc_stamps *s);
void pat_nbc_stamps_free(pat_nbc_stamps *s);

#endif
