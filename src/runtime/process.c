/* The process's state (see process.h). */
#include "runtime/process.h"

pat_process pat_proc = {.world = MPI_COMM_NULL};
