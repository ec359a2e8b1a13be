/* Shutting libpat down at the start of MPI_Finalize (see finalize_hook.h). */
#include "runtime/finalize_hook.h"

#include <mpi.h>
#include <stdio.h>

#include "runtime/process.h"

static int self_key = MPI_KEYVAL_INVALID;
static void (*shut_down_fn)(void);

static int at_mpi_finalize(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm;
  (void)key;
  (void)value;
  (void)extra;
  if (!pat_proc.initialized) return MPI_SUCCESS; /* PAT_Finalize was called: the usual case */
  if (pat_proc.world_rank == 0) {
    fprintf(stderr, "libpat: MPI_Finalize without PAT_Finalize: libpat shuts down now (call PAT_Finalize before "
                    "MPI_Finalize)\n");
    fflush(stderr);
  }
  shut_down_fn();
  return MPI_SUCCESS;
}

int pat_finalize_hook_install(void (*shut_down)(void)) {
  shut_down_fn = shut_down;
  /* once per process: the attribute stays until MPI_Finalize, and the
   * callback does nothing if libpat is not running then */
  if (self_key != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
  int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_mpi_finalize, &self_key, NULL);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL);
  return rc;
}
