/*
 * The algorithm portfolio: one builder per algorithm, each a pure function
 * from (P, rank, predicted PAP, tau, root) to a schedule (docs/design.md §3-4).
 * Builders never call MPI, never read clocks and keep no memory beyond the
 * call (scratch arrays are freed before they return); they use only integer
 * arithmetic on the inputs, so every rank given the same inputs builds the
 * same schedule.
 */
#ifndef PAT_ALGORITHMS_H
#define PAT_ALGORITHMS_H

#include <stdint.h>

#include "algorithms/sched/schedule.h"

enum pat_alg_id {
  PAT_ALG_NATIVE = 0, /* the MPI library's own MPI_Allgather (no schedule) */
  PAT_ALG_RING,
  PAT_ALG_NEX,
  PAT_ALG_RDB,
  PAT_ALG_BRUCK,
  PAT_ALG_LNBC,
  PAT_ALG_BDR,
  PAT_ALG_BSLB,
  PAT_ALG_ARD,
  PAT_ALG_DIRECT,
  PAT_ALG_RELAY,
  PAT_ALG_HRING,
  PAT_ALG_HRELAY,
  PAT_ALG_COUNT
};
#define PAT_ALG_AUTO (-2)    /* let the cost model choose per call */
#define PAT_ALG_UNKNOWN (-1)

typedef struct pat_build_args {
  int P;                  /* processes in the communicator */
  int self;               /* rank to build for, or PAT_ALL_RANKS */
  const int64_t *arrival; /* predicted arrival of each rank (ns, common clock); NULL = balanced */
  int64_t tau;            /* predicted time to move one block (ns); used by arrival-aware builders */
  int root;               /* root of rooted algorithms (LNBC, BSLB) */
  int64_t alpha;          /* predicted latency of one message (ns), part of tau; 0 if negligible
                             or unknown.  ARD sizes its pieces with it. */
  int64_t block_bytes;    /* bytes of one block; 0 if unknown.  ARD splits a block into pieces
                             only when each is at least PAT_ARD_MIN_PIECE bytes. */
  const int64_t *block_sizes; /* bytes of each block (P entries) when they differ (an all-gatherv's);
                                 NULL: every block has block_bytes.  Who sends what to whom never
                                 depends on it; RELAY cuts each block by its own size. */
  const int *node;            /* node id of each rank (P entries; equal ids share a node), or NULL: every
                                 rank on a node of its own.  Only the hierarchical builders read it. */
  const struct pat_nodes *nodes; /* the map of `node`, made once by the caller (pat_nodes_make), or NULL: the
                                    builder makes it per build.  Per build it cost O(P log P) and three
                                    allocations on every call and every replay. */
} pat_build_args;

/* ARD's smallest piece (bytes).  Smaller pieces go out as eager messages (Open
 * MPI's TCP eager limit is 64 KiB), and ARD's eager pieces, sent before their
 * receives are posted, stalled its calls many times over (BENCHMARKS.md,
 * History, 2026-11-22).  No model can make pieces smaller than this. */
#define PAT_ARD_MIN_PIECE 65536

typedef int (*pat_builder)(pat_sched *out, const pat_build_args *a);

#define PAT_ALGF_NATIVE 0x1u  /* runs PMPI_Allgather, has no schedule */
#define PAT_ALGF_CLASSIC 0x2u /* schedule depends only on P (cacheable) */
#define PAT_ALGF_ARRIVAL 0x4u /* schedule depends on the predicted PAP */
#define PAT_ALGF_ROOTED 0x8u  /* has a root */
/* An arrival-aware schedule that stays correct and fast when its arrivals
 * are only the call site's history (the previous call's pattern): it uses
 * them for order, not for who sends what.  Under a fixed setting of such an
 * algorithm the runtime plans the next call as soon as a call ends, even in
 * an instrumented process, so that receives are posted and early blocks
 * spread before the last rank's PAT_Edge. */
#define PAT_ALGF_PLAN_AHEAD 0x10u
/* Built for a node map (pat_build_args.node): worth trying where ranks share
 * nodes and there are several nodes (pat_nodes_hierarchical). */
#define PAT_ALGF_NODES 0x20u

typedef struct pat_alg_info {
  const char *name;
  pat_builder build; /* NULL for NATIVE */
  unsigned flags;
  const char *summary;
} pat_alg_info;

extern const pat_alg_info pat_algorithms[PAT_ALG_COUNT];

/* Algorithm id for a name (case-insensitive), PAT_ALG_AUTO for "auto",
 * PAT_ALG_UNKNOWN otherwise. */
int pat_alg_by_name(const char *name);

/* Comma-separated list of the valid names (for error messages). */
const char *pat_alg_names(void);

/* Build and finalize the schedule of algorithm `alg` into `out` (initialised
 * here; free with pat_sched_free).  Returns PAT_OK or a PAT_E* code. */
int pat_build(int alg, pat_sched *out, const pat_build_args *a);

/* The builders */
int pat_allgather_ring(pat_sched *s, const pat_build_args *a);
int pat_allgather_nex(pat_sched *s, const pat_build_args *a);
int pat_allgather_rdb(pat_sched *s, const pat_build_args *a);
int pat_allgather_bruck(pat_sched *s, const pat_build_args *a);
int pat_allgather_lnbc(pat_sched *s, const pat_build_args *a);
int pat_allgather_bdr(pat_sched *s, const pat_build_args *a);
int pat_allgather_bslb(pat_sched *s, const pat_build_args *a);
int pat_allgather_ard(pat_sched *s, const pat_build_args *a);
int pat_allgather_direct(pat_sched *s, const pat_build_args *a);
int pat_allgather_relay(pat_sched *s, const pat_build_args *a);
int pat_allgather_hring(pat_sched *s, const pat_build_args *a);
int pat_allgather_hrelay(pat_sched *s, const pat_build_args *a);

/* The node map as the hierarchical builders see it (nodes.c): nodes
 * numbered 0..H-1 by their lowest rank, members of node h in rank order at
 * member[start[h] .. start[h + 1]). */
typedef struct pat_nodes {
  int P, H;
  int regular; /* every node is a run of the same number of consecutive ranks (ranks placed by slot) */
  int *of;     /* node number of each rank (P) */
  int *start;  /* H + 1 */
  int *member; /* P */
  int *pos;    /* P: where each rank is in member[] */
} pat_nodes;
/* From node ids (P entries, NULL: every rank alone).  Returns PAT_OK or PAT_ENOMEM. */
int pat_nodes_make(int P, const int *node, pat_nodes *n);
void pat_nodes_free(pat_nodes *n);
/* The map a builder uses: a->nodes when the caller made it, else one made into *own (free with
 * pat_nodes_free; *own is left empty when a->nodes was used).  Returns the map, or NULL: out of memory. */
const pat_nodes *pat_nodes_of(const pat_build_args *a, pat_nodes *own);
static inline int pat_nodes_size(const pat_nodes *n, int h) { return n->start[h + 1] - n->start[h]; }
/* Member i of node h (its members in rank order). */
static inline int pat_node_member(const pat_nodes *n, int h, int i) { return n->member[n->start[h] + i]; }
/* Several nodes and at least one with several ranks: a two-level shape. */
static inline int pat_nodes_hierarchical(const pat_nodes *n) { return n->H >= 2 && n->H < n->P; }
/* The member of node h that takes piece `piece` (of `pieces`) of block `block` into its node: the
 * pieces of the other nodes' blocks, taken block by block, rotate over node h's ranks. */
int pat_nodes_port(const pat_nodes *n, int h, int block, int piece, int pieces);

/* RELAY's pieces.  Its receives are posted ahead (a data flow, planned
 * ahead), so unlike ARD's its pieces are made to go eager: at most
 * PAT_RELAY_MAX_PIECE bytes, under Open MPI's TCP eager limit (64 KiB with
 * its header), so that a piece needs no rendezvous handshake with a late
 * rank's background thread (BENCHMARKS.md, History, 2026-11-23).
 * PAT_RELAY_MIN_PIECE keeps the per-message cost small against the piece's. */
#define PAT_RELAY_MAX_PIECE 49152
#define PAT_RELAY_MIN_PIECE 8192
/* ... but blocks of PAT_RELAY_FINE_BLOCK bytes or more are cut into pieces of
 * at most PAT_RELAY_FINE_PIECE.  After the last owner's scatter each relay
 * still sends its last piece to P - 2 ranks, (P - 2) / k of a block time
 * that every rank waits for; a finer cut also lets the relays start sooner.
 * Smaller blocks keep the coarser cut, where a message's cost weighs more
 * than what the finer one saves (BENCHMARKS.md, History, 2026-11-25). */
#define PAT_RELAY_FINE_BLOCK (512 << 10)
#define PAT_RELAY_FINE_PIECE 16384
/* The largest piece (above P - 1 of them) for a block of block_bytes. */
int64_t pat_relay_piece_max(int64_t block_bytes);
/* RELAY's sends per rank and call, at most pat_relay_max_sends(P): each
 * message costs CPU, so the number that pays shrinks with P (too many
 * overloaded the cores at P = 16), while too few at P = 8 cut large blocks
 * into rendezvous-sized pieces (BENCHMARKS.md, History, 2026-11-25).  So
 * PAT_RELAY_CALL_SENDS / P per rank, between the two measured points:
 * PAT_RELAY_MAX_SENDS at P >= 16, PAT_RELAY_MAX_SENDS_SMALL_P at P <= 8. */
#define PAT_RELAY_MAX_SENDS 160
#define PAT_RELAY_MAX_SENDS_SMALL_P 320
#define PAT_RELAY_CALL_SENDS 2560
int pat_relay_max_sends(int P);

/* RELAY's pieces of a block of block_bytes (allgather_relay.c; with
 * block_sizes, each block's own): P - 1 when block_bytes is 0
 * (unknown); 1 (whole blocks) when the block is too small for two pieces of
 * PAT_RELAY_MIN_PIECE; up to P - 1 pieces of at least that; above, a
 * multiple of P - 1 whose pieces are at most pat_relay_piece_max; in every
 * case no more than pat_relay_max_sends(P) / (P - 1) (a multiple of P - 1 when
 * above it). */
int pat_relay_pieces(int P, int64_t block_bytes);

/* RELAY's pieces of blocks of different sizes (size[b] bytes, P entries)
 * into pieces[b]: each block at least pat_relay_pieces of its size, and the
 * big ones cut further, into pieces of at most the smallest size from
 * pat_relay_piece_max up whose messages stay within pat_relay_max_sends(P) per
 * rank, so that a big block has more pieces, not bigger ones (empty blocks
 * whole).  Equal sizes give pat_relay_pieces's count.  Returns PAT_OK or
 * PAT_ENOMEM. */
int pat_relay_pieces_v(int P, const int64_t *size, int *pieces);

/* RELAY's relay of piece p of owner's block in k pieces, spread evenly over the P - 1 after it
 * (HRELAY uses it over nodes), and the span of that piece (the whole block when k is 1). */
int pat_relay_of(int P, int owner, int p, int k);
pat_span pat_relay_piece(int P, int owner, int p, int k);

/* HRELAY's pieces of a block of `bytes` on node map n (allgather_hrelay.c): RELAY's cut over the H - 1
 * relay nodes within RELAY's send budget per rank; with `near` (pat_arrivals_near) whole blocks where
 * that gives fewer pieces than relay nodes.  The node model (model_nodes.c) cuts as the builder does. */
int pat_hrelay_pieces(const pat_nodes *n, int64_t bytes, int near);
int pat_hrelay_pieces_budget(const pat_nodes *n, int64_t bytes);

/* DIRECT's window: the most messages a rank sends (and receives) in one
 * step, a function of P only (allgather_direct.c). */
int pat_direct_window(int P);

/* Shared by the arrival-aware builders (algorithms/arrival.c). */

/* Ranks sorted by predicted arrival into order[0..P-1]: earliest first
 * (latest first if `latest_first`); equal arrivals by ascending rank either
 * way.  arrival == NULL: every rank arrives together (rank order).
 * Returns PAT_OK or PAT_ENOMEM. */
int pat_arrival_order(int P, const int64_t *arrival, int latest_first, int *order);

/* Predicted arrival slot of every rank, in units of tau from the earliest
 * arrival: slot[r] = floor((a_r - min a) / tau), clamped to
 * PAT_MAX_ARRIVAL_SLOT.  All 0 when arrival == NULL or tau <= 0 (balanced).
 * ARD numbers its steps in these slots: a rank's own block is never sent in a
 * step before its slot. */
/* Predicted arrivals within two block times (2 tau) of each other, or none
 * predicted: nothing to spread early (RELAY and HRELAY then keep whole
 * blocks where they have fewer pieces than relays). */
int pat_arrivals_near(const pat_build_args *a);

#define PAT_MAX_ARRIVAL_SLOT (1 << 24)
void pat_arrival_slots(int P, const int64_t *arrival, int64_t tau, int32_t *slot);

/* ARD's clock (see allgather_ard.c): steps before switch_step are slots of
 * tau from the earliest predicted arrival; from switch_step on, slots of
 * tau/q.  release[r] is the first step in which rank r may send its own
 * block: the one containing its predicted arrival.  For tests and tools. */
typedef struct pat_ard_timing {
  int32_t switch_step;
  int q;
} pat_ard_timing;
int pat_ard_clock(const pat_build_args *a, pat_ard_timing *clock, int32_t *release);

/* Shared by rooted algorithms: binomial broadcast, from `root`, of every block
 * each receiver lacks (all but its own), starting at `first_step`.
 * Returns the first step after it through *next_step. */
int pat_bcast_binomial_rest(pat_sched *s, int P, int root, int first_step, int *next_step);

#endif
