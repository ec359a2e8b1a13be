/*
 * Non-blocking all-gathers under threads: POSTERS threads each post
 * PAT_Iallgather and PAT_Iallgatherv on a communicator of their own and
 * hand every request to a shared queue (never waiting for one: a poster
 * that waited for its requests' completion, while the waiters wait for
 * calls other ranks' blocked posters have not made, would deadlock the
 * program, not libpat); WAITERS other
 * threads take requests from it and complete them (MPI_Wait, MPI_Test
 * polling, or MPI_Waitall of two) and check their results; meanwhile one
 * more thread runs blocking PAT_Allgather on its own communicator.  Every
 * result is compared with the values every rank put in.  Argument: calls
 * per poster (default 60).
 */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"
#include "pat.h"

#define POSTERS 3
#define WAITERS 2
#define QMAX (POSTERS * 1000)

static int P, rank, calls_per_poster = 60;
static long failures, cases; /* under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

typedef struct job {
  MPI_Request req;
  int poster, call, n, v;
  int *mine, *all, *counts, *displs;
} job;

static job *queue[QMAX];
static int qlen, posters_left = POSTERS;

static int value(int poster, int call, int r, int i) { return ((poster * 1000 + call) * 64 + r) * 100 + i; }

static void check_job(job *j, int rc) {
  long bad = 0;
  for (int r = 0; r < P; r++) {
    int n = j->v ? j->counts[r] : j->n, at = j->v ? j->displs[r] : r * j->n;
    for (int i = 0; i < n; i++)
      if (j->all[at + i] != value(j->poster, j->call, r, i)) bad++;
  }
  pthread_mutex_lock(&lock);
  cases++;
  if (rc != MPI_SUCCESS || bad) {
    failures++;
    fprintf(stderr, "FAIL rank %d: poster %d call %d (%s): rc %d, %ld wrong elements\n", rank, j->poster, j->call,
            j->v ? "v" : "allgather", rc, bad);
  }
  pthread_mutex_unlock(&lock);
}

static void free_job(job *j) {
  free(j->mine);
  free(j->all);
  free(j->counts);
  free(j);
}

typedef struct poster_arg {
  int id;
  MPI_Comm comm;
} poster_arg;

static void *poster(void *arg) {
  poster_arg *a = arg;
  for (int c = 0; c < calls_per_poster; c++) {
    job *j = calloc(1, sizeof *j);
    j->poster = a->id;
    j->call = c;
    j->v = c % 2;
    j->n = 1 + (c * 37 + a->id * 11) % 3000;
    j->counts = malloc(2 * (size_t)P * sizeof *j->counts);
    j->displs = j->counts + P;
    int total = 0;
    for (int r = 0; r < P; r++) {
      j->counts[r] = j->v ? (j->n + r * 13) % 700 : j->n;
      j->displs[r] = total;
      total += j->counts[r];
    }
    int own = j->counts[rank];
    j->mine = malloc(((size_t)own + 1) * sizeof *j->mine);
    j->all = calloc((size_t)total + 1, sizeof *j->all);
    for (int i = 0; i < own; i++) j->mine[i] = value(a->id, c, rank, i);
    int rc = j->v ? PAT_Iallgatherv(j->mine, own, MPI_INT, j->all, j->counts, j->displs, MPI_INT, a->comm, &j->req)
                  : PAT_Iallgather(j->mine, j->n, MPI_INT, j->all, j->n, MPI_INT, a->comm, &j->req);
    if (rc != MPI_SUCCESS) {
      check_job(j, rc);
      free_job(j);
      continue;
    }
    pthread_mutex_lock(&lock);
    queue[qlen++] = j;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  posters_left--;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* Take up to want jobs (the newest first: completion in another order than posting). */
static int take(job **out, int want) {
  pthread_mutex_lock(&lock);
  while (qlen == 0 && posters_left > 0) pthread_cond_wait(&changed, &lock);
  int n = 0;
  while (n < want && qlen > 0) out[n++] = queue[--qlen];
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  return n;
}

static void done(job *j, int rc) {
  check_job(j, rc);
  free_job(j);
}

static void *waiter(void *arg) {
  int id = *(int *)arg, round = 0;
  job *j[2];
  for (int n; (n = take(j, 2)) > 0; round++) {
    int how = (round + id) % 3;
    if (how == 0 || n == 1) {
      for (int i = 0; i < n; i++) {
        int rc = MPI_SUCCESS, flag = 0;
        if (how == 1)
          while (rc == MPI_SUCCESS && !flag) {
            rc = MPI_Test(&j[i]->req, &flag, MPI_STATUS_IGNORE);
            if (!flag) usleep(50);
          }
        else
          rc = MPI_Wait(&j[i]->req, MPI_STATUS_IGNORE);
        done(j[i], rc);
      }
    } else {
      MPI_Request r[2] = {j[0]->req, j[1]->req};
      int rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      done(j[0], rc);
      done(j[1], rc);
    }
  }
  return NULL;
}

static void *blocking(void *arg) {
  MPI_Comm comm = *(MPI_Comm *)arg;
  int mine[64], all[64 * 64];
  for (int c = 0; c < calls_per_poster; c++) {
    for (int i = 0; i < 64; i++) mine[i] = value(9, c, rank, i);
    int rc = PAT_Allgather(mine, 64, MPI_INT, all, 64, MPI_INT, comm);
    long bad = 0;
    for (int r = 0; r < P; r++)
      for (int i = 0; i < 64; i++) bad += all[r * 64 + i] != value(9, c, r, i);
    pthread_mutex_lock(&lock);
    cases++;
    if (rc != MPI_SUCCESS || bad) {
      failures++;
      fprintf(stderr, "FAIL rank %d: blocking call %d: rc %d, %ld wrong\n", rank, c, rc, bad);
    }
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P > 64) MPI_Abort(MPI_COMM_WORLD, 2);
  if (argc > 1) calls_per_poster = atoi(argv[1]);
  if (calls_per_poster < 1 || calls_per_poster > QMAX / POSTERS) calls_per_poster = 60;
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm comms[POSTERS + 1];
  for (int i = 0; i <= POSTERS; i++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
  pthread_t post[POSTERS], wait[WAITERS], block;
  poster_arg pa[POSTERS];
  int wid[WAITERS];
  for (int i = 0; i < POSTERS; i++) {
    pa[i] = (poster_arg){i, comms[i]};
    pthread_create(&post[i], NULL, poster, &pa[i]);
  }
  for (int i = 0; i < WAITERS; i++) {
    wid[i] = i;
    pthread_create(&wait[i], NULL, waiter, &wid[i]);
  }
  pthread_create(&block, NULL, blocking, &comms[POSTERS]);
  for (int i = 0; i < POSTERS; i++) pthread_join(post[i], NULL);
  for (int i = 0; i < WAITERS; i++) pthread_join(wait[i], NULL);
  pthread_join(block, NULL);
  for (int i = 0; i <= POSTERS; i++) MPI_Comm_free(&comms[i]);
  char what[64];
  snprintf(what, sizeof what, "iallgather threads, P=%d (MPI provides %d)", P, provided);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
