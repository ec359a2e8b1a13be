/*
 * The cost model: replays a schedule (every rank's ops) under a process
 * arrival pattern and Hockney parameters, and predicts when every rank
 * leaves the all-gather (docs/design.md §6).  The model is derived from the
 * schedule the executor runs, never from a textbook formula.
 *
 * Replay semantics (the executor's, see executor.h):
 *  - Each rank walks its own steps in order; a step number in which a rank
 *    has no op does not exist for it.  Within a step it posts all its ops at
 *    once; the step ends when all of them are done; it then enters its next
 *    step at once.
 *  - Background and foreground.  A rank's first step that SENDs any span
 *    touching its own block, and every later step, are its foreground part;
 *    the steps before it are its background part.  A background step is
 *    entered no earlier than min(bg_start, a_i) (the background thread holds
 *    the schedule before the call; a rank that arrives first runs them in the
 *    foreground); a foreground step no earlier than a_i.  So the first
 *    foreground step starts at max(end of the previous step, a_i).  A rank
 *    leaves at f_i = max(end of its last step, a_i); with no ops, f_i = a_i.
 *  - A transfer is a SEND matched with its RECV in the same step (signals are
 *    0-byte transfers).  Its cost is alpha + beta * bytes, bytes =
 *    block_bytes * (blocks in its spans, pieces counted as fractions).
 *  - Rendezvous (bytes >= eager threshold, or no threshold): the transfer is
 *    ready when both ends have entered the step, ready = max(entries).
 *    Eager (bytes < eager threshold): ready when the sender has entered; the
 *    sender's op completes at the end of the transfer, the receiver's at
 *    max(its step entry, end of the transfer).
 *  - DATA FLOW schedules (send_window > 0) follow the contract above
 *    struct pat_sched instead of steps: a rank starts at min(bg_start, a_i)
 *    and posts every receive then; a send is posted, within the window, as
 *    soon as its spans are held (own block from a_i, others from the
 *    completion of the receive that brings them), a held send overtaking
 *    an earlier one that waits; the rank leaves at max(a_i, its last op).
 *  - Pacing (pace_beta > 0, data flow only): as the executor's (flow.c), a
 *    rank's forward waits while the bytes it posted need more than the
 *    lead of its link (each counted at pace_beta from its posting); sends
 *    of its own block never wait, so a late owner's block is not shared
 *    out behind the relays its background part queued.
 *  - Fluid ports: full duplex, one send port and one receive port per
 *    rank.  A ready transfer pays alpha (no port held), then its
 *    beta * bytes of port time flow through both its ports, each port
 *    shared equally among its transfers, the transfer at the smaller of
 *    its two shares (model_net.h).  Alone it takes alpha + beta * bytes.
 *  - One connection per pair: the transfers from one rank to another move
 *    their bytes one after the other, in the order their latencies ended
 *    (the MPI library's one stream per peer; TCP's and shared memory's
 *    queues are FIFO); a transfer waiting behind its pair's holds no port.
 *    A lockstep schedule never has two at once on a pair.  Without it a
 *    data flow's pieces to one relay all ended together at the end of the
 *    owner's block time, where the executor's first piece arrives after a
 *    fraction of it (BENCHMARKS.md, All-gatherv of unequal blocks).
 *  - Reductions (PAT_SCHED_REDUCE), lockstep: a step's reducing receives
 *    are combined once all its ops are done (the executor's order), so the
 *    step ends gamma * (the bytes they bring) after its last op; the rank
 *    enters its next step only then.  As a data flow (RELAY, HRELAY, SLT),
 *    the executor's order too (exec/flow.c): a send waits for the receives
 *    of earlier steps that bring any of its bytes to be applied; a receive
 *    is applied once it has arrived, the sends of its step or before that
 *    read any of its bytes are complete and the receives before it that
 *    bring any are applied, one at a time on its rank, gamma * its bytes
 *    where it reduces; nothing of the call starts before its rank arrives
 *    (its run is posted by the call).
 *  - Parameters: the (alpha, beta) fitted for the algorithm that built the
 *    schedule (s->alg), or the default ones; with a node map, transfers
 *    between ranks of the same node use the intra-node pair when there is
 *    one (tau-Lop view).
 *
 * Deterministic: the same inputs give bit-identical outputs.  Times are in
 * seconds (alpha in s, beta in s/byte, arrivals in s on any origin); the
 * replay works relative to the earliest arrival, so absolute clocks (e.g.
 * seconds since the epoch) lose no precision in e_i.
 *
 * Pure C, no MPI, no clocks, no threads.
 */
#ifndef PAT_MODEL_H
#define PAT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/algorithms.h"
#include "algorithms/sched/schedule.h"
#include "model/replay_space.h"

/* One Hockney pair: a transfer of m bytes costs alpha + beta * m seconds. */
typedef struct pat_hockney {
  double alpha; /* s */
  double beta;  /* s per byte */
} pat_hockney;

/* Parameters of one algorithm (or the default). */
typedef struct pat_link_model {
  int set;           /* present (for alg[]: fitted for this algorithm) */
  pat_hockney inter; /* between nodes, or every transfer when there is no node map */
  int has_intra;     /* intra-node pair present */
  pat_hockney intra; /* between ranks of the same node */
} pat_link_model;

/* Which replay engine (for tests and measurements; AUTO is always right). */
#define PAT_ENGINE_AUTO 0  /* the replay (model_fluid.c); pat_predict may use a compiled program */
#define PAT_ENGINE_EVENT 1 /* reported when the replay ran; as a setting: pat_predict never uses a program */
#define PAT_ENGINE_FAST 2  /* reported when a compiled program (model_prog.h) gave the result */

/* Status of the fast paths (the fast engine, compiled replay programs): they
 * cannot reproduce the replay exactly for this input, so the caller must run
 * the general one.  Kept apart from the PAT_* status codes; never returned by
 * pat_model_replay or pat_predict. */
#define PAT_MODEL_FALLBACK 100

/* One transfer, as the replay resolved it (for the viewer and tests). */
typedef struct pat_model_xfer {
  int step, from, to;
  int eager;
  double blocks;      /* blocks moved (pieces as fractions; 0 for signals) */
  double ready;       /* when it could start (both ends in the step; sender only if eager) */
  double start, end;  /* when it held the ports */
} pat_model_xfer;
typedef void (*pat_model_trace_fn)(void *ctx, const pat_model_xfer *x);

/* Measured times of one algorithm on balanced arrivals (see measured.h). */
#define PAT_MEASURED_MAX 32 /* sizes per algorithm: factor 2 from 1 B covers every int count of bytes */
typedef struct pat_measured_alg {
  int n;                            /* sizes measured (0: none; else at least 2) */
  double bytes[PAT_MEASURED_MAX];   /* block bytes per rank, strictly increasing, > 0 */
  double seconds[PAT_MEASURED_MAX]; /* mean elapsed time over ranks (e bar) at that size, > 0 */
} pat_measured_alg;

/* The calibration's table (model file v2 "P" and "time" lines).  It holds
 * for exactly P processes: P = 0 means there is no table. */
typedef struct pat_measured {
  int P;
  pat_measured_alg alg[PAT_ALG_COUNT];
} pat_measured;

typedef struct pat_model_params {
  pat_link_model dflt;               /* for algorithms without their own parameters */
  pat_link_model alg[PAT_ALG_COUNT]; /* fitted per algorithm (Nuriyev) */
  int link_set;                      /* link holds a measurement */
  pat_hockney link;                  /* one pair alone on the network (a ping-pong between nodes): the rate a
                                        transfer gets when the ports around it are idle; model file "link" line */
  double gamma;                      /* s per byte of a reduction's combination (MPI_Reduce_local: MPI_SUM of doubles
                                        measured by pat-calibrate, fitted by pat-fit; model file "gamma" line) */
  int gamma_set;                     /* gamma was measured; 0: PAT_MODEL_GAMMA_DEFAULT */
  double eager_bytes;                /* messages of fewer bytes are eager; 0: all rendezvous */
  char made[256];                    /* how the parameters were obtained (model file "made" lines) */
  char libpat_version[32];           /* the libpat that wrote the model file ("" : a file from before the line) */
  char platform[160];                /* the platform signature its calibration ran on ("": not recorded) */
  pat_measured measured;             /* measured balanced times (~5 KiB; the replay ignores them) */
  pat_measured b2b;                  /* the same measured back to back (optional; P = measured.P or 0) */
  int calib_nodes;                   /* the nodes its calibration ran on ("nodes" line; 0: not recorded) */
  uint64_t calib_placement;          /* its calibration's placement (model/placement.h; "placement" line; 0: not
                                        recorded), of measured.P ranks */

  /* Per-call context (pat_model_params_init sets the defaults). */
  const int *node;     /* node id of each rank (P entries), or NULL: every rank on its own node */
  const pat_nodes *nodes; /* the map of node, made once by the caller (pat_nodes_make), or NULL: the replay
                             makes it per replay where it needs it (shared_links) */
  int shared_links;    /* with node: the ranks of a node share its link, so a transfer between nodes flows
                          through one send port and one receive port per node (the fluid replay), not its
                          ranks' own; the compiled programs know only a port per rank, so pat_predict
                          replays every algorithm then.  0 (default): a port per rank */
  double bg_start;     /* background steps start no earlier (same origin as arrivals);
                          -INFINITY (default): as early as partners allow */
  int engine;          /* PAT_ENGINE_*, default AUTO */
  double pace_beta;    /* pacing (PAT_PACE, flow.c), s per byte of a rank's link; 0 (default): none.  In a data
                          flow a rank's forwards (sends that carry none of its own block) are held while the
                          bytes it has posted, each at this rate from when it was posted, need more than
                          PAT_MODEL_PACE_LEAD_S of the link; its own block's sends never are. */
  pat_model_trace_fn trace; /* if set, called for every transfer in the order resolved */
  void *trace_ctx;
} pat_model_params;

/* The executor's lead (PAT_PACE_LEAD_NS, executor.h; runtime.c checks they agree). */
#define PAT_MODEL_PACE_LEAD_NS 2000000
#define PAT_MODEL_PACE_LEAD_S (PAT_MODEL_PACE_LEAD_NS * 1e-9)

/* gamma where nothing measured it (s per byte).  pat-calibrate measured
 * MPI_Reduce_local of doubles with MPI_SUM at 2.2e-11 s/B on this project's
 * development machine (Open MPI 4.1, 16 KiB - 4 MiB, its buffers warm in
 * cache); a vector that comes from the network or out of memory, on a
 * slower core, combines at a few GB/s: the default takes 10 GB/s. */
#define PAT_MODEL_GAMMA_DEFAULT 1e-10
#define PAT_MODEL_GAMMA_TEXT "1e-10" /* the same, for messages */

/* Defaults: every algorithm uses (alpha, beta), no intra-node pair, no eager
 * threshold, gamma PAT_MODEL_GAMMA_DEFAULT (gamma_set 0), no node map,
 * bg_start = -INFINITY, engine AUTO. */
void pat_model_params_init(pat_model_params *mp, double alpha, double beta);

/* Parameters the replay uses for algorithm alg (its own if set, else the default). */
const pat_link_model *pat_model_link(const pat_model_params *mp, int alg);

/* tau of algorithm alg: the cost of moving one block of block_bytes between two
 * ranks (its inter-node pair). */
double pat_model_tau(const pat_model_params *mp, int alg, double block_bytes);

typedef struct pat_model_result {
  double *f;       /* in: caller's array of P or NULL; out: exit time of each rank (arrivals' origin) */
  double *e;       /* in: caller's array of P or NULL; out: e_i = f_i - a_i */
  int *fg_step;    /* in: caller's array of P or NULL; out: first foreground step of each rank (-1: none) */
  double ebar;     /* mean e_i */
  double emax;     /* largest e_i */
  double r;        /* run time: max f - min a */
  double omega;    /* max a - min a */
  size_t transfers;
  int engine;      /* PAT_ENGINE_FAST or PAT_ENGINE_EVENT: the one that ran */
} pat_model_result;

/* Replay schedule s (finalized, self == PAT_ALL_RANKS) under arrival times
 * `arrival` (P entries, any origin; NULL = all equal) with parameters mp and
 * blocks of block_bytes bytes.  Fills out (see pat_model_result).
 * Returns PAT_OK, PAT_EINVAL (bad arguments, or a schedule whose ops do not
 * match: a send without its receive in the same step) or PAT_ENOMEM. */
int pat_model_replay(const pat_sched *s, const double *arrival, const pat_model_params *mp, double block_bytes,
                     pat_model_result *out);
/* The same, with the replay's arrays kept in sp for the next replay (NULL:
 * made and freed here, as pat_model_replay does). */
int pat_model_replay_in(pat_replay_space *sp, const pat_sched *s, const double *arrival, const pat_model_params *mp,
                        double block_bytes, pat_model_result *out);
/* The same with unequal blocks (an all-gatherv): block j is block_size[j]
 * bytes (P entries), a piece of it the same fraction of them. */
int pat_model_replay_v(const pat_sched *s, const double *arrival, const pat_model_params *mp,
                       const double *block_size, pat_model_result *out);

/* Cost of one transfer: the one formula every engine and the selection's
 * compiled programs share (so their results are bit-identical). */
static inline double pat_model_cost(pat_hockney h, double block_bytes, double blocks) {
  return h.alpha + h.beta * (block_bytes * blocks);
}

/* Blocks in an op's spans (same value as pat_spans_blocks). */
static inline double pat_model_op_blocks(const pat_op *op) {
  double total = 0;
  for (int i = 0; i < op->nspans; i++) {
    const pat_span *sp = &op->span[i];
    if (sp->lo == 0 && sp->hi == PAT_FRAC_ONE)
      total += (double)sp->count;
    else
      total += sp->count * ((double)(sp->hi - sp->lo) / PAT_FRAC_ONE);
  }
  return total;
}

/* Receive-port lower bound (docs/design.md §1).  For each rank i the P-1 other
 * blocks come through its one receive port, block j no earlier than a_j, each
 * taking tau: f_i >= makespan of those transfers (served in release order),
 * e_i >= max(0, f_i - a_i).  Writes e_lb_out[i] if e_lb_out is non-NULL and
 * returns the mean, ē_lb.  O(P log P). */
double pat_lower_bound(int P, const double *arrival, double tau, double *e_lb_out);

/* The two-level bound: ranks that share a node (node ids node[], NULL:
 * every rank alone) share its link, and shared memory inside a node is
 * taken as free.  For each rank i the blocks of the other nodes come
 * through its node's one receive link, block j no earlier than a_j, each
 * taking tau (the link's time for a block): f_i >= their makespan in release
 * order, e_i >= max(0, f_i - a_i).  With one rank per node it is
 * pat_lower_bound.  O(H P) for H nodes. */
double pat_lower_bound_nodes(int P, const double *arrival, double tau, const int *node, double *e_lb_out);
/* The all-reduce's bound (docs/design.md §1): rank j's whole vector, P
 * segments of tau each, leaves its port no earlier than a_j, and every rank
 * on another node needs it (combined with others or not; shared memory
 * inside a node free; node NULL: every rank alone): e_i >= max(0, max over
 * j off i's node of a_j + P tau - a_i).  Writes e_lb_out[i] if non-NULL and
 * returns the mean (pat-minibench's mb_lower_bound_allreduce measures
 * against the same). */
double pat_lower_bound_allreduce(int P, const double *arrival, double tau, const int *node, double *e_lb_out);

/* The same with a transfer time per block (an all-gatherv's unequal blocks):
 * block j takes tau[j].  Serving in release order still minimises each
 * port's makespan, whatever the times. */
double pat_lower_bound_v(int P, const double *arrival, const double *tau, double *e_lb_out);

/* The bound of a persistent call, whose blocks may move before their
 * receiver starts (a persistent call's RELAY started ahead, runtime/persist.c): rank i
 * cannot finish before it starts, nor before any other block j, which
 * leaves at a_j, has crossed: T_i >= max(a_i, max_{j != i} (a_j + alpha +
 * m_j·beta)), with tau[j] = m_j·beta (NULL: every block tau); nor before
 * its receive port took in the P - 1 other blocks, block j no earlier than
 * a_j (pat_lower_bound_v's makespan, which lets a block reach its receiver
 * before that one starts).  The larger of the two per rank: the first alone
 * charges one block a rank, far under what every port must take in at
 * balanced arrivals.  e_i = T_i - a_i; writes
 * e_lb_out[i] if non-NULL and returns the mean, ē_lb_persistent (NAN
 * without memory).  O(P log P). */
double pat_lower_bound_persistent(int P, const double *arrival, double alpha, double tau, const double *tau_each,
                                  double *e_lb_out);

#endif
