/*
 * The persistent all-gathers' and all-reduce's calls a test makes, by the
 * names of the API under test: MPI's (an unmodified program under
 * libpat_mpi, tests/dropin: PAT_MATRIX_DROPIN; Open MPI 4.1 names the
 * set-ups MPIX_, mpi-ext.h) or libpat's own PAT_.
 */
#ifndef PAT_TEST_PERSISTENT_CALLS_H
#define PAT_TEST_PERSISTENT_CALLS_H

#include <mpi.h>

#ifdef PAT_MATRIX_DROPIN
#if defined(OPEN_MPI)
#include <mpi-ext.h> /* MPIX_Allgather(v)_init: Open MPI 4.1's pcollreq extension */
#define ALLGATHER_INIT MPIX_Allgather_init
#define ALLGATHERV_INIT MPIX_Allgatherv_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#else
#define ALLGATHER_INIT MPI_Allgather_init
#define ALLGATHERV_INIT MPI_Allgatherv_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#endif
#define START MPI_Start
#define STARTALL MPI_Startall
#define REQUEST_FREE MPI_Request_free
#else
#include "pat.h"
#define ALLGATHER_INIT PAT_Allgather_init
#define ALLGATHERV_INIT PAT_Allgatherv_init
#define ALLREDUCE_INIT PAT_Allreduce_init
#define START PAT_Start
#define STARTALL PAT_Startall
#define REQUEST_FREE PAT_Request_free
#endif

#endif
