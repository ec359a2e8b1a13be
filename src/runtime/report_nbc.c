/* The report's rows of the non-blocking and persistent all-gathers (see report_nbc.h). */
#include "runtime/report_nbc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report.h"

#define MAX_ROWS 64 /* per process: beyond, the calls go uncounted (the last row says so) */

/* A row, and what a rank sends to rank 0 (plain bytes, as report.c's). */
typedef struct nbc_row {
  char form[16], schedule[24];
  int32_t P;
  int64_t bytes, calls, timed; /* timed: the calls in e_sum and e_max */
  double e_sum, e_max;
} nbc_row;

static pthread_mutex_t report_nbc_lock = PTHREAD_MUTEX_INITIALIZER;
static nbc_row rows[MAX_ROWS + 1]; /* the last: (others) */
static int nrows;

static int same(const nbc_row *r, const char *form, const char *schedule, int P, long long bytes) {
  return r->P == P && r->bytes == bytes && !strcmp(r->form, form) && !strcmp(r->schedule, schedule);
}

/* elapsed_ns < 0: a call without a time */
static void add(const char *form, const char *schedule, int P, long long bytes, int64_t elapsed_ns) {
  double e = 1e-9 * (double)elapsed_ns;
  pthread_mutex_lock(&report_nbc_lock);
  int i = 0;
  while (i < nrows && !same(&rows[i], form, schedule, P, bytes)) i++;
  if (i == nrows) {
    if (nrows == MAX_ROWS) {
      i = MAX_ROWS;
      snprintf(rows[i].form, sizeof rows[i].form, "%s", "(others)");
    } else {
      nrows++;
      snprintf(rows[i].form, sizeof rows[i].form, "%s", form);
      snprintf(rows[i].schedule, sizeof rows[i].schedule, "%s", schedule);
      rows[i].P = P;
      rows[i].bytes = bytes;
    }
  }
  rows[i].calls++;
  if (elapsed_ns >= 0) {
    rows[i].timed++;
    rows[i].e_sum += e;
    if (e > rows[i].e_max) rows[i].e_max = e;
  }
  pthread_mutex_unlock(&report_nbc_lock);
}

void pat_report_nbc_add(const char *form, const char *schedule, int P, long long bytes, int64_t elapsed_ns) {
  if (pat_report_on) add(form, schedule, P, bytes, elapsed_ns < 0 ? 0 : elapsed_ns);
}

void pat_report_nbc_count(const char *form, const char *schedule, int P, long long bytes) {
  add(form, schedule, P, bytes, -1);
}

static int cmp_row(const void *pa, const void *pb) {
  const nbc_row *a = pa, *b = pb;
  int c = strcmp(a->form, b->form);
  if (!c) c = strcmp(a->schedule, b->schedule);
  if (!c) c = (a->P > b->P) - (a->P < b->P);
  if (!c) c = (a->bytes > b->bytes) - (a->bytes < b->bytes);
  return c;
}

/* Rows of every rank, sorted: one line per (form, schedule, P, bytes). */
static void print(nbc_row *all, int n) {
  qsort(all, (size_t)n, sizeof *all, cmp_row);
  int lines = 0;
  for (int i = 0; i < n; lines++) {
    nbc_row sum = all[i];
    int ranks = 1;
    for (i++; i < n && !cmp_row(&sum, &all[i]); i++, ranks++) {
      sum.calls += all[i].calls;
      sum.timed += all[i].timed;
      sum.e_sum += all[i].e_sum;
      if (all[i].e_max > sum.e_max) sum.e_max = all[i].e_max;
    }
    if (!lines)
      fprintf(stderr, "libpat report: %-14s %-10s %5s %12s %6s %8s %10s %10s\n", "form", "schedule", "P",
              "block bytes", "ranks", "calls", "mean e", "max e");
    char mean[24] = "-", max[24] = "-"; /* no time: MPI's own completed them */
    if (sum.timed) {
      pat_report_fmt_time(sum.e_sum / (double)sum.timed, mean, sizeof mean);
      pat_report_fmt_time(sum.e_max, max, sizeof max);
    }
    fprintf(stderr, "libpat report: %-14s %-10s %5d %12lld %6d %8.0f %10s %10s\n", sum.form, sum.schedule, sum.P,
            (long long)sum.bytes, ranks, (double)sum.calls / ranks, mean, max);
  }
  if (lines)
    fprintf(stderr, "libpat report: non-blocking and persistent calls, and all-reduces on libpat's schedules: calls "
                    "per rank; e = from the post (a persistent call's start) to the completion libpat saw, over "
                    "ranks and calls (-: non-blocking calls passed to MPI's own, counted only; all-reduce block "
                    "bytes: the vector's)\n");
}

void pat_report_nbc_finalize(MPI_Comm world) {
  if (!pat_report_on) return;
  int size, rank;
  MPI_Comm_size(world, &size);
  MPI_Comm_rank(world, &rank);
  pthread_mutex_lock(&report_nbc_lock);
  int n = nrows + (rows[MAX_ROWS].calls > 0);
  nbc_row mine[MAX_ROWS + 1];
  memcpy(mine, rows, (size_t)nrows * sizeof *mine);
  if (n > nrows) mine[nrows] = rows[MAX_ROWS];
  memset(rows, 0, sizeof rows);
  nrows = 0;
  pthread_mutex_unlock(&report_nbc_lock);
  int bytes = n * (int)sizeof(nbc_row), *counts = NULL, *displs = NULL, total = 0;
  nbc_row *all = NULL;
  if (rank == 0) {
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size, sizeof *displs);
  }
  MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, world);
  if (rank == 0 && counts && displs) {
    for (int r = 0; r < size; r++) {
      displs[r] = total;
      total += counts[r];
    }
    all = malloc((size_t)total + 1);
  }
  MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, world);
  if (rank == 0 && all) {
    print(all, total / (int)sizeof(nbc_row));
    fflush(stderr);
  }
  free(all);
  free(counts);
  free(displs);
}
