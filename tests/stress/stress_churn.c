/*
 * The communicator-churn loop of defect 7 (issue 13): an intermittent hang
 * with BSLB, about 3% of runs at P=4, one rank finished and the others
 * blocked in the executor's wait.
 *
 *   stress_churn [--alg NAME] [--reps N] [--max-count N] [--timeout SEC]
 *
 * One repetition creates and frees many communicators in turn -- a dup of
 * world, a split in world's order, a split in reversed order, and
 * sub-communicators of 2..P ranks (odd sizes in reversed order) -- and on
 * each all-gathers 1, 2, 4, ... max-count (default 8192) doubles per rank,
 * not in place, then makes a zero-byte call and frees it.  The program ends
 * with a zero-byte call on MPI_COMM_WORLD.  Every result is checked.
 *
 * Since the bug showed per run, tests/stress/churn.sh launches this many
 * times.  A phase stuck for --timeout seconds (default 60; 0: no watchdog)
 * prints "HANG ..." with where it was, and aborts the job (exit status 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat.h"
#include "watchdog.h"

typedef struct options {
  const char *alg;
  long reps, max_count;
  double timeout_s;
} options;

enum { V_DUP, V_SPLIT, V_REVERSED, V_SUB }; /* V_SUB + s - 2: s ranks, s = 2..P */

static long calls, failures;
static int me, P;

static double value(int rank, long i, long n, long rep) { return (double)rank * 1e7 + (double)i + (double)n * 0.5 + (double)rep * 3.0; }

static void variant_text(int v, char *out, size_t n) {
  if (v == V_DUP) snprintf(out, n, "dup of world");
  else if (v == V_SPLIT) snprintf(out, n, "split, world order");
  else if (v == V_REVERSED) snprintf(out, n, "split, reversed order");
  else snprintf(out, n, "sub-communicator of %d ranks, %s order", v - V_SUB + 2, (v - V_SUB) % 2 ? "reversed" : "world");
}

/* Collective over world; MPI_COMM_NULL where this rank is not a member. */
static MPI_Comm create(int v) {
  MPI_Comm c = MPI_COMM_NULL;
  if (v == V_DUP) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  else if (v == V_SPLIT) MPI_Comm_split(MPI_COMM_WORLD, 0, me, &c);
  else if (v == V_REVERSED) MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - me, &c);
  else {
    int size = v - V_SUB + 2, reversed = (size - 2) % 2;
    MPI_Comm_split(MPI_COMM_WORLD, me < size ? 0 : MPI_UNDEFINED, reversed ? P - 1 - me : me, &c);
  }
  if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  return c;
}

static void phase(long rep, int v, long n) {
  char what[128], text[WATCHDOG_TEXT];
  variant_text(v, what, sizeof what);
  snprintf(text, sizeof text, "rep %ld, %s, %ld doubles per rank", rep, what, n);
  watchdog_enter(text);
}

/* n doubles per rank on comm, checked. */
static void gather(MPI_Comm comm, long n, long rep, const char *where) {
  int p, r;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &r);
  double *mine = malloc((size_t)(n > 0 ? n : 1) * sizeof *mine);
  double *all = malloc((size_t)(n > 0 ? n : 1) * (size_t)p * sizeof *all);
  for (long i = 0; i < n; i++) mine[i] = value(r, i, n, rep);
  for (long i = 0; i < n * p; i++) all[i] = -1.0;
  int rc = PAT_Allgather(mine, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, comm);
  long wrong = 0, first = -1;
  for (long i = 0; rc == MPI_SUCCESS && i < n * p; i++)
    if (all[i] != value((int)(i / n), i % n, n, rep) && wrong++ == 0) first = i;
  calls++;
  if (rc != MPI_SUCCESS || wrong) {
    failures++;
    fprintf(stderr, "FAIL stress_churn world rank %d: %s, %ld doubles: rc=%d (%s), %ld wrong, first at %ld\n", me,
            where, n, rc, rc == MPI_SUCCESS ? "success" : PAT_Error_string(rc), wrong, first);
  }
  free(mine);
  free(all);
}

static void one_comm(const options *o, int v, long rep) {
  char where[160], what[128];
  variant_text(v, what, sizeof what);
  snprintf(where, sizeof where, "rep %ld, %s", rep, what);
  phase(rep, v, -1);
  MPI_Comm c = create(v);
  if (c == MPI_COMM_NULL) return;
  for (long n = 1; n <= o->max_count; n *= 2) {
    phase(rep, v, n);
    gather(c, n, rep, where);
  }
  phase(rep, v, 0);
  gather(c, 0, rep, where);
  MPI_Comm_free(&c);
}

static int parse(options *o, int argc, char **argv) {
  *o = (options){"bslb", 1, 8192, 60};
  for (int i = 1; i + 1 < argc; i += 2) {
    char *end;
    long v = strtol(argv[i + 1], &end, 10);
    if (!strcmp(argv[i], "--alg")) o->alg = argv[i + 1];
    else if (*end || v < 0) return -1;
    else if (!strcmp(argv[i], "--reps")) o->reps = v;
    else if (!strcmp(argv[i], "--max-count")) o->max_count = v;
    else if (!strcmp(argv[i], "--timeout")) o->timeout_s = (double)v;
    else return -1;
  }
  return argc % 2 == 1 ? 0 : -1;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  options o;
  if (parse(&o, argc, argv)) {
    if (me == 0) fprintf(stderr, "usage: stress_churn [--alg NAME] [--reps N] [--max-count N] [--timeout SEC]\n");
    MPI_Finalize();
    return 2;
  }
  if (PAT_Init() != MPI_SUCCESS || PAT_UseAlg(o.alg) != MPI_SUCCESS) {
    fprintf(stderr, "stress_churn: PAT_Init or PAT_UseAlg(%s) failed\n", o.alg);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  watchdog_start(o.timeout_s, "stress_churn");
  for (long rep = 0; rep < o.reps; rep++)
    for (int v = V_DUP; v <= V_SUB + P - 2; v++) one_comm(&o, v, rep);
  watchdog_enter("the closing zero-byte call on MPI_COMM_WORLD");
  gather(MPI_COMM_WORLD, 0, o.reps, "closing call on world");
  long all_calls = 0, all_failures = 0;
  watchdog_enter("summing up");
  MPI_Allreduce(&calls, &all_calls, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&failures, &all_failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) {
    printf("stress_churn: alg=%s P=%d reps=%ld: %ld calls over ranks, %ld failed\n", o.alg, P, o.reps, all_calls,
           all_failures);
    fflush(stdout);
  }
  watchdog_enter("PAT_Finalize");
  PAT_Finalize();
  watchdog_stop();
  MPI_Finalize();
  return all_failures ? 1 : 0;
}
