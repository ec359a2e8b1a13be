/*
 * The arrival-aware all-reduces' prediction (PAT_ALLREDUCE=relay, slt, and
 * hrelay on nodes of two ranks, linked with libpat): a blocking call is
 * built for the order of arrival at the communicator's previous one, which
 * every rank learns alike from the arrival stamps gathered beside each
 * call.  Rank d waits LATE_NS before each call (d changes every two calls);
 * after each call every rank holds the same last arrival, d, and the sums
 * of ints are exact whoever was predicted (the first call's default, P - 1,
 * and a wrong one after d changes).  Last, rank r waits (P - 1 - r) x
 * STAGGER_NS: every rank then holds the order P - 1, ..., 0.  The margins
 * are wide for a loaded machine (CI runs two tests at once on 2 cores, and a
 * rank descheduled for longer than the margin arrives out of its order).
 *
 * Under PAT_REPRODUCIBLE=1 (the .reproducible variant) nothing is learned
 * and floats add up to the same bits in every call whoever is late: each
 * call also sums floats whose order matters (values of very different
 * magnitudes), and every call's bits must equal the first's.  Without it
 * RELAY's owners follow the prediction and the bits may differ.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "mpitest.h"
#include "pat.h"
#include "runtime/debug.h"

#define LATE_NS 300000000L    /* rank d's delay: the last arrival by this much */
#define STAGGER_NS 100000000L /* the staggered call's step between ranks */

static long failures, cases;
static int rank, P;

static int value(int r, int i) { return (r * 7 + i * 13) % 1001 - 500; }
/* Floats whose sum depends on the order of the additions: magnitudes from 2^-20 to 2^20. */
static float fvalue(int r, int i) { return ldexpf((float)(((r * 31 + i * 17) % 97) - 48), ((r * 5 + i * 3) % 41) - 20); }

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "");
  PAT_Init();
  MPI_Barrier(MPI_COMM_WORLD); /* the launch's skew is not an arrival */
  const int n = 30000;
  int *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  float *fin = malloc(n * sizeof *fin), *fout = malloc(n * sizeof *fout), *first = malloc(n * sizeof *first);
  for (int i = 0; i < n; i++) in[i] = value(rank, i), fin[i] = fvalue(rank, i);
  const char *env = getenv("PAT_REPRODUCIBLE");
  const int reproducible = env && strcmp(env, "1") == 0;
  for (int call = 0; call < 4; call++) {
    int d = call < 2 ? 0 : P - 1 - (P > 2);
    if (rank == d) nanosleep(&(struct timespec){0, LATE_NS}, NULL);
    int rc = PAT_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), bad = -1;
    for (int i = 0; i < n && bad < 0; i++) {
      long want = 0;
      for (int r = 0; r < P; r++) want += value(r, i);
      if (out[i] != want) bad = i;
    }
    cases++;
    CHECK(rc == MPI_SUCCESS && bad < 0, "call %d (late rank %d): rc %d, element %d wrong", call, d, rc, bad);
    int late = pat_debug_allreduce_late(MPI_COMM_WORLD), lo, hi;
    MPI_Allreduce(&late, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&late, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    cases++;
    CHECK(lo == hi, "call %d: the ranks learned different last arrivals (%d to %d)", call, lo, hi);
    if (reproducible)
      CHECK(late == -1, "call %d: under PAT_REPRODUCIBLE the last arrival %d was learned", call, late);
    else
      CHECK(P == 1 || late == d, "call %d: rank %d waited %ld ms, the last arrival learned is %d", call, d,
          LATE_NS / 1000000, late);
    if (rank == d) nanosleep(&(struct timespec){0, LATE_NS}, NULL);
    rc = PAT_Allreduce(fin, fout, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int bits = -1, far = -1;
    if (call == 0) memcpy(first, fout, n * sizeof *fout);
    for (int i = 0; i < n; i++) {
      double scale = 0;
      for (int r = 0; r < P; r++) scale += fabs((double)fvalue(r, i));
      if (bits < 0 && memcmp(&fout[i], &first[i], sizeof *fout) != 0) bits = i;
      if (far < 0 && fabs((double)fout[i] - (double)first[i]) > 1e-6 * scale) far = i;
    }
    cases++;
    if (reproducible)
      CHECK(rc == MPI_SUCCESS && bits < 0, "call %d (late rank %d): rc %d, float %d not the first call's bits", call,
            d, rc, bits);
    else /* the prediction may change the order of the additions: the sums stay within rounding */
      CHECK(rc == MPI_SUCCESS && far < 0, "call %d (late rank %d): rc %d, float %d far from the first call's", call, d,
            rc, far);
  }
  /* arrivals staggered, rank r (P - 1 - r) x STAGGER_NS late: the whole order learned, the same on every rank */
  const long long stagger = (long long)STAGGER_NS * (P - 1 - rank);
  nanosleep(&(struct timespec){(time_t)(stagger / 1000000000LL), (long)(stagger % 1000000000LL)}, NULL);
  int staggered = PAT_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), order[16], known;
  known = pat_debug_allreduce_order(MPI_COMM_WORLD, order);
  int reversed = known && P <= 16;
  for (int i = 0; reversed && i < P; i++) reversed = order[i] == P - 1 - i;
  cases++;
  if (reproducible)
    CHECK(staggered == MPI_SUCCESS && !known, "staggered: rc %d, an order was learned under PAT_REPRODUCIBLE",
          staggered);
  else
    CHECK(staggered == MPI_SUCCESS && reversed, "staggered: rc %d, the order learned is not P - 1 .. 0 (known %d)",
          staggered, known);
  free(in);
  free(out);
  free(fin);
  free(fout);
  free(first);
  PAT_Finalize();
  int rc = report_failures("test_allreduce_late", cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
