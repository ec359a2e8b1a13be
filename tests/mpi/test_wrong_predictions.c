/*
 * Arrival-aware algorithms stay correct whatever the prediction: the
 * slowest rank predicted fastest, random permutations, all equal, the truth,
 * and predictions contradicted by seconds; a root that arrives last; in
 * every case the result is compared element by element.
 *
 * usage: test_wrong_predictions ALG...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

static long failures, cases;
static int rank, P;

enum { TRUTH, REVERSED, PERMUTED, EQUAL, SECONDS_OFF, NMODES };
static const char *mode_names[] = {"truth", "reversed", "permuted", "equal", "seconds-off"};
static int mode;
static double delay_ms[256]; /* this call's actual delays, known to every rank */
static int perm[256];

/* Replace this rank's honest prediction by the mode's lie. */
static int64_t lie(int r, int p, int64_t seq, int64_t predicted) {
  (void)p;
  (void)seq;
  int64_t base = predicted - (int64_t)(delay_ms[r] * 1e6), max = 0;
  for (int q = 0; q < P; q++)
    if (delay_ms[q] > max) max = (int64_t)delay_ms[q];
  switch (mode) {
    case REVERSED: return base + (int64_t)((max - delay_ms[r]) * 1e6);
    case PERMUTED: return base + (int64_t)(delay_ms[perm[r]] * 1e6);
    case EQUAL: return base;
    case SECONDS_OFF: return predicted + (r % 2 ? -3000000000LL : 2000000000LL);
    default: return predicted;
  }
}

static void one_call(const char *alg, int n, int iter, MPI_Comm comm) {
  int p, r;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &r);
  float *mine = malloc(n * sizeof *mine), *all = malloc((size_t)n * p * sizeof *all);
  for (int i = 0; i < n; i++) mine[i] = (float)(r * 100000 + i % 1000 + iter);
  memset(all, 0, (size_t)n * p * sizeof *all);
  MPI_Barrier(comm);
  PAT_ProcessingStart();
  sleep_ms(delay_ms[rank] / 2);
  PAT_Edge(50);
  sleep_ms(delay_ms[rank] / 2);
  PAT_ProcessingEnd();
  int rc = PAT_Allgather(mine, n, MPI_FLOAT, all, n, MPI_FLOAT, comm), wrong = 0;
  for (int q = 0; q < p && rc == MPI_SUCCESS; q++)
    for (int i = 0; i < n; i++) wrong += all[q * n + i] != (float)(q * 100000 + i % 1000 + iter);
  cases++;
  if (rc != MPI_SUCCESS || wrong) {
    failures++;
    fprintf(stderr, "FAIL rank %d: %s mode %s iter %d n %d: rc=%d (%s), %d wrong\n", rank, alg, mode_names[mode],
            iter, n, rc, PAT_Error_string(rc), wrong);
  }
  free(mine);
  free(all);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, NULL);
  PAT_Init();
  pat_test_prediction_hook = lie;
  unsigned shared = 2024; /* identical on every rank */
  for (int a = 1; a < argc; a++) {
    if (PAT_UseAlg(argv[a]) != MPI_SUCCESS) {
      failures++;
      continue;
    }
    for (mode = 0; mode < NMODES; mode++) {
      int iters = mode == SECONDS_OFF ? 2 : 6;
      for (int it = 0; it < iters; it++) {
        for (int q = 0; q < P; q++) {
          delay_ms[q] = (double)(rand_r(&shared) % 20);
          perm[q] = q;
        }
        for (int q = P - 1; q > 0; q--) {
          int j = rand_r(&shared) % (q + 1), t = perm[q];
          perm[q] = perm[j];
          perm[j] = t;
        }
        /* really late (25x the others' spread), predicted early; 2 s took CI 8 s a launch and reached no other path */
        if (mode == SECONDS_OFF && it == 1) delay_ms[P - 1] = 500;
        if (it == iters - 1) delay_ms[0] = 60;                       /* the root (rank 0) arrives last */
        /* runs of one size (so the background can plan), and size changes (so it must replan) */
        int n = it < iters / 2 ? 65536 : (it < iters - 1 ? 777 : 1);
        one_call(argv[a], n, it, MPI_COMM_WORLD);
      }
    }
  }
  PAT_Stats st;
  PAT_GetStats(&st);
  long long bg = st.bg_steps, bg_total = 0;
  MPI_Allreduce(&bg, &bg_total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("schedule steps completed by background threads: %lld\n", bg_total);
  /* with real imbalance the late ranks must have received in the background */
  cases++;
  if (P > 2 && bg_total == 0) {
    failures++;
    if (rank == 0) fprintf(stderr, "FAIL: no background step at all\n");
  }
  char title[64];
  snprintf(title, sizeof title, "wrong predictions, P=%d", P);
  int bad = report_failures(title, cases, failures, MPI_COMM_WORLD);
  PAT_Finalize();
  MPI_Finalize();
  return bad;
}
