/*
 * Thread stress test (issue 25): T application threads, each gathering on
 * communicators of its own, which it replaces now and then (a collective
 * MPI_Comm_dup of its current one, then MPI_Comm_free); any thread may
 * instrument (PAT_ProcessingStart/Edge/End around its compute phase), and
 * one more thread does nothing but instrument; random sleeps everywhere.
 * One round per algorithm (PAT_UseAlg between rounds, while no thread
 * gathers), auto included.  Every result is checked element by element.
 *
 * A hang is caught by the watchdog (watchdog.h), which prints the round and
 * every thread's stack (gdb -batch) and aborts the job.  The counts, the
 * replacement points and who instruments come from the seed (the same on
 * every rank); the sleeps are different on every rank.
 *
 *   stress_threads [--seed S] [--threads T] [--calls N] [--algs a,b,...] [--timeout s]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pat.h"
#include "watchdog.h"

static int rank, P;
static atomic_int workers_left;
static atomic_long failures;

typedef struct worker {
  int id, calls;
  unsigned seed; /* shared by the ranks: counts, replacements, instrumentation */
  unsigned pause; /* this rank's: sleeps */
  MPI_Comm comm;
} worker;

static void nap_us(unsigned us) {
  struct timespec ts = {0, (long)us * 1000L};
  nanosleep(&ts, NULL);
}

static void fail(const char *what, int id, int k, int rc) {
  atomic_fetch_add(&failures, 1);
  fprintf(stderr, "FAIL rank %d thread %d call %d: %s (%s)\n", rank, id, k, what, rc ? PAT_Error_string(rc) : "");
}

static void *work(void *arg) {
  worker *w = arg;
  enum { MAXC = 4096 };
  int *mine = malloc(MAXC * sizeof *mine), *all = malloc((size_t)MAXC * P * sizeof *all);
  for (int k = 0; k < w->calls; k++) {
    unsigned r = (unsigned)rand_r(&w->seed);
    int count = (r % 8 == 0) ? 1 + (int)(r / 8 % 16) : 1 + (int)(r / 8 % MAXC);
    int instrument = (r >> 20) % 3 == 0;
    if ((r >> 24) % 16 == 0) { /* a new communicator replaces this thread's (collective on it) */
      MPI_Comm next;
      MPI_Comm_dup(w->comm, &next);
      MPI_Comm_free(&w->comm);
      w->comm = next;
    }
    unsigned sleep_us = (unsigned)rand_r(&w->pause) % 1500;
    if (instrument && PAT_ProcessingStart() == MPI_SUCCESS) {
      nap_us(sleep_us / 2);
      PAT_Edge(50);
      nap_us(sleep_us / 2);
      PAT_ProcessingEnd();
    } else {
      nap_us(sleep_us);
    }
    for (int i = 0; i < count; i++) mine[i] = rank * 1000003 + i * 7 + k;
    int rc = PAT_Allgather(mine, count, MPI_INT, all, count, MPI_INT, w->comm);
    if (rc != MPI_SUCCESS) {
      fail("all-gather failed", w->id, k, rc);
      continue;
    }
    for (int q = 0; q < P; q++)
      for (int i = 0; i < count; i++)
        if (all[q * count + i] != q * 1000003 + i * 7 + k) {
          fail("wrong element", w->id, k, 0);
          q = P;
          break;
        }
  }
  free(mine);
  free(all);
  atomic_fetch_sub(&workers_left, 1);
  return NULL;
}

static void *instrument(void *arg) {
  unsigned seed = *(unsigned *)arg;
  while (atomic_load(&workers_left) > 0) {
    if (PAT_ProcessingStart() != MPI_SUCCESS) continue;
    nap_us((unsigned)rand_r(&seed) % 200);
    PAT_Edge(1.0 + (double)(rand_r(&seed) % 98));
    nap_us((unsigned)rand_r(&seed) % 200);
    PAT_ProcessingEnd();
  }
  return NULL;
}

int main(int argc, char **argv) {
  unsigned seed = 1;
  int T = 3, calls = 60;
  double timeout = 60;
  char algs[512] = "native,ring,nex,rdb,bruck,lnbc,bdr,bslb,ard,direct,auto";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--seed")) seed = (unsigned)strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--threads")) T = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--calls")) calls = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--algs")) snprintf(algs, sizeof algs, "%s", argv[i + 1]);
    else if (!strcmp(argv[i], "--timeout")) timeout = atof(argv[i + 1]);
  }
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("stress_threads: MPI_THREAD_MULTIPLE not provided, nothing to test\n");
    MPI_Finalize();
    return 0;
  }
  if (PAT_Init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  if (rank == 0) printf("stress_threads: seed %u, P=%d, %d threads x %d calls per algorithm, algs %s\n", seed, P, T,
                        calls, algs);
  watchdog_start(timeout, "stress_threads");
  worker *w = calloc((size_t)T, sizeof *w);
  pthread_t *t = calloc((size_t)T + 1, sizeof *t);
  for (int i = 0; i < T; i++) MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm); /* same order on every rank */
  int round = 0;
  for (char *save = NULL, *alg = strtok_r(algs, ",", &save); alg; alg = strtok_r(NULL, ",", &save), round++) {
    char what[256];
    snprintf(what, sizeof what, "seed %u round %d alg %s (reproduce: --seed %u --algs %s --threads %d --calls %d)",
             seed, round, alg, seed, alg, T, calls);
    watchdog_enter(what);
    if (PAT_UseAlg(alg) != MPI_SUCCESS) {
      fail("PAT_UseAlg", -1, round, 0);
      continue;
    }
    atomic_store(&workers_left, T);
    for (int i = 0; i < T; i++) {
      w[i].id = i;
      w[i].calls = calls;
      w[i].seed = seed * 7919u + (unsigned)(round * 131 + i);
      w[i].pause = seed * 104729u + (unsigned)(rank * 977 + round * 31 + i);
      pthread_create(&t[i], NULL, work, &w[i]);
    }
    unsigned iseed = seed + (unsigned)rank * 17u + (unsigned)round;
    pthread_create(&t[T], NULL, instrument, &iseed);
    for (int i = 0; i <= T; i++) pthread_join(t[i], NULL);
  }
  watchdog_enter("PAT_Finalize");
  for (int i = 0; i < T; i++) MPI_Comm_free(&w[i].comm);
  long mine = atomic_load(&failures), worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  PAT_Finalize();
  watchdog_stop();
  if (rank == 0) printf("stress_threads: %d rounds, %ld failures\n", round, worst);
  free(w);
  free(t);
  MPI_Finalize();
  return worst ? 1 : 0;
}
