/*
 * The arrival exchange: once per collective call that needs it, every rank
 * contributes one record (its predicted arrival on the common clock, the
 * block size it expects, its algorithm setting) and every rank receives all
 * of them, in the same order, so that every later decision has identical
 * inputs everywhere.  It is a non-blocking all-gather of the records on a
 * communicator of its own, so contributions can be made early (at a
 * PAT_Edge, or from history right after the previous call) and progressed
 * by the background thread; every rank's n-th exchange meets the others'
 * n-th, which is what makes it the exchange of the n-th call.
 *
 * It is libpat's own, in ceil(log2 P) rounds to one peer each (recursive
 * doubling where P is a power of two, Bruck's otherwise): the peers the MPI
 * libraries' own small all-gathers use.  MPI's non-blocking all-gather
 * (Open MPI's libnbc) sends to every rank, which opens a TCP connection
 * between every pair, and Open MPI's TCP transport polls every connection
 * in each progress pass: a few connections more per rank made small calls
 * on the emulated cluster measurably slower for the rest of the job, where
 * libpat itself ran MPI's own all-gather (BENCHMARKS.md, Balanced calls
 * through the drop-in).
 */
#ifndef PAT_EXCHANGE_H
#define PAT_EXCHANGE_H

#include <mpi.h>
#include <stdint.h>

enum pat_xrec_kind {
  PAT_XREC_NONE = 0,    /* no call will follow (finalize / communicator freed) */
  PAT_XREC_EDGE = 1,    /* predicted at a PAT_Edge */
  PAT_XREC_HISTORY = 2, /* predicted from the call site's history */
  PAT_XREC_PHASE_END = 3, /* PAT_ProcessingEnd: arrival is now */
  PAT_XREC_ACTUAL = 4   /* contributed on arrival */
};

typedef struct pat_xrec {
  int64_t arrival_ns;     /* predicted (or actual) arrival, common clock */
  int64_t block_bytes;    /* bytes per block of the expected call, or its shape key (pat/shape.h); 0 = unknown */
  uint64_t shape_hash;    /* a shape key's exact blocks (pat_shape_hash), 0 for equal blocks */
  int64_t contributed_ns; /* when the rank contributed, common clock */
  /* What this rank measured in its previous call at the same call site (the
   * site of block_bytes), so
   * that every rank learns the same measured costs without a message of
   * their own (online refinement): */
  int64_t prev_call;       /* that call's number (calls are numbered alike on every rank); -1: none */
  int64_t prev_arrival_ns; /* its actual arrival, common clock */
  int64_t prev_elapsed_ns; /* e = exit - arrival */
  int64_t prev_predicted_ns; /* the arrival this rank's record predicted for it (= its arrival if it
                                contributed on arrival); valid with PAT_PREV_PREDICTED */
  int32_t prev_alg;        /* what ran */
  int32_t setting;         /* algorithm setting when contributing (the runtime's number for it) */
  int32_t kind;            /* enum pat_xrec_kind */
  int32_t prev_flags;      /* PAT_PREV_*: how that call ran (the guardrail's arms) */
  int64_t exchange_ns;     /* what the exchange of this rank's latest exchanged call cost it, at any site
                              (src/decide/engine.h); -1: none */
} pat_xrec;

/* prev_flags: the previous call ran the static choice, as a sample of its
 * cost; ran in the exchange mode (or something other than the static
 * choice); exchanged, so prev_predicted_ns holds what the exchange was told;
 * exchanged (exchange_ns is that exchange's cost). */
#define PAT_PREV_STATIC 1
#define PAT_PREV_ALT 2
#define PAT_PREV_PREDICTED 4
#define PAT_PREV_EXCHANGED 8

enum pat_exchange_state { PAT_X_IDLE = 0, PAT_X_STARTED, PAT_X_DONE };

typedef struct pat_exchange {
  int state;
  int64_t seq;     /* exchanges completed before this one on the communicator */
  pat_xrec mine;
  pat_xrec *all;   /* P records, valid in state DONE */
  pat_xrec *rotated; /* Bruck's working order (rank + i's record at i); NULL where P is a power of two */
  MPI_Comm comm;   /* where its messages arrive: its own, or a channel its tags keep apart */
  const int *peer; /* routed: rank r's rank in comm (NULL: r itself) ... */
  const MPI_Comm *send_comm; /* ... and the communicator rank r receives on */
  int tag_base;    /* round k's tag: tag_base + k */
  int P, rank;
  int pow2, rounds, round;
  MPI_Request req[2]; /* the round's receive and send */
  int64_t started_ns; /* local clock when this rank contributed */
  int64_t wait_nap_ns; /* > 0: pat_exchange_wait tests and sleeps this long in between, instead of
                          spinning in MPI_Wait (a node with more ranks than CPUs); 0 after init */
} pat_exchange;

/* comm: a duplicate of the communicator, for the exchanges alone (the
 * caller frees it after pat_exchange_free). */
int pat_exchange_init(pat_exchange *x, MPI_Comm comm);
/* An exchange among P ranks (this one `rank`) whose messages to rank r go
 * to rank peer[r] of send_comm[r] and arrive here on recv_comm, tagged
 * tag_base + round (at most 31 rounds): a communicator's messages routed
 * over libpat's channels (the arrays must outlive the exchange). */
int pat_exchange_init_routed(pat_exchange *x, MPI_Comm recv_comm, int P, int rank, const int *peer,
                             const MPI_Comm *send_comm, int tag_base);
void pat_exchange_free(pat_exchange *x);
int pat_exchange_start(pat_exchange *x, const pat_xrec *mine);
int pat_exchange_test(pat_exchange *x, int *done);
int pat_exchange_wait(pat_exchange *x);
/* After a call consumed it: back to IDLE, seq + 1. */
void pat_exchange_consume(pat_exchange *x);

/* Facts every rank derives identically from the records. */
#define PAT_XSETTING_MIXED INT32_MIN /* the records carry different settings */
typedef struct pat_xsummary {
  int64_t agreed_bytes; /* common block size if all records agree, else 0 */
  int actual_bytes_differ; /* two ranks contributed on arrival with different block sizes (or blocks of an
                              all-gatherv): an erroneous call */
  int setting;          /* common setting if all agree, else PAT_XSETTING_MIXED */
  int64_t min_arrival, max_arrival;
  int64_t complete_ns; /* the last contribution: background work cannot start earlier */
} pat_xsummary;
void pat_exchange_summary(const pat_exchange *x, pat_xsummary *s);
/* Was every record of a completed exchange made the same way (kind)? */
int pat_exchange_all_kind(const pat_exchange *x, int kind);

#endif
