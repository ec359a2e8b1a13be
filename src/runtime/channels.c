/* libpat's channels (see channels.h). */
#include "runtime/channels.h"

#include <pthread.h>

#include "runtime/comm.h"

static MPI_Comm channel[PAT_CHANNELS];
static int lent[PAT_CHANNELS];
static int made; /* how many channels exist */
static pthread_mutex_t channels_lock = PTHREAD_MUTEX_INITIALIZER;

int pat_channels_init(MPI_Comm world) {
  int rc = MPI_SUCCESS;
  for (made = 0; made < PAT_CHANNELS && rc == MPI_SUCCESS; made++) {
    rc = pat_comm_private_dup(world, &channel[made]);
    lent[made] = 0;
    if (rc != MPI_SUCCESS) break;
  }
  if (rc != MPI_SUCCESS) pat_channels_finalize();
  return rc;
}

void pat_channels_finalize(void) {
  pthread_mutex_lock(&channels_lock);
  for (int c = 0; c < made; c++)
    if (channel[c] != MPI_COMM_NULL) MPI_Comm_free(&channel[c]);
  made = 0;
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
