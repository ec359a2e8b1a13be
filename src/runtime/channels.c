/* libpat's channels (see channels.h). */
#include "runtime/channels.h"

#include <pthread.h>
#include <stdlib.h>


static MPI_Comm *channel;
static int *lent;
static int made; /* how many channels exist */
static pthread_mutex_t channels_lock = PTHREAD_MUTEX_INITIALIZER;

int pat_channels_init(MPI_Comm world, int count) {
  channel = calloc((size_t)count, sizeof *channel);
  lent = calloc((size_t)count, sizeof *lent);
  /* every rank fails alike, or none: the duplicates below are collective */
  int ok = channel && lent, all_ok = 0;
  int rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
  if (rc == MPI_SUCCESS && !all_ok) rc = MPI_ERR_NO_MEM;
  for (made = 0; made < count && rc == MPI_SUCCESS; made++) {
    rc = pat_private_dup(world, &channel[made]);
    if (rc != MPI_SUCCESS) break;
  }
  if (rc != MPI_SUCCESS) pat_channels_finalize();
  return rc;
}

int pat_channels_count(void) { return made; }

void pat_channels_finalize(void) {
  pthread_mutex_lock(&channels_lock);
  for (int c = 0; c < made; c++)
    if (channel[c] != MPI_COMM_NULL) MPI_Comm_free(&channel[c]);
  made = 0;
  free(channel);
  free(lent);
  channel = NULL;
  lent = NULL;
  pthread_mutex_unlock(&channels_lock);
}

int pat_channel_take(void) {
  int taken = -1;
  pthread_mutex_lock(&channels_lock);
  for (int c = 0; c < made && taken < 0; c++)
    if (!lent[c]) {
      lent[c] = 1;
      taken = c;
    }
  pthread_mutex_unlock(&channels_lock);
  return taken;
}

void pat_channel_give(int c) {
  pthread_mutex_lock(&channels_lock);
  if (c >= 0 && c < made) lent[c] = 0;
  pthread_mutex_unlock(&channels_lock);
}

MPI_Comm pat_channel_comm(int c) { return c >= 0 && c < made ? channel[c] : MPI_COMM_NULL; }

int pat_private_dup(MPI_Comm comm, MPI_Comm *out) {
  MPI_Group group;
  int rc = MPI_Comm_group(comm, &group);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Comm_create_group(comm, group, PAT_CREATE_GROUP_TAG, out);
  MPI_Group_free(&group);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
}
