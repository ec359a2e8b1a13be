/*
 * The cost model's parameters, identical on every rank.
 *
 * PAT_MODEL=path: rank 0 reads the model file (made by pat-calibrate and
 * pat-fit), and broadcasts its text; every rank parses the same text, so
 * every rank holds bit-identical parameters.  Without it: a quick ping-pong
 * between world ranks 0 and 1 at PAT_Init gives one (alpha, beta) pair,
 * broadcast from rank 0, used for every algorithm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat/clock.h"
#include "model/fit.h"
#include "runtime/runtime.h"

#define SMALL 8
#define LARGE (1 << 20)
#define REPS 5
#define TAG 7

/* Minimum one-way time for `bytes` between ranks 0 and 1 (rank 0's view). */
static double pingpong(MPI_Comm comm, int rank, char *buf, int bytes) {
  double best = 1e30;
  for (int i = 0; i < REPS; i++) {
    int64_t t0 = pat_clock_local_ns();
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, TAG, comm);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, TAG, comm);
    }
    double one_way = 0.5e-9 * (double)(pat_clock_local_ns() - t0);
    if (one_way < best) best = one_way;
  }
  return best;
}

static int estimate(int P, int rank) {
  double ab[2] = {1e-6, 1.0 / 1e9}; /* a single process: 1 us, 1 GB/s */
  snprintf(pat_rt.model_source, sizeof pat_rt.model_source, "default (single process)");
  if (P > 1) {
    if (rank < 2) {
      char *buf = calloc(1, LARGE);
      if (!buf) return MPI_ERR_NO_MEM;
      pingpong(pat_rt.world, rank, buf, SMALL); /* warm the connection up */
      double t_small = pingpong(pat_rt.world, rank, buf, SMALL);
      double t_large = pingpong(pat_rt.world, rank, buf, LARGE);
      free(buf);
      ab[1] = (t_large - t_small) / (double)(LARGE - SMALL);
      if (ab[1] <= 0) ab[1] = 1e-12;
      ab[0] = t_small - ab[1] * SMALL;
      if (ab[0] < 0) ab[0] = 0;
    }
    int rc = MPI_Bcast(ab, 2, MPI_DOUBLE, 0, pat_rt.world);
    if (rc != MPI_SUCCESS) return rc;
    snprintf(pat_rt.model_source, sizeof pat_rt.model_source,
             "built-in estimate: ping-pong of world ranks 0 and 1 at PAT_Init");
  }
  pat_rt.alpha = ab[0];
  pat_rt.beta = ab[1];
  pat_model_params_init(&pat_rt.model, ab[0], ab[1]);
  return MPI_SUCCESS;
}

/* Rank 0 reads the file; everyone parses the text it broadcasts. */
static int load(const char *path, int rank) {
  char err[512] = "";
  char *text = NULL;
  long len = -1;
  if (rank == 0) {
    pat_model_params mp;
    if (pat_model_read(path, &mp, err, sizeof err) == PAT_OK && (text = pat_model_format(&mp)))
      len = (long)strlen(text) + 1;
  }
  MPI_Bcast(&len, 1, MPI_LONG, 0, pat_rt.world);
  if (len < 0) {
    MPI_Bcast(err, sizeof err, MPI_CHAR, 0, pat_rt.world);
    if (rank == 0) fprintf(stderr, "libpat: PAT_MODEL=%s: %s\n", path, err);
    return pat_fail(MPI_ERR_ARG, "PAT_MODEL=%s: %s", path, err);
  }
  if (rank != 0 && !(text = malloc((size_t)len))) return MPI_ERR_NO_MEM;
  MPI_Bcast(text, (int)len, MPI_CHAR, 0, pat_rt.world);
  pat_model_params mp;
  int rc = pat_model_parse(text, path, &mp, err, sizeof err);
  free(text);
  if (rc != PAT_OK) return pat_fail(MPI_ERR_ARG, "PAT_MODEL=%s: %s", path, err);
  pat_rt.model = mp;
  snprintf(pat_rt.model_source, sizeof pat_rt.model_source, "model file %s (%s)", path,
           mp.made[0] ? mp.made : "no 'made' line");
  return MPI_SUCCESS;
}

int pat_netparams_init(void) {
  int P, rank;
  MPI_Comm_size(pat_rt.world, &P);
  MPI_Comm_rank(pat_rt.world, &rank);
  int rc = estimate(P, rank);
  const char *path = getenv("PAT_MODEL");
  if (rc == MPI_SUCCESS && path && *path) rc = load(path, rank);
  return rc;
}
