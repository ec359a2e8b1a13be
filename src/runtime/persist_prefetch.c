/*
 * PREFETCH: the schedule of a persistent all-gather(v) whose blocks move
 * before their receiver starts.
 *
 * A persistent call's arguments are known from its set-up on, so a rank's
 * background thread can take the next round's blocks while the rank still
 * computes.  It takes them into a staging buffer of libpat's, never into the
 * application's recvbuf: between a completion and the next start MPI gives
 * that buffer back to the application (iterative codes read last round's
 * data while they compute).  At PAT_Start the staged blocks are copied into
 * recvbuf, and the round's later blocks go straight there.
 *
 * Two modes, the same on every rank for a round (each decides from the
 * same numbers: the previous round's starts, which every rank sends every
 * other in an 8-byte message at its start, and tau from the cost model's
 * parameters):
 *  - spread: where the previous round's starts spread over at least
 *    (P - 1)·tau (tau: one block's time between two ranks), time enough for
 *    the last rank's receive port to take in every other block before it
 *    starts.  Each rank takes messages in while it computes, and at its
 *    start sends its block of B bytes in pieces, m to each of the P - 1
 *    others (rank me + 1 + s takes pieces s·m .. s·m + m - 1), each
 *    receiver forwarding its pieces to the P - 2 others (a relay): every
 *    block is everywhere soon after its owner started, so the last rank
 *    holds them all at its start.  The cut is RELAY's (pat_relay_pieces:
 *    pieces under the TCP eager limit, so that no piece waits for a
 *    rendezvous with a computing rank's background thread) where P <= 64;
 *    m = 1 above: many small pieces measured closer to the bound than one
 *    piece per receiver (BENCHMARKS.md, Persistent all-gathers).
 *  - direct: otherwise.  A rank takes no message before its start and
 *    sends its whole block to every rank, into receives posted at the
 *    start: MPI's own all-gather's messages, with its timing.  Taking whole
 *    blocks in before the start made rounds slower than MPI's own, and
 *    pieces sent at every start paid only where the starts spread over
 *    more than a few block times (BENCHMARKS.md, Persistent all-gathers).
 *  - mpi-own, under auto, in place of direct mode: MPI's own non-blocking
 *    all-gather(v) on the call's communicator (MPI keeps collective traffic
 *    apart from this schedule's messages there), which the background
 *    thread tests and the application's wait progresses; the start
 *    messages go all the same, so the next round's mode is known.  Auto
 *    runs this schedule only on a communicator with one rank a node, where
 *    it was measured; elsewhere every start is MPI's own (persist.c).
 * The first round is in direct mode (mpi-own under auto).  In direct mode a rank that already
 * holds every other block at its start (messages of a round can be taken
 * in while the rank runs the round before) relays all the same.  A receiver takes either form for any block,
 * and learns which from the message itself (MPI_Improbe on the call's own
 * copy of the communicator, the tag saying whole block, piece to forward or
 * forwarded piece): no rank needs to agree with another, and every mix of
 * decisions gives the same result.  A block counts as received after its one
 * whole message or its P - 1 pieces, so every message sent is awaited.
 *
 * Cost (Hockney, arrival a_j, block m_j, the last arrival a_last), spread
 * mode: the others' blocks come while the last rank computes, so it holds
 * them all at its start and ends once its pieces left its port:
 *   T_last ~ a_last + alpha + m_last·beta   (instead of about
 *   a_last + (N - m_last)·beta when it must still receive everything);
 * any other rank waits for its pieces (sent within m_last·beta) and the
 * forwarded ones, which follow the first pieces at once (k pieces in all:
 * m_last·(P-2)/k·beta after the last one left):
 *   T_i ~ a_last + 2·alpha + m_last·beta·(1 + (P-2)/k), or its own port's
 *   makespan of the earlier whole blocks if that is later.
 * Direct mode: T_i ~ max(a_i, a_j) + (P - 1)·(alpha + m·beta) through the
 * ports of i and the late owners, as MPI's own all-gather; mpi-own: MPI's
 * own algorithm's, plus P - 1 start messages of 8 bytes.
 * The bound: T_i >= max(a_i, max_{j != i} (a_j + alpha + m_j·beta))
 * (model.h: pat_lower_bound_persistent).
 *
 * Rounds (MPI: every rank starts a persistent collective as many times):
 * rank i's messages of round r carry parity r mod 2.  Rank j
 * completes round r only after it received i's round-r block, which i sends
 * at its start of round r; so j starts round r + 1 only after i started
 * round r, and j starts round r + 2 only after i completed round r.  While i
 * has not completed round r, the messages to it are therefore of round r or
 * r + 1, and the parity tells which.  A piece can come before its
 * receiver starts (spread mode): it goes to the staging buffer, and is
 * copied into recvbuf at the start, or as it lands after the start.  Empty
 * blocks are sent too (an empty whole message), which keeps this argument
 * true for zero counts.  A round completes once every block is placed and
 * every other rank's start message came.
 *
 * At its start in direct mode a rank also posts a receive straight into
 * recvbuf for every whole block not yet matched (prepost_wholes), as a
 * blocking schedule posts its receives before its sends; a receive whose
 * owner relays instead is cancelled when the first piece comes.
 *
 * Data: the bytes of the recvtype's signature (MPI_Pack of one's own block;
 * MPI_Unpack into a non-contiguous recvtype, whose blocks are all received
 * into the staging buffer).  Two staging buffers, one per parity: round
 * r + 1's blocks arrive while round r's may still land in the other (a whole
 * block matched before the start), or be forwarded or unpacked from it.
 */
#include "runtime/persist_prefetch.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "decide/explore.h"
#include "model/model.h"
#include "pat/clock.h"
#include "runtime/args.h"
#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/nbc_queue.h"
#include "runtime/netparams.h"
#include "runtime/process.h"
#include "runtime/report.h"
#include "runtime/report_nbc.h"
#include "runtime/round_trace.h"
#include "runtime/timeline.h"
#include "runtime/wakeup.h"

enum { KIND_WHOLE = 0, KIND_PIECE = 1, KIND_FORWARDED = 2, KIND_START = 3, KINDS = 4 };
enum { KIND_OWN = KINDS }; /* an xfer that is MPI's own all-gather of a round (no tag of ours) */

/* An in-flight receive or send of a round. */
typedef struct xfer {
  MPI_Request req;
  int parity;
  int owner, kind; /* a receive's: whose block, which form */
  int sub;         /* a piece's: its index among its relay's pieces of the block */
  char *at;        /* where its bytes are */
  int len;
  int is_send;
  int staged; /* a receive into the staging buffer */
  char *sink; /* a message that is not the schedule's: received here, then dropped */
  int preposted; /* a whole block's receive posted at the start, before its message came */
  int traced; /* its message in its round's trace + 1; 0: none */
} xfer;

/* What is known of one round (one per parity). */
typedef struct round_state {
  char *stage;   /* the blocks' bytes at their offsets (boff) */
  char *whole;   /* per owner: 0, 1 receiving, 2 received */
  char *staged;  /* per owner: its whole block arrived in stage (contiguous recvtype) */
  char *placed;  /* per owner: in recvbuf */
  int *pieces;   /* per owner: pieces received */
  int64_t *starts; /* per rank: its start of the round (global clock, ns), from its start message */
  int nplaced, nstarts;
  pat_round_trace trace; /* PAT_TIMELINE: the round's messages and polling */
} round_state;

struct pat_prefetch {
  struct pat_prefetch *next;
  MPI_Comm comm; /* the persistent call's copy (persist.c): every message of the call */
  int P, me;
  /* the application's arguments */
  const void *sendbuf;
  int sendcount;
  MPI_Datatype sendtype, recvtype; /* kept (pat_nbc_keep_type) */
  char *recvbuf;
  int *counts, *displs; /* per rank, elements (an all-gather's: recvcount, rank·recvcount) */
  MPI_Aint extent, true_lb;
  int contiguous; /* block j is B_j bytes at recvbuf + displs[j]·extent + true_lb */
  long long *bytes, *boff; /* per rank: B_j, offset in a staging buffer */
  int *per_relay;          /* per rank: the pieces of its block each relay takes, in order (RELAY's cut) */
  char *mine;     /* this rank's block, packed */
  round_state round[2];
  long long cur; /* the round the next (or current) start belongs to */
  int started, freeing;
  int spread;    /* the mode of round cur: 1 spread, 0 direct or mpi-own (from the round before's starts) */
  int use_own;   /* auto: a round not in spread mode runs MPI's own non-blocking all-gather */
  int vector;    /* an all-gatherv (MPI's own is called as the application set it up) */
  double tau_s;  /* one block's time between two ranks (the largest block; the model's inter-node link) */
  xfer *x;
  int nx, cap;
  MPI_Comm signal_comm;
  int signal_rank, signal_tag; /* to this process in signal_comm */
  int error;
  /* PAT_TIMELINE (round_trace.h): a completed round's trace waits in
   * finished for the application's thread to write it (pat_prefetch_waited,
   * the next start, or the end) */
  int tracing;
  long long trace_id;  /* its number in the timeline */
  int64_t last_pass;
  pat_round_trace finished;
  int finished_pending;
};

static pthread_mutex_t prefetch_lock = PTHREAD_MUTEX_INITIALIZER;
static pat_prefetch *calls; /* under prefetch_lock */
static int have_calls;      /* atomic: the background pass skips the lock while 0 */
static long long rounds_done, staged_count, relays, spread_rounds, own_rounds; /* atomic */

long long pat_prefetch_rounds(void) { return __atomic_load_n(&rounds_done, __ATOMIC_RELAXED); }
long long pat_prefetch_staged(void) { return __atomic_load_n(&staged_count, __ATOMIC_RELAXED); }
long long pat_prefetch_relays(void) { return __atomic_load_n(&relays, __ATOMIC_RELAXED); }
long long pat_prefetch_spread_rounds(void) { return __atomic_load_n(&spread_rounds, __ATOMIC_RELAXED); }
long long pat_prefetch_own_rounds(void) { return __atomic_load_n(&own_rounds, __ATOMIC_RELAXED); }

/* Blocks are cut into more than P - 1 pieces only up to this P, and at most this many per relay:
 * a piece's index at its relay rides in the tag's bits above the nine that tag_of needs there
 * (forwards leave in the order their receives complete, not the order they were sent). */
#define PAT_PREFETCH_FINE_MAX_P 64
#define PAT_PREFETCH_MAX_PER_RELAY 63
#define PAT_PREFETCH_SUB_SHIFT 9

/* Tags: ((owner·KINDS + kind)·2 + parity); the owner matters for forwarded pieces only. */
static int tag_of(int owner, int kind, int parity) { return ((owner * KINDS + kind) << 1) | parity; }

int pat_prefetch_applies(int P) {
  if (P < 2 || !pat_proc.background) return 0;
  if (tag_of(P - 1, KINDS - 1, 1) > 32767) return 0; /* the tags MPI guarantees */
  int setting = pat_proc.alg;
  return setting == PAT_ALG_AUTO ||
         (setting >= 0 && setting < PAT_ALG_COUNT && (pat_algorithms[setting].flags & PAT_ALGF_ARRIVAL));
}

/* The tag of piece j (of a relay's per_relay) of owner's block: tag_of's, j above it. */
static int piece_tag(int owner, int kind, int parity, int j) {
  return tag_of(owner, kind, parity) | (j << PAT_PREFETCH_SUB_SHIFT);
}

/* A tag's tag_of part, and its piece index (0 where P > PAT_PREFETCH_FINE_MAX_P: no index bits). */
static int tag_base(const pat_prefetch *f, int tag) {
  return f->P <= PAT_PREFETCH_FINE_MAX_P ? tag & ((1 << PAT_PREFETCH_SUB_SHIFT) - 1) : tag;
}
static int tag_sub(const pat_prefetch *f, int tag) {
  return f->P <= PAT_PREFETCH_FINE_MAX_P ? tag >> PAT_PREFETCH_SUB_SHIFT : 0;
}

/* Owner o's block goes in pieces when it relays (at least a byte a piece). */
static int splittable(const pat_prefetch *f, int o) { return f->P > 2 && f->bytes[o] >= f->P - 1; }

/* Piece p (0 .. n-1) of a block of B bytes cut in n: [lo, hi). */
static void piece(long long B, int n, int p, long long *lo, long long *hi) {
  *lo = B * p / n;
  *hi = B * (p + 1) / n;
}

/* Owner o's block in pieces: per_relay[o] to each of the P - 1 relays. */
static int pieces_of(const pat_prefetch *f, int o) { return f->per_relay[o] * (f->P - 1); }

static int block_received(const pat_prefetch *f, const round_state *rs, int o) {
  return rs->whole[o] == 2 || rs->pieces[o] == pieces_of(f, o);
}

static char *block_in_recvbuf(const pat_prefetch *f, int o) {
  return f->recvbuf + (MPI_Aint)f->displs[o] * f->extent + (f->contiguous ? f->true_lb : 0);
}

static int add_xfer(pat_prefetch *f, xfer x) {
  if (f->nx == f->cap) {
    int cap = f->cap ? 2 * f->cap : 16;
    xfer *nx = realloc(f->x, (size_t)cap * sizeof *nx);
    if (!nx) return MPI_ERR_NO_MEM;
    f->x = nx;
    f->cap = cap;
  }
  f->x[f->nx++] = x;
  return MPI_SUCCESS;
}

static int send_bytes(pat_prefetch *f, char *at, long long len, int to, int tag, int parity) {
  xfer x = {.parity = parity, .at = at, .len = (int)len, .is_send = 1};
  pat_round_trace *t = &f->round[parity].trace;
  int base = tag_base(f, tag);
  if (f->tracing && (base >> 1) % KINDS != KIND_START) /* the trace has the data's messages */
    x.traced = 1 + pat_round_trace_add(t, 1, (base >> 1) % KINDS, to, (base >> 1) / KINDS, len);
  int rc = MPI_Isend(at, (int)len, MPI_BYTE, to, tag, f->comm, &x.req);
  if (x.traced) t->msg[x.traced - 1].posted = pat_clock_global_ns();
  if (rc == MPI_SUCCESS) rc = add_xfer(f, x);
  return rc;
}

/* Block o of the current round, received, into recvbuf (once). */
static int place(pat_prefetch *f, round_state *rs, int o) {
  if (rs->placed[o] || !block_received(f, rs, o)) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  if (f->contiguous) {
    if (rs->staged[o]) memcpy(block_in_recvbuf(f, o), rs->stage + f->boff[o], (size_t)f->bytes[o]);
  } else if (f->bytes[o] > 0) {
    int pos = 0;
    rc = MPI_Unpack(rs->stage + f->boff[o], (int)f->bytes[o], &pos, block_in_recvbuf(f, o), f->counts[o],
                    f->recvtype, MPI_COMM_SELF);
  }
  rs->placed[o] = 1;
  rs->nplaced++;
  return rc;
}

static round_state *round_of_parity(pat_prefetch *f, int parity) { return &f->round[parity]; }
static int cur_parity(const pat_prefetch *f) { return (int)(f->cur & 1); }

/* A matched message: where its bytes go, and its receive posted. */
static int take_message(pat_prefetch *f, MPI_Message *msg, const MPI_Status *st, int64_t matched) {
  int tag = tag_base(f, st->MPI_TAG), sub = tag_sub(f, st->MPI_TAG), src = st->MPI_SOURCE;
  int parity = tag & 1, kind = (tag >> 1) % KINDS;
  int owner = (tag >> 1) / KINDS; /* a whole block's or a piece's sender names itself */
  int ours = owner < f->P && owner != f->me && src != f->me && (kind == KIND_FORWARDED) == (owner != src);
  if (!ours) owner = src == f->me ? (f->me + 1) % f->P : src; /* sizes to compute below; dropped */
  round_state *rs = round_of_parity(f, parity);
  int got = 0;
  MPI_Get_count(st, MPI_BYTE, &got);
  if (kind == KIND_START && ours && got == (int)sizeof(int64_t)) { /* read once the round completes */
    xfer x = {.parity = parity, .owner = owner, .kind = kind, .len = got, .at = (char *)&rs->starts[owner]};
    int rc = MPI_Imrecv(x.at, x.len, MPI_BYTE, msg, &x.req);
    return rc == MPI_SUCCESS ? add_xfer(f, x) : rc;
  }
  long long lo = 0, hi = f->bytes[owner];
  if (kind != KIND_PIECE && kind != KIND_FORWARDED && sub != 0) ours = 0;
  if (ours && (kind == KIND_PIECE || kind == KIND_FORWARDED)) { /* its relay slot, and which of the slot's pieces */
    int slot = ((kind == KIND_PIECE ? f->me : src) - owner - 1 + 2 * f->P) % f->P, m = f->per_relay[owner];
    if (sub >= m) ours = 0;
    else piece(f->bytes[owner], pieces_of(f, owner), slot * m + sub, &lo, &hi);
  }
  int direct = f->contiguous && f->started && parity == cur_parity(f);
  xfer x = {.parity = parity, .owner = owner, .kind = kind, .sub = sub, .len = (int)(hi - lo)};
  x.at = (direct ? block_in_recvbuf(f, owner) : rs->stage + f->boff[owner]) + lo;
  int rc = ours && kind != KIND_START && got == x.len ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
  if (rc != MPI_SUCCESS) { /* not a message of this schedule: taken and dropped, the round fails */
    xfer drop = {.parity = parity, .len = got > 0 ? got : 0, .is_send = 1};
    drop.sink = drop.at = malloc((size_t)drop.len + 1);
    if (!drop.sink || MPI_Imrecv(drop.sink, drop.len, MPI_BYTE, msg, &drop.req) != MPI_SUCCESS ||
        add_xfer(f, drop) != MPI_SUCCESS)
      free(drop.sink); /* out of memory: the message stays matched and unreceived */
    return rc;
  }
  if (kind == KIND_WHOLE) {
    rs->whole[owner] = 1;
    rs->staged[owner] = !direct;
  } else if (!direct) {
    rs->staged[owner] = 1; /* pieces before the start: placed at the start or as they land (received) */
  }
  x.staged = !direct;
  if (f->tracing) {
    x.traced = 1 + pat_round_trace_add(&rs->trace, 0, kind, src, owner, x.len);
    if (x.traced) {
      rs->trace.msg[x.traced - 1].matched = matched;
      rs->trace.msg[x.traced - 1].staged = x.staged;
    }
  }
  rc = MPI_Imrecv(x.at, x.len, MPI_BYTE, msg, &x.req);
  if (x.traced) rs->trace.msg[x.traced - 1].posted = pat_clock_global_ns();
  if (rc == MPI_SUCCESS) rc = add_xfer(f, x);
  return rc;
}

/* Owner o relays its block of this parity's round (a piece came): the
 * whole message a start posted a receive for never comes.  The receive is
 * cancelled; its completion (progress_call) drops it. */
static void cancel_preposted(pat_prefetch *f, int parity, int o) {
  for (int i = 0; i < f->nx; i++)
    if (f->x[i].preposted && f->x[i].parity == parity && f->x[i].owner == o) PMPI_Cancel(&f->x[i].req);
}

/* At this rank's start: a receive posted straight into recvbuf for every
 * whole block not yet matched, as a blocking schedule posts its receives
 * before its sends.  Matched one by one as the background thread's probe
 * found them (MPI_Improbe, then MPI_Imrecv), the round's receives started
 * well after the sends where ranks share few cores, and balanced rounds
 * were slower than MPI's own all-gather (BENCHMARKS.md, Persistent
 * all-gathers).
 * An owner that relays sends pieces instead; its receive is cancelled once
 * a piece comes (cancel_preposted).  Contiguous recvtypes only (the others
 * unpack from the staging buffer). */
static int prepost_wholes(pat_prefetch *f, round_state *rs, int q) {
  if (!f->contiguous) return MPI_SUCCESS;
  for (int k = 1; k < f->P; k++) {
    int o = (f->me - k + f->P) % f->P; /* the order a blocking DIRECT receives in */
    if (rs->whole[o] || rs->pieces[o] || f->bytes[o] == 0) continue;
    if (f->spread && splittable(f, o)) continue; /* it comes in pieces */
    xfer x = {.parity = q, .owner = o, .kind = KIND_WHOLE, .len = (int)f->bytes[o], .preposted = 1};
    x.at = block_in_recvbuf(f, o);
    if (f->tracing) {
      x.traced = 1 + pat_round_trace_add(&rs->trace, 0, KIND_WHOLE, o, o, x.len);
      if (x.traced) rs->trace.msg[x.traced - 1].matched = pat_clock_global_ns();
    }
    int rc = MPI_Irecv(x.at, x.len, MPI_BYTE, o, tag_of(o, KIND_WHOLE, q), f->comm, &x.req);
    if (x.traced) rs->trace.msg[x.traced - 1].posted = pat_clock_global_ns();
    if (rc == MPI_SUCCESS) rc = add_xfer(f, x);
    if (rc != MPI_SUCCESS) return rc;
    rs->whole[o] = 1;
  }
  return MPI_SUCCESS;
}

/* A receive completed: forward a piece, count it, place the block if its round runs. */
static int received(pat_prefetch *f, const xfer *x) {
  round_state *rs = round_of_parity(f, x->parity);
  if (x->kind == KIND_START) {
    rs->nstarts++;
    return MPI_SUCCESS;
  }
  if (x->kind == KIND_OWN) { /* MPI's own all-gather put every block in recvbuf */
    memset(rs->placed, 1, (size_t)f->P);
    rs->nplaced = f->P;
    return MPI_SUCCESS;
  }
  int rc = MPI_SUCCESS;
  if (x->staged) __atomic_add_fetch(&staged_count, 1, __ATOMIC_RELAXED);
  /* a piece staged before the start, landed after it (the start copied what was there) */
  if (x->kind != KIND_WHOLE && x->staged && f->contiguous && f->started && x->parity == cur_parity(f) &&
      !rs->staged[x->owner])
    memcpy(block_in_recvbuf(f, x->owner) + (x->at - (rs->stage + f->boff[x->owner])), x->at, (size_t)x->len);
  if (x->kind == KIND_PIECE)
    for (int d = 0; d < f->P && rc == MPI_SUCCESS; d++)
      if (d != f->me && d != x->owner)
        rc = send_bytes(f, x->at, x->len, d, piece_tag(x->owner, KIND_FORWARDED, x->parity, x->sub), x->parity);
  if (x->kind == KIND_WHOLE)
    rs->whole[x->owner] = 2;
  else if (++rs->pieces[x->owner] == 1)
    cancel_preposted(f, x->parity, x->owner);
  if (f->started && x->parity == cur_parity(f) && rc == MPI_SUCCESS) rc = place(f, rs, x->owner);
  return rc;
}

static int xfers_of(const pat_prefetch *f, int parity) {
  for (int i = 0; i < f->nx; i++)
    if (f->x[i].parity == parity) return 1;
  return 0;
}

/* Does the current round run MPI's own all-gather (auto, not in spread mode)? */
static int own_round(const pat_prefetch *f) { return f->use_own && !f->spread; }

/* The mode of the next round, from this round's starts (every rank's, so every rank decides alike). */
static int spread_mode(const pat_prefetch *f, const round_state *rs) {
  return f->P > 2 && f->tau_s > 0 && pat_regime(f->P, rs->starts, (f->P - 1) * f->tau_s) == PAT_REGIME_IMBALANCED;
}

static void clear_round(pat_prefetch *f, round_state *rs) {
  rs->nstarts = 0;
  memset(rs->whole, 0, (size_t)f->P);
  memset(rs->staged, 0, (size_t)f->P);
  memset(rs->placed, 0, (size_t)f->P);
  memset(rs->pieces, 0, (size_t)f->P * sizeof *rs->pieces);
  rs->nplaced = 0;
}

/* The round's trace, complete, into f->finished (whose last one was
 * written: at this rank's start of the round at the latest); rs's is left
 * empty for the round two on. */
static void finish_trace(pat_prefetch *f, round_state *rs) {
  rs->trace.signal = pat_clock_global_ns();
  pat_round_trace done = rs->trace;
  rs->trace = f->finished;
  f->finished = done;
  f->finished_pending = 1;
  pat_round_trace_clear(&rs->trace);
}

/* The finished round's trace, if one waits, moved into *out (under prefetch_lock). */
static int take_finished(pat_prefetch *f, pat_round_trace *out) {
  if (!f->finished_pending) return 0;
  f->finished_pending = 0;
  *out = f->finished;
  f->finished = (pat_round_trace){0};
  return 1;
}

static void write_trace(pat_round_trace *t) {
  pat_round_trace_write(t, t->what ? t->what : "prefetch");
  pat_round_trace_free(t);
}

static void signal_done(pat_prefetch *f) {
  static const char nothing = 0;
  MPI_Request sent;
  if (MPI_Isend(&nothing, 0, MPI_BYTE, f->signal_rank, f->signal_tag, f->signal_comm, &sent) == MPI_SUCCESS)
    PMPI_Request_free(&sent); /* PMPI: libpat_mpi takes MPI_Request_free over; to oneself, empty */
}

/* One non-blocking pass over a call; its round signalled once complete.
 * Returns 1 if something moved (a message matched, a transfer done). */
static int progress_call(pat_prefetch *f) {
  int moved = 0;
  if (f->tracing) { /* the suspect: a pass too rare for the transport's own progress */
    int64_t now = pat_clock_global_ns();
    pat_round_trace_pass(&f->round[cur_parity(f)].trace, f->last_pass ? now - f->last_pass : 0, f->started);
    f->last_pass = now;
  }
  /* direct mode: no message is taken before the start (the header says why) */
  for (int take = f->started || f->spread; take;) { /* every message that came */
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, &msg, &st) != MPI_SUCCESS || !flag) break;
    int rc = take_message(f, &msg, &st, f->tracing ? pat_clock_global_ns() : 0);
    if (rc != MPI_SUCCESS && f->error == MPI_SUCCESS) f->error = rc;
    moved = 1;
  }
  for (int i = 0; i < f->nx;) {
    int flag = 0, cancelled = 0;
    MPI_Status st;
    if (MPI_Test(&f->x[i].req, &flag, &st) != MPI_SUCCESS) {
      flag = 1;
      if (f->error == MPI_SUCCESS) f->error = MPI_ERR_OTHER;
    } else if (flag && f->x[i].preposted) {
      MPI_Test_cancelled(&st, &cancelled);
    }
    if (!flag) {
      i++;
      continue;
    }
    xfer x = f->x[i];
    f->x[i] = f->x[--f->nx];
    moved = 1;
    if (x.traced) f->round[x.parity].trace.msg[x.traced - 1].done = pat_clock_global_ns();
    free(x.sink);
    if (cancelled) { /* its owner relayed: the pieces brought the block */
      if (x.traced) f->round[x.parity].trace.msg[x.traced - 1].cancelled = 1;
      continue;
    }
    if (!x.is_send) {
      int rc = received(f, &x);
      if (rc != MPI_SUCCESS && f->error == MPI_SUCCESS) f->error = rc;
    }
  }
  int q = cur_parity(f);
  round_state *rs = round_of_parity(f, q);
  /* an error ends the round once nothing of it is in flight (its blocks are then undefined) */
  if (f->started && ((rs->nplaced == f->P && rs->nstarts == f->P - 1) || f->error != MPI_SUCCESS) &&
      !xfers_of(f, q)) {
    if (f->tracing) rs->trace.done = pat_clock_global_ns();
    if (pat_report_on)
      pat_report_nbc_add("persistent", own_round(f) ? "mpi-own" : "prefetch", f->P, f->bytes[f->me],
                         pat_clock_global_ns() - rs->starts[f->me]);
    f->cur++;
    f->started = 0;
    f->spread = f->error == MPI_SUCCESS && spread_mode(f, rs);
    f->error = MPI_SUCCESS; /* not carried by the signal (docs/usage.md) */
    __atomic_add_fetch(&rounds_done, 1, __ATOMIC_RELAXED);
    signal_done(f);
    if (f->tracing) finish_trace(f, rs);
    clear_round(f, rs);
  }
  return moved;
}

static void destroy(pat_prefetch *f) {
  pat_round_trace last;
  if (take_finished(f, &last)) write_trace(&last);
  pat_round_trace_free(&f->finished);
  if (f->comm != MPI_COMM_NULL) MPI_Comm_free(&f->comm);
  pat_nbc_drop_type(&f->sendtype);
  pat_nbc_drop_type(&f->recvtype);
  for (int q = 0; q < 2; q++) {
    free(f->round[q].stage);
    free(f->round[q].whole);
    free(f->round[q].pieces);
    free(f->round[q].starts);
    pat_round_trace_free(&f->round[q].trace);
  }
  free(f->counts);
  free(f->bytes);
  free(f->per_relay);
  free(f->mine);
  for (int i = 0; i < f->nx; i++) free(f->x[i].sink);
  free(f->x);
  free(f);
}

int pat_prefetch_progress(void) {
  if (!__atomic_load_n(&have_calls, __ATOMIC_ACQUIRE)) return 0;
  pat_prefetch *gone = NULL;
  int moved = 0;
  pthread_mutex_lock(&prefetch_lock);
  for (pat_prefetch **link = &calls; *link;) {
    pat_prefetch *f = *link;
    moved |= progress_call(f);
    if (f->freeing && !f->started && f->nx == 0) {
      *link = f->next;
      f->next = gone;
      gone = f;
      continue;
    }
    link = &f->next;
  }
  if (!calls) __atomic_store_n(&have_calls, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&prefetch_lock);
  while (gone) { /* communicators and types are freed with no lock held */
    pat_prefetch *f = gone;
    gone = f->next;
    destroy(f);
  }
  /* a pass that moved something is followed at once by another (a forward, the next piece), without the
   * backoff that grows while a call only waits for its next round's first message */
  if (moved) pat_wakeup_ring();
  return 1; /* messages of a next round may come at any time */
}

/* The arguments, once: what PAT_Iallgather(v) checks at every call. */
static int check(const pat_prefetch *f, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 MPI_Datatype recvtype, const int *counts, const int *displs) {
  static const char name[] = "persistent all-gather";
  long long bytes = 0;
  MPI_Count rsize;
  int rc = counts ? pat_check_allgatherv(name, sendbuf, sendcount, sendtype, f->recvbuf, counts, displs, recvtype,
                                         f->P, f->me, &rsize, &bytes)
                  : pat_check_allgather(name, sendbuf, sendcount, sendtype, f->recvbuf, f->counts[0], recvtype, &bytes);
  if (rc != MPI_SUCCESS) return rc;
  pat_type_size(recvtype, &rsize);
  for (int r = 0; r < f->P; r++)
    if ((long long)rsize * f->counts[r] > INT_MAX) return pat_fail(MPI_ERR_COUNT, "%s: a block over 2 GiB", name);
  return MPI_SUCCESS;
}

int pat_prefetch_make(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      const int *counts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Comm *own, MPI_Comm signal_comm, int signal_tag, long long trace_id, pat_prefetch **out) {
  *out = NULL;
  /* auto runs this schedule where it was measured: one rank a node (the same answer on every rank) */
  if (pat_proc.alg == PAT_ALG_AUTO && !pat_comm_one_rank_per_node(comm)) return MPI_SUCCESS;
  MPI_Count rsize = 0;
  if (recvtype == MPI_DATATYPE_NULL || pat_type_size(recvtype, &rsize))
    return pat_fail(MPI_ERR_TYPE, "persistent all-gather: bad recvtype");
  pat_prefetch *f = calloc(1, sizeof *f);
  if (!f) return pat_fail(MPI_ERR_NO_MEM, "persistent all-gather: out of memory");
  f->comm = MPI_COMM_NULL;
  f->sendtype = f->recvtype = MPI_DATATYPE_NULL;
  MPI_Comm_size(comm, &f->P);
  MPI_Comm_rank(comm, &f->me);
  int P = f->P, rc = MPI_SUCCESS;
  f->sendbuf = sendbuf;
  f->sendcount = sendcount;
  f->recvbuf = recvbuf;
  f->signal_comm = signal_comm;
  f->signal_tag = signal_tag;
  f->use_own = pat_proc.alg == PAT_ALG_AUTO;
  f->vector = counts != NULL;
  MPI_Comm_rank(signal_comm, &f->signal_rank);
  f->counts = malloc(2 * (size_t)P * sizeof *f->counts);
  f->bytes = malloc(2 * (size_t)P * sizeof *f->bytes);
  f->per_relay = malloc((size_t)P * sizeof *f->per_relay);
  if (!f->counts || !f->bytes || !f->per_relay) {
    destroy(f);
    return pat_fail(MPI_ERR_NO_MEM, "persistent all-gather: out of memory");
  }
  f->displs = f->counts + P;
  f->boff = f->bytes + P;
  for (int r = 0; r < P; r++) {
    f->counts[r] = counts ? counts[r] : recvcount;
    f->displs[r] = counts ? displs[r] : r * recvcount;
  }
  rc = check(f, sendbuf, sendcount, sendtype, recvtype, counts, displs);
  if (rc != MPI_SUCCESS) {
    destroy(f);
    return rc;
  }
  MPI_Aint lb, true_extent;
  MPI_Type_get_extent(recvtype, &lb, &f->extent);
  MPI_Type_get_true_extent(recvtype, &f->true_lb, &true_extent);
  f->contiguous = (MPI_Aint)rsize == f->extent && (MPI_Aint)rsize == true_extent;
  long long total = 0, largest = 0;
  for (int r = 0; r < P; r++) {
    f->bytes[r] = (long long)rsize * f->counts[r];
    f->boff[r] = total;
    total += f->bytes[r];
    if (f->bytes[r] > largest) largest = f->bytes[r];
  }
  f->tau_s = pat_model_cost(pat_netparams()->dflt.inter, (double)largest, 1.0); /* the engine's block time */
  for (int r = 0; r < P; r++) { /* RELAY's cut (eager-sized pieces), in whole pieces per relay */
    int k = P > 2 ? pat_relay_pieces(P, f->bytes[r]) : 1;
    int m = P <= PAT_PREFETCH_FINE_MAX_P && k >= 2 * (P - 1) ? k / (P - 1) : 1;
    f->per_relay[r] = m < PAT_PREFETCH_MAX_PER_RELAY ? m : PAT_PREFETCH_MAX_PER_RELAY;
  }
  for (int q = 0; q < 2 && rc == MPI_SUCCESS; q++) {
    round_state *rs = &f->round[q];
    rs->stage = malloc((size_t)total + 1);
    rs->whole = calloc(3 * (size_t)P, 1);
    rs->pieces = calloc((size_t)P, sizeof *rs->pieces);
    rs->starts = calloc((size_t)P, sizeof *rs->starts);
    if (!rs->stage || !rs->whole || !rs->pieces || !rs->starts) rc = MPI_ERR_NO_MEM;
    else {
      rs->staged = rs->whole + P;
      rs->placed = rs->whole + 2 * P;
    }
  }
  f->mine = malloc((size_t)f->bytes[f->me] + 1);
  if (!f->mine) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) rc = pat_nbc_keep_type(sendtype, &f->sendtype);
  if (rc == MPI_SUCCESS) rc = pat_nbc_keep_type(recvtype, &f->recvtype);
  if (rc != MPI_SUCCESS) {
    destroy(f);
    return pat_fail(rc, "persistent all-gather: cannot set the prefetching schedule up");
  }
  f->comm = *own; /* taken over: destroy frees it */
  *own = MPI_COMM_NULL;
  f->tracing = pat_timeline_on();
  f->trace_id = trace_id;
  pthread_mutex_lock(&prefetch_lock);
  f->next = calls;
  calls = f;
  __atomic_store_n(&have_calls, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&prefetch_lock);
  pat_wakeup_ring();
  *out = f;
  return MPI_SUCCESS;
}

/* This rank's block, packed into f->mine (from recvbuf in place). */
static int pack_own(pat_prefetch *f) {
  long long B = f->bytes[f->me];
  if (B == 0) return MPI_SUCCESS;
  int pos = 0, rc;
  if (f->sendbuf == MPI_IN_PLACE)
    rc = MPI_Pack(f->recvbuf + (MPI_Aint)f->displs[f->me] * f->extent, f->counts[f->me], f->recvtype, f->mine,
                  (int)B, &pos, MPI_COMM_SELF);
  else
    rc = MPI_Pack(f->sendbuf, f->sendcount, f->sendtype, f->mine, (int)B, &pos, MPI_COMM_SELF);
  if (rc == MPI_SUCCESS && pos != B) rc = MPI_ERR_TRUNCATE; /* a packed form that is not the bare bytes */
  if (rc != MPI_SUCCESS || f->sendbuf == MPI_IN_PLACE) return rc;
  if (f->contiguous) {
    memcpy(block_in_recvbuf(f, f->me), f->mine, (size_t)B);
    return MPI_SUCCESS;
  }
  pos = 0;
  return MPI_Unpack(f->mine, (int)B, &pos, block_in_recvbuf(f, f->me), f->counts[f->me], f->recvtype,
                    MPI_COMM_SELF);
}

/* Auto's round out of spread mode: MPI's own non-blocking all-gather on the
 * call's communicator (collective traffic never matches this schedule's
 * point-to-point messages there); its completion places every block. */
static int post_own(pat_prefetch *f, int q) {
  xfer x = {.parity = q, .kind = KIND_OWN};
  int rc = f->vector ? PMPI_Iallgatherv(f->sendbuf, f->sendcount, f->sendtype, f->recvbuf, f->counts, f->displs,
                                        f->recvtype, f->comm, &x.req)
                     : PMPI_Iallgather(f->sendbuf, f->sendcount, f->sendtype, f->recvbuf, f->counts[0], f->recvtype,
                                       f->comm, &x.req);
  return rc == MPI_SUCCESS ? add_xfer(f, x) : rc;
}

/* This rank's block of round q out: in pieces through the others if it
 * relays, else whole to each, after the receives of the others' blocks. */
static int send_round(pat_prefetch *f, round_state *rs, int q, int relay) {
  int P = f->P, me = f->me, rc = MPI_SUCCESS;
  long long B = f->bytes[me];
  if (relay) { /* spread mode, or the last in direct mode: relay through the others */
    __atomic_add_fetch(&relays, 1, __ATOMIC_RELAXED);
    int m = f->per_relay[me];
    for (int j = 0; j < m && rc == MPI_SUCCESS; j++) /* every relay's first piece first */
      for (int slot = 0; slot < P - 1 && rc == MPI_SUCCESS; slot++) {
        long long lo, hi;
        piece(B, pieces_of(f, me), slot * m + j, &lo, &hi);
        rc = send_bytes(f, f->mine + lo, hi - lo, (me + 1 + slot) % P, piece_tag(me, KIND_PIECE, q, j), q);
      }
    return rc;
  }
  rc = prepost_wholes(f, rs, q); /* a relaying rank receives pieces, or holds all */
  for (int k = 1; k < P && rc == MPI_SUCCESS; k++)
    rc = send_bytes(f, f->mine, B, (me + k) % P, tag_of(me, KIND_WHOLE, q), q);
  return rc;
}

int pat_prefetch_start(pat_prefetch *f) {
  int64_t arrival = pat_clock_global_ns();
  pthread_mutex_lock(&prefetch_lock);
  if (f->started) {
    pthread_mutex_unlock(&prefetch_lock);
    return pat_fail(MPI_ERR_REQUEST, "PAT_Start: the persistent all-gather is active");
  }
  int q = cur_parity(f), P = f->P, me = f->me, own = own_round(f);
  round_state *rs = &f->round[q];
  int rc = own ? MPI_SUCCESS : pack_own(f); /* MPI's own all-gather takes the application's buffers */
  if (rc != MPI_SUCCESS) {
    pthread_mutex_unlock(&prefetch_lock);
    return pat_fail(rc, "PAT_Start: cannot pack this rank's block");
  }
  f->started = 1;
  rs->placed[me] = 1;
  rs->nplaced++;
  int holds_all = 1;
  pat_round_trace *t = &rs->trace;
  if (f->tracing) t->copy_begin = pat_clock_global_ns();
  for (int o = 0; o < P; o++) {
    if (o == me) continue;
    if (!block_received(f, rs, o)) holds_all = 0;
    if (f->contiguous && rs->staged[o] && !rs->whole[o] && !block_received(f, rs, o)) {
      /* the pieces staged so far; the others come straight to recvbuf, or are copied as they land (received) */
      memcpy(block_in_recvbuf(f, o), rs->stage + f->boff[o], (size_t)f->bytes[o]);
      rs->staged[o] = 0;
    }
    int prc = place(f, rs, o);
    if (prc != MPI_SUCCESS && f->error == MPI_SUCCESS) f->error = prc;
  }
  long long B = f->bytes[me];
  int relay = !own && (holds_all || f->spread) && splittable(f, me);
  if (f->spread) __atomic_add_fetch(&spread_rounds, 1, __ATOMIC_RELAXED);
  if (own) __atomic_add_fetch(&own_rounds, 1, __ATOMIC_RELAXED);
  rs->starts[me] = arrival;
  if (f->tracing) {
    t->copy_end = pat_clock_global_ns();
    t->start = arrival;
    t->round = f->cur;
    t->rank = me;
    t->P = P;
    t->parity = q;
    t->bytes = B;
    t->relay = relay;
    t->id = f->trace_id;
    t->what = own ? "mpi-own" : NULL;
  }
  if (own) rc = post_own(f, q); /* MPI's own first: its messages leave before the start messages */
  for (int k = 1; k < P && rc == MPI_SUCCESS; k++) /* every rank's start, for the next round's mode */
    rc = send_bytes(f, (char *)&rs->starts[me], (long long)sizeof(int64_t), (me + k) % P, tag_of(me, KIND_START, q), q);
  if (!own && rc == MPI_SUCCESS) rc = send_round(f, rs, q, relay);
  if (rc != MPI_SUCCESS && f->error == MPI_SUCCESS) f->error = rc; /* the round ends in error (progress_call) */
  pat_round_trace last;
  int write_last = take_finished(f, &last); /* the application did not say when it saw it complete */
  pthread_mutex_unlock(&prefetch_lock);
  pat_wakeup_ring();
  if (write_last) write_trace(&last); /* after the sends are out: a file write on this rank's own time */
  return MPI_SUCCESS;
}

void pat_prefetch_waited(pat_prefetch *f) {
  if (!f->tracing) return;
  int64_t now = pat_clock_global_ns();
  pthread_mutex_lock(&prefetch_lock);
  pat_round_trace last;
  int have = take_finished(f, &last);
  pthread_mutex_unlock(&prefetch_lock);
  if (!have) return; /* not complete yet, or said already */
  last.waited = now;
  write_trace(&last);
}

int pat_prefetch_held(pat_prefetch *f) {
  pthread_mutex_lock(&prefetch_lock);
  int held = 0;
  const round_state *rs = &f->round[cur_parity(f)];
  for (int o = 0; o < f->P; o++) held += o != f->me && block_received(f, rs, o);
  pthread_mutex_unlock(&prefetch_lock);
  return held;
}

void pat_prefetch_free(pat_prefetch *f) {
  pthread_mutex_lock(&prefetch_lock);
  f->freeing = 1; /* the background thread's next pass lets it go once nothing is in flight */
  pthread_mutex_unlock(&prefetch_lock);
  pat_wakeup_ring();
}

void pat_prefetch_stop(void) {
  pthread_mutex_lock(&prefetch_lock);
  pat_prefetch *all = calls;
  calls = NULL;
  __atomic_store_n(&have_calls, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&prefetch_lock);
  while (all) { /* requests still in flight belong to an erroneous program: left to MPI */
    pat_prefetch *f = all;
    all = f->next;
    destroy(f);
  }
}
