/*
 * libpat_mpi: libpat under an unmodified MPI program, through the MPI
 * profiling interface.  Link it before the MPI library (-lpat_mpi) or load it
 * with `mpirun -x LD_PRELOAD=/path/libpat_mpi.so prog`; either way its
 * definitions of the functions below come first, and everything else is
 * the MPI library's own.
 *
 *   MPI_Init, MPI_Init_thread  PMPI_Init_thread asking for MPI_THREAD_MULTIPLE
 *                              (libpat's background thread needs it), then
 *                              PAT_Init.  The application is told the level it
 *                              asked for (never more than MPI gave).
 *   MPI_Query_thread           that same level.
 *   MPI_Allgather              PMPI_Allgather where libpat's gate says the call
 *                              passes through (runtime/through.h: MPI raises its
 *                              own errors then), else PAT_Allgather (which calls
 *                              PMPI_Allgather itself for the native algorithm and
 *                              inter-communicators).
 *   MPI_Allgatherv             the same with PMPI_Allgatherv and PAT_Allgatherv.
 *   MPI_Iallgather(v)          PMPI_Iallgather(v) where the gate says every
 *                              non-blocking all-gather is MPI's own (no
 *                              background thread, or native: through.h), else
 *                              PAT_Iallgather(v): a request MPI's own MPI_Wait,
 *                              MPI_Test... complete.
 *   MPI_(I)allreduce           PMPI_(I)allreduce where the gate says the call is
 *                              MPI's own whatever its arguments (PAT_ALLREDUCE
 *                              auto or native: through.h), else PAT_(I)allreduce.
 *   MPI_Allgather(v)_init,     PAT_Allgather(v)_init, PAT_Allreduce_init (MPIX_
 *   MPI_Allreduce_init         in Open MPI 4.1): libpat's persistent requests.
 *   MPI_Start(all), MPI_Cancel PAT_Start(all), PAT_Cancel: libpat's persistent
 *                              requests refused where MPI says the call is
 *                              erroneous (MPI_ERR_REQUEST), others MPI's own.
 *   MPI_Finalize               PAT_Finalize (stops the thread), then PMPI_Finalize.
 *
 * Thread levels.  A level is a promise the application makes about its own
 * threads; libpat's thread is libpat's business, and MPI_THREAD_MULTIPLE
 * makes it legal whatever the application does.  So the thread runs for
 * MPI_Init and for every level the application asks for (as an MPI library's
 * own progress thread would), provided MPI grants MULTIPLE; if it does not,
 * PAT_Init says so once and libpat runs without it.  PAT_THREAD=0 opts out:
 * then MPI is initialised with exactly the application's level and libpat
 * runs in the foreground only.
 *
 * If PAT_Init fails on any rank (a bad PAT_ALG, say), every rank falls back
 * to the MPI library's own MPI_Allgather and MPI_Allgatherv, and the first
 * failing rank says why.  Before MPI_Init and after MPI_Finalize every call is
 * MPI's own, so MPI reports the misuse exactly as it would without libpat.
 * Errors of PAT_Allgather and PAT_Allgatherv go to the communicator's error
 * handler, as MPI's would, once: where libpat ran MPI's own, MPI raised it.
 *
 * The Fortran bindings (fortran_mpif.c, fortran_f08.c) reach the same code
 * through the dropin_* entry points of dropin.h, so a Fortran call is
 * handled exactly as a C one.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dropin/dropin.h"
#include "pat.h"
#include "runtime/errors.h"
#include "runtime/settings.h"
#include "runtime/through.h"

static int pat_on;          /* PAT_Init succeeded on every rank: MPI_Allgather(v) is libpat's */
static int app_level = -1;  /* the thread level the application was told, -1 outside MPI */
/* This thread is in PAT_Allgather(v): MPI_Allgather(v) is MPI's.  Read on every
 * call: initial-exec, a plain load instead of a __tls_get_addr call (this
 * library is loaded with the program, as an interposer of MPI must be). */
static _Thread_local int inside __attribute__((tls_model("initial-exec")));

/* The settings as this process reads them before MPI_Init (PAT_Init reads
 * them again, and fails on every rank, with a message, if one is bad). */
static pat_settings early;

/* PAT_Init on every rank; libpat is used only if it started everywhere
 * (ranks using different all-gathers would not match). */
static void start_pat(int mpi_level) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = PAT_Init();
  int failed = rc != MPI_SUCCESS, nfailed = 0, me = failed ? rank : INT_MAX, first = INT_MAX;
  PMPI_Allreduce(&failed, &nfailed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (nfailed > 0) {
    PMPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == first)
      fprintf(stderr,
              "libpat_mpi: PAT_Init failed on %d of %d processes (world rank %d: %s); MPI_Allgather and "
              "MPI_Allgatherv are the MPI library's own in this run\n",
              nfailed, size, rank, PAT_Error_string(rc));
    if (!failed) PAT_Finalize();
    return;
  }
  pat_on = 1;
  if (rank == 0 && early.verbose >= 1)
    fprintf(stderr,
            "libpat_mpi: MPI_Allgather and MPI_Allgatherv go through libpat (PAT_ALG=%s); the application has %s, MPI "
            "provides %s\n",
            PAT_AlgName(early.alg) ? PAT_AlgName(early.alg) : "auto", pat_thread_level_name(app_level),
            pat_thread_level_name(mpi_level));
}

/* The launcher says every rank of the job is on this node (Open MPI's and
 * MPICH Hydra's environment; 0 when it does not say), and PAT_NODE_SIZE does
 * not cut it into several: PAT_Init counts PAT_NODE_SIZE's nodes, and would
 * want the thread that MPI_THREAD_MULTIPLE, not asked for, then denies it. */
static int launched_on_one_node(void) {
  static const char *const pairs[][2] = {{"OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE"},
                                         {"MPI_LOCALNRANKS", "PMI_SIZE"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const char *local = getenv(pairs[i][0]), *all = getenv(pairs[i][1]);
    if (local && all && *local)
      return strcmp(local, all) == 0 && (early.node_size == 0 || early.node_size >= atoi(all));
  }
  return 0;
}

/* MPI_THREAD_MULTIPLE is for the background thread; a one-node job under
 * auto runs none (PAT_ONE_NODE, runtime.c), and on one node the level itself
 * costs (BENCHMARKS.md, Balanced calls through the drop-in), so it is not asked for. */
static int wants_thread(void) {
  return early.thread && !(pat_settings_defer_one_node(&early) && launched_on_one_node());
}

static int init(int *argc, char ***argv, int required, int *provided) {
  char ignored[512];
  pat_settings_read(&early, ignored, sizeof ignored);
  int want = required;
  if (wants_thread() && required >= MPI_THREAD_SINGLE && required < MPI_THREAD_MULTIPLE)
    want = MPI_THREAD_MULTIPLE;
  int got = MPI_THREAD_SINGLE;
  int rc = PMPI_Init_thread(argc, argv, want, &got);
  if (rc != MPI_SUCCESS) return rc;
  /* as much as the application asked for, never more than MPI gave; what
   * MPI chose if the request went through unchanged */
  app_level = want == required ? got : (got < required ? got : required);
  if (provided) *provided = app_level;
  start_pat(got);
  return MPI_SUCCESS;
}

int dropin_init_thread(int *argc, char ***argv, int required, int *provided) {
  return init(argc, argv, required, provided);
}

int dropin_query_thread(int *provided) {
  if (app_level < 0 || !provided) return PMPI_Query_thread(provided);
  *provided = app_level;
  return MPI_SUCCESS;
}

int dropin_finalize(void) {
  if (pat_on) {
    pat_on = 0;
    PAT_Finalize();
  }
  app_level = -1;
  return PMPI_Finalize();
}

int MPI_Init(int *argc, char ***argv) {
  int provided;
  return init(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return init(argc, argv, required, provided);
}

int MPI_Query_thread(int *provided) { return dropin_query_thread(provided); }

int MPI_Finalize(void) { return dropin_finalize(); }

/* Hand a failure of the MPI function `call` to the communicator's error
 * handler, as MPI does (an invalid communicator: MPI_COMM_WORLD's, as Open
 * MPI does). */
static int raise_error(const char *call, MPI_Comm comm, int rc) {
  if (pat_error_raised(rc)) return rc; /* MPI's own failed, and raised it on comm itself */
  MPI_Comm where = comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Comm_get_errhandler(where, &eh) == MPI_SUCCESS) {
    if (eh == MPI_ERRORS_ARE_FATAL) fprintf(stderr, "libpat_mpi: %s: %s\n", call, PAT_Error_string(rc));
    PMPI_Errhandler_free(&eh);
  }
  PMPI_Comm_call_errhandler(where, rc);
  return rc;
}

int dropin_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) {
  if (!pat_on || inside || pat_allgather_through(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  inside = 1;
  int rc = PAT_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  inside = 0;
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Allgather", comm, rc);
}

int dropin_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (!pat_on || inside ||
      pat_allgatherv_through(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  inside = 1;
  int rc = PAT_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  inside = 0;
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Allgatherv", comm, rc);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return dropin_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return dropin_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int dropin_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  if (!pat_on || inside || pat_iallgather_through(comm, 0))
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  inside = 1;
  int rc = PAT_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  inside = 0;
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Iallgather", comm, rc);
}

int dropin_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request) {
  if (!pat_on || inside || pat_iallgather_through(comm, 1))
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
  inside = 1;
  int rc = PAT_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
  inside = 0;
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Iallgatherv", comm, rc);
}

int dropin_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
  if (!pat_on || inside || pat_allreduce_through(op))
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  inside = 1;
  int rc = PAT_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  inside = 0;
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Allreduce", comm, rc);
}

int dropin_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Request *request) {
  if (!pat_on || inside || pat_allreduce_through(op))
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  inside = 1;
  int rc = PAT_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  inside = 0;
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Iallreduce", comm, rc);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return dropin_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  return dropin_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return dropin_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  return dropin_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}

/* Persistent all-gathers and all-reduces: PAT_Allgather(v)_init and
 * PAT_Allreduce_init under the names each MPI gives them (MPI 4's
 * MPI_Allgather(v)_init and MPI_Allreduce_init in MPICH 4; Open MPI 4.1's
 * MPIX_ ones from its pcollreq extension, mpi-ext.h), and MPI_Start,
 * MPI_Startall, MPI_Request_free and MPI_Cancel, which PAT_Start(all),
 * PAT_Request_free and PAT_Cancel take for libpat's requests and hand to
 * MPI for others.  An all-reduce whose starts run MPI's own (auto, native,
 * a user-defined op) is libpat's request all the same: MPI's own persistent
 * collectives are no stand-in (persist.c). */
#if defined(OPEN_MPI)
#define PERSISTENT_NAME(name) MPIX_##name
#define PMPI_PERSISTENT_NAME(name) PMPIX_##name
int PMPIX_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPIX_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request);
int MPIX_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPIX_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request);
int PMPIX_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPIX_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
#else
#define PERSISTENT_NAME(name) MPI_##name
#define PMPI_PERSISTENT_NAME(name) PMPI_##name
#endif

int dropin_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  if (!pat_on)
    return PMPI_PERSISTENT_NAME(Allgather_init)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                                request);
  int rc = PAT_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Allgather_init", comm, rc);
}

int dropin_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request) {
  if (!pat_on)
    return PMPI_PERSISTENT_NAME(Allgatherv_init)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                                 comm, info, request);
  int rc = PAT_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                               request);
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Allgatherv_init", comm, rc);
}

int dropin_allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  if (!pat_on)
    return PMPI_PERSISTENT_NAME(Allreduce_init)(sendbuf, recvbuf, count, datatype, op, comm, info, request);
  int rc = PAT_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request);
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Allreduce_init", comm, rc);
}

/* A request's errors go to MPI_COMM_WORLD's handler, where MPI raises its
 * own MPI_Start's and MPI_Cancel's (a request has no handler; Open MPI 4.1
 * and MPICH 4.0 both take world's). */
int dropin_start(MPI_Request *request) {
  if (!pat_on) return PMPI_Start(request);
  int rc = PAT_Start(request);
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Start", MPI_COMM_WORLD, rc);
}

int dropin_startall(int count, MPI_Request requests[]) {
  if (!pat_on) return PMPI_Startall(count, requests);
  int rc = PAT_Startall(count, requests);
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Startall", MPI_COMM_WORLD, rc);
}

int dropin_cancel(MPI_Request *request) {
  if (!pat_on) return PMPI_Cancel(request);
  int rc = PAT_Cancel(request);
  return rc == MPI_SUCCESS ? rc : raise_error("MPI_Cancel", MPI_COMM_WORLD, rc);
}

int dropin_request_free(MPI_Request *request) {
  return pat_on ? PAT_Request_free(request) : PMPI_Request_free(request);
}

int PERSISTENT_NAME(Allgather_init)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request) {
  return dropin_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}

int PERSISTENT_NAME(Allgatherv_init)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request) {
  return dropin_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                request);
}

int PERSISTENT_NAME(Allreduce_init)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return dropin_allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

int MPI_Start(MPI_Request *request) { return dropin_start(request); }

int MPI_Startall(int count, MPI_Request requests[]) { return dropin_startall(count, requests); }

int MPI_Request_free(MPI_Request *request) { return dropin_request_free(request); }

int MPI_Cancel(MPI_Request *request) { return dropin_cancel(request); }
