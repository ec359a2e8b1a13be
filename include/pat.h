/*
 * libpat: MPI all-gather that stays fast when processes arrive at different
 * times (imbalanced process arrival patterns).
 *
 * Typical use in an iterative code:
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *   PAT_Init();
 *   for (...) {
 *     PAT_ProcessingStart();
 *     compute_first_half();
 *     PAT_Edge(50.0);               // "half of the compute phase is done"
 *     compute_second_half();
 *     PAT_ProcessingEnd();
 *     PAT_Allgather(mine, n, MPI_FLOAT, all, n, MPI_FLOAT, comm);
 *   }
 *   PAT_Finalize();
 *   MPI_Finalize();
 *
 * Every function returns an MPI error code (MPI_SUCCESS on success) and never
 * aborts on a user error; PAT_Error_string describes the last failure.
 */
#ifndef PAT_H
#define PAT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAT_VERSION_MAJOR 0
#define PAT_VERSION_MINOR 1
#define PAT_VERSION_PATCH 0

/* Start the runtime (after MPI_Init/MPI_Init_thread) and stop it (before
 * MPI_Finalize).  Settings come from the environment (see docs/settings.md). */
int PAT_Init(void);
int PAT_Finalize(void);
int PAT_Initialized(int *flag);

/* Choose the all-gather algorithm for this process by name: "auto",
 * "native", "ring", "nex", "rdb", "bruck", "lnbc", "bdr", "bslb", "ard",
 * "direct".
 * Overrides the PAT_ALG environment variable.  All ranks of a communicator
 * must use the same algorithm. */
int PAT_UseAlg(const char *name);

/* Compute-phase instrumentation: mark the start of the compute phase, a
 * progress milestone (0 < percent < 100) and its end.  The background thread
 * predicts this process's arrival at the next all-gather from them. */
int PAT_ProcessingStart(void);
int PAT_Edge(double percent);
int PAT_ProcessingEnd(void);

/* The predictions of the compute phases that follow are for the next
 * all-gather on comm, not on the communicator of this process's last
 * PAT_Allgather or PAT_Allgatherv (the default), until the next such call
 * makes its communicator the one again.  For a program that alternates
 * communicators (pat-minibench runs each algorithm on its own).  Collective
 * over comm the first time libpat sees comm; an inter-communicator is
 * ignored (its all-gathers are MPI's). */
int PAT_PredictOn(MPI_Comm comm);

/* MPI_Allgather, with identical semantics and arguments. */
int PAT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Allgatherv, with identical semantics and arguments: block j is
 * recvcounts[j] elements of recvtype at recvbuf + displs[j] * extent, in any
 * order, with gaps (left untouched) and zero counts on any rank.  The
 * algorithm is the process's setting (PAT_ALG, PAT_UseAlg): "native" runs
 * the MPI library's own MPI_Allgatherv; a classic algorithm runs its
 * schedule on the user's buffers; an arrival-aware one (bdr, bslb, ard,
 * relay) runs the schedule it builds for balanced arrivals, on packed bytes,
 * without an exchange; "auto" runs equal counts as PAT_Allgather would
 * (exchanges and plans ahead included, MPI's own being MPI_Allgatherv) and
 * chooses for unequal ones among MPI's own, the classic ones and relay from
 * the counts and the model file, without an exchange (MPI's own without a
 * model file; docs/settings.md). */
int PAT_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Iallgather and MPI_Iallgatherv, with identical semantics and
 * arguments: *request completes through MPI's own MPI_Wait, MPI_Test,
 * MPI_Waitall, MPI_Testany... (a generalized request), and must be waited
 * for or tested to completion (as MPI says of a non-blocking collective,
 * it cannot be cancelled, and freeing it while active is erroneous).
 * Every rank of comm posts its non-blocking all-gathers in the same order.
 * Under an algorithm's setting (PAT_ALG, PAT_UseAlg) libpat's background
 * thread runs its schedule while the caller goes on, without the
 * application calling MPI (relay and hrelay start ahead of a call whose
 * blocks are the last call's); under auto, blocks of 64 KiB or more over
 * several nodes run relay or hrelay so (relay or direct, by measurement,
 * with a node per rank), smaller ones MPI's own; under
 * native, on inter-communicators and without the background thread, the
 * MPI library's own MPI_Iallgather(v) runs (docs/usage.md). */
int PAT_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PAT_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/* MPI_Allreduce and MPI_Iallreduce, with their semantics (MPI_IN_PLACE
 * too).  PAT_ALLREDUCE chooses (the same on every rank): an all-reduce
 * algorithm of libpat's (rdb, ring, rabenseifner) runs its schedule for a
 * predefined op, with the background thread, on an intra-communicator of
 * several processes; auto measures MPI's own against ring and
 * rabenseifner per size class on communicators over several nodes and
 * keeps the faster; every other call, and native, run the MPI library's
 * own (no arrival-aware all-reduce yet: docs/usage.md).  Every
 * rank gets the same bits.  The blocking call is the non-blocking one and
 * its wait, the caller progressing it. */
int PAT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PAT_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request);

/* Persistent all-gathers: MPI_Allgather_init and MPI_Allgatherv_init, with
 * their arguments (collective: libpat duplicates comm).  *request is a
 * persistent request of MPI's own, which MPI_Wait, MPI_Test, MPI_Waitall...
 * complete and leave inactive, as MPI's persistent requests; but it is
 * started with PAT_Start or PAT_Startall (MPI_Start would start only the
 * request, not the call) and freed with PAT_Request_free (which
 * take MPI's own requests too, and hand them to MPI_Start(all) and
 * MPI_Request_free).  libpat_mpi does this for MPI_Start, MPI_Startall and
 * MPI_Request_free.  Every rank starts a communicator's persistent and
 * non-blocking all-gathers in the same order.  info is ignored.  Each start
 * runs as PAT_Iallgather(v) does on the same arguments; without the
 * background thread PAT_Start runs the whole call before it returns. */
int PAT_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PAT_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request);
/* MPI_Allreduce_init, the same way (MPI_IN_PLACE too; the datatype kept as
 * a duplicate, the op by its handle: MPI has it stay valid until the
 * request is freed).  What every start runs is chosen at the set-up, as
 * PAT_Iallreduce would choose there: PAT_ALLREDUCE's schedule, under auto
 * the size class's choice if the blocking calls on comm made it before,
 * else (a user-defined op too) the MPI library's own MPI_Iallreduce. */
int PAT_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request);
int PAT_Start(MPI_Request *request);
int PAT_Startall(int count, MPI_Request requests[]);
int PAT_Request_free(MPI_Request *request);
/* MPI_Cancel for libpat's requests too: a persistent all-gather's or
 * all-reduce's, active or not, is refused (MPI_ERR_REQUEST: a collective
 * cannot be cancelled; MPI's own MPI_Cancel would cancel the request's
 * receive and leave the call running); others go to MPI_Cancel, which
 * refuses a non-blocking all-gather's the same way.  Starting an active
 * persistent call (PAT_Start, PAT_Startall) is refused too, and
 * PAT_Startall then starts none.  A refusal changes nothing. */
int PAT_Cancel(MPI_Request *request);
/* The application saw request complete just now (its MPI_Wait or MPI_Test
 * returned): with PAT_TIMELINE set, the timeline records the time for a
 * persistent all-gather's round (a non-blocking call's is seen by libpat
 * itself).  Does nothing otherwise; always MPI_SUCCESS. */
int PAT_Waited(MPI_Request request);

/* Number of algorithms and their names (index 0 .. PAT_AlgCount()-1). */
int PAT_AlgCount(void);
const char *PAT_AlgName(int index);

/* Name of the algorithm the last PAT_Allgather or PAT_Allgatherv of this
 * process ran on comm (after "auto", the one it chose); "" before the first
 * call, and on a communicator that has only run the MPI library's own
 * all-gatherv under PAT_ALG=native (which makes no libpat state for it). */
const char *PAT_LastAlg(MPI_Comm comm);

/* Text for an error code returned by a PAT function (the last failure's
 * details when the code matches it). */
const char *PAT_Error_string(int errorcode);

/* Per-process statistics since PAT_Init. */
typedef struct PAT_Stats {
  long long calls;              /* PAT_Allgather and PAT_Allgatherv calls */
  long long calls_per_alg[16];  /* by algorithm index (PAT_AlgName) */
  long long predicted_calls;    /* calls with a prediction of this rank's arrival */
  double pred_abs_error_sum;    /* sum over those of |predicted - actual arrival| (s) */
  double pred_abs_error_max;    /* largest such error (s) */
  double exchange_wait_sum;     /* time the caller waited for the arrival exchange (s) */
  double exchange_wait_max;
  long long bg_steps;           /* schedule steps the background thread completed */
  long long fg_steps;           /* schedule steps completed in PAT_Allgather itself */
  double bg_cpu_seconds;        /* CPU time used by the background thread */
  double bg_wall_seconds;       /* wall time the background thread has existed */
  long long exchanged_calls;    /* calls that exchanged arrivals first (auto does only where it can pay) */
} PAT_Stats;
int PAT_GetStats(PAT_Stats *stats);

#ifdef __cplusplus
}
#endif

#endif
