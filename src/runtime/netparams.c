/* The cost model's parameters (see netparams.h). */
#include "runtime/netparams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_file.h"
#include "pat/clock.h"
#include "runtime/errors.h"

static pat_model_params model;
static char source[512];
static int have_model; /* a model file (or a unit test's parameters), not the ping-pong estimate */
static double pingpong_beta; /* s/B of PAT_Init's ping-pong, 0 without one */

const pat_model_params *pat_netparams(void) { return &model; }
void pat_netparams_set_pace(double s_per_byte) { model.pace_beta = s_per_byte > 0 ? s_per_byte : 0; }
int pat_netparams_have_model(void) { return have_model; }
double pat_netparams_pingpong_beta(void) { return have_model ? 0 : pingpong_beta; }
const char *pat_netparams_source(void) { return source; }

#define SMALL 8
#define LARGE (1 << 20)
#define REPS 5
#define TAG 7

/* Minimum one-way time for `bytes` between rank 0 and peer (rank 0's view). */
static double pingpong(MPI_Comm comm, int rank, int peer, char *buf, int bytes) {
  double best = 1e30;
  for (int i = 0; i < REPS; i++) {
    int64_t t0 = pat_clock_local_ns();
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, peer, TAG, comm);
      MPI_Recv(buf, bytes, MPI_BYTE, peer, TAG, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, TAG, comm);
    }
    double one_way = 0.5e-9 * (double)(pat_clock_local_ns() - t0);
    if (one_way < best) best = one_way;
  }
  return best;
}

/* (alpha, beta) from rank 0 and the other one, peer; ok = 0 if either could not allocate. */
static void measure(MPI_Comm world, int rank, int peer, double ab[3]) {
  char *buf = calloc(1, LARGE);
  int ok = buf != NULL, peer_ok = 0;
  /* both sides must know before ping-ponging, or one would wait forever */
  MPI_Sendrecv(&ok, 1, MPI_INT, peer, TAG, &peer_ok, 1, MPI_INT, peer, TAG, world, MPI_STATUS_IGNORE);
  ab[2] = ok && peer_ok;
  if (ab[2]) {
    pingpong(world, rank, peer, buf, SMALL); /* warm the connection up */
    double t_small = pingpong(world, rank, peer, buf, SMALL);
    double t_large = pingpong(world, rank, peer, buf, LARGE);
    ab[1] = (t_large - t_small) / (double)(LARGE - SMALL);
    if (ab[1] <= 0) ab[1] = 1e-12;
    ab[0] = t_small - ab[1] * SMALL;
    if (ab[0] < 0) ab[0] = 0;
  }
  free(buf);
}

static int estimate(MPI_Comm world, int P, int rank, int partner) {
  double ab[3] = {1e-6, 1.0 / 1e9, 1}; /* alpha, beta, ok; a single process: 1 us, 1 GB/s */
  have_model = 0;
  pingpong_beta = 0;
  snprintf(source, sizeof source, "default (single process)");
  if (P > 1) {
    if (partner < 1 || partner >= P) partner = 1;
    if (rank == 0 || rank == partner) measure(world, rank, rank == 0 ? partner : 0, ab);
    int rc = MPI_Bcast(ab, 3, MPI_DOUBLE, 0, world);
    if (rc != MPI_SUCCESS) return rc;
    if (!ab[2]) return pat_fail(MPI_ERR_NO_MEM, "PAT_Init: no memory for the network ping-pong");
    snprintf(source, sizeof source, "built-in estimate: ping-pong of world ranks 0 and %d at PAT_Init", partner);
    pingpong_beta = ab[1];
  }
  pat_model_params_init(&model, ab[0], ab[1]);
  return MPI_SUCCESS;
}

/* Was mp calibrated on another shape than the job's (P ranks on nodes nodes, placed as placement: netparams.h)?
 * Then warning says so (after the file's name) and reason in short.  Every rank parsed the same text and has the
 * same world map: all decide alike. */
static int another_shape(const pat_model_params *mp, int P, int nodes, uint64_t placement, char *warning,
                         size_t wlen, char *reason, size_t rlen) {
  if (mp->calib_nodes > 0 && nodes > 0 && mp->calib_nodes != nodes) {
    snprintf(warning, wlen, "was calibrated on %d nodes, this job runs on %d: left out (calibrate on this shape)",
             mp->calib_nodes, nodes);
    snprintf(reason, rlen, "calibrated on %d nodes, the job on %d", mp->calib_nodes, nodes);
    return 1;
  }
  if (mp->calib_placement && placement && mp->measured.P == P && mp->calib_placement != placement) {
    snprintf(warning, wlen, "was calibrated on %d ranks placed otherwise on their nodes: left out (its measured "
             "times are another placement's; calibrate on this one)", P);
    snprintf(reason, rlen, "calibrated on another placement");
    return 1;
  }
  return 0;
}

/* Rank 0 reads the file; everyone parses the text it broadcasts. */
static int load(MPI_Comm world, const char *path, int P, int rank, int nodes, uint64_t placement) {
  char err[512] = "";
  char *text = NULL;
  long len = -1;
  if (rank == 0) {
    pat_model_params mp;
    if (pat_model_read(path, &mp, err, sizeof err) == PAT_OK && (text = pat_model_format(&mp)))
      len = (long)strlen(text) + 1;
  }
  MPI_Bcast(&len, 1, MPI_LONG, 0, world);
  if (len < 0) { /* err says "path:line: what" */
    MPI_Bcast(err, sizeof err, MPI_CHAR, 0, world);
    if (rank == 0) fprintf(stderr, "libpat: PAT_MODEL: %s\n", err);
    return pat_fail(MPI_ERR_ARG, "PAT_MODEL: %s", err);
  }
  if (rank != 0) text = malloc((size_t)len);
  int ok = text != NULL, all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world); /* nobody waits for a rank that gave up */
  if (!all_ok) {
    free(text);
    return pat_fail(MPI_ERR_NO_MEM, "PAT_MODEL: no memory for the model text");
  }
  MPI_Bcast(text, (int)len, MPI_CHAR, 0, world);
  pat_model_params mp;
  int rc = pat_model_parse(text, path, &mp, err, sizeof err);
  free(text);
  if (rc != PAT_OK) return pat_fail(MPI_ERR_ARG, "PAT_MODEL: %s", err);
  char warning[160], reason[96];
  if (another_shape(&mp, P, nodes, placement, warning, sizeof warning, reason, sizeof reason)) {
    if (rank == 0) fprintf(stderr, "libpat: PAT_MODEL: %s %s\n", path, warning);
    snprintf(source + strlen(source), sizeof source - strlen(source), "; model file %s left out (%s)", path, reason);
    return MPI_SUCCESS;
  }
  model = mp;
  have_model = 1;
  snprintf(source, sizeof source, "model file %s (%s)", path, mp.made[0] ? mp.made : "no 'made' line");
  return MPI_SUCCESS;
}

int pat_netparams_init(MPI_Comm world, const char *model_path, int partner, int nodes, uint64_t placement) {
  int P, rank;
  MPI_Comm_size(world, &P);
  MPI_Comm_rank(world, &rank);
  int rc = estimate(world, P, rank, partner);
  /* rank 0's setting holds: tell the others whether there is a file */
  int have_file = rank == 0 && model_path[0];
  if (rc == MPI_SUCCESS) rc = MPI_Bcast(&have_file, 1, MPI_INT, 0, world);
  if (rc == MPI_SUCCESS && have_file) rc = load(world, model_path, P, rank, nodes, placement);
  return rc;
}
