/*
 * The executor and the buffers on hand-made schedules, at P = 2, one mode
 * per run (argv[1]):
 *
 *   large   a block just over INT_MAX bytes in the packed view: a whole-block
 *           message, a piece over INT_MAX bytes, and the local copies of a
 *           type whose map is not memory order (own block into the stage,
 *           stage into recvbuf).  Memory is kept low: untouched pages of a
 *           large allocation read as zeros and cost nothing, so only the
 *           bytes a test writes are resident (about one block at a time).
 *           Skipped (exit 77) when the node has too little memory available.
 *   cancel  a step of a receive and a large send whose peer posts nothing is
 *           cancelled: pat_exec_cancel returns at once (Open MPI's ob1
 *           cannot cancel the send: it waited for it forever), the receive
 *           is gone (a later message does not land in the stage), and the
 *           send, handed over as pending, completes once the peer receives
 *           it, with the stage kept until then.
 *   post-error  a step fails while being posted (its second op names no
 *           rank): the receive posted before it is cancelled, not left
 *           active on a stage about to be freed.
 *   wait-error  a step's receive brings a block of another size (an
 *           erroneous program): the error is the request's own
 *           (MPI_ERR_TRUNCATE), no request is left behind, and the later
 *           steps still run, so that the peers waiting for them finish.
 *
 * Each result is checked byte by byte.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"
#include "mpitest.h"

#define SKIPPED 77

static int rank;
static long failures, cases;

/* Packed buffers for P = 2 over a stage of 2 blocks (not touched here). */
static pat_buffers packed_buffers(MPI_Comm comm, size_t block_bytes) {
  pat_buffers b;
  memset(&b, 0, sizeof b);
  b.P = 2;
  b.self = rank;
  b.comm = comm;
  b.packed = 1;
  b.block_type = MPI_DATATYPE_NULL;
  b.block_bytes = block_bytes;
  b.stage = malloc(2 * block_bytes);
  return b;
}

/* Run this rank's part of a schedule on b. */
static int run(const pat_sched *s, pat_buffers *b) {
  pat_exec e;
  int rc = pat_exec_init(&e, s, rank, b);
  if (rc == MPI_SUCCESS) rc = pat_exec_run(&e);
  pat_exec_free(&e);
  return rc;
}

/* ---- large ---- */

/* Just over INT_MAX, a multiple of 8 (whole int pairs). */
static const size_t big_block = ((size_t)1 << 31) + ((size_t)1 << 20) + 8;

/* Offsets of the bytes the sender marks: both ends and around INT_MAX. */
static const size_t marks[] = {0, 1, 4095, (size_t)INT_MAX - 8, (size_t)INT_MAX - 1, (size_t)INT_MAX,
                               (size_t)INT_MAX + 1, ((size_t)1 << 31) + 4096, ((size_t)1 << 31) + ((size_t)1 << 20)};
#define NMARKS (sizeof marks / sizeof marks[0])

static unsigned char mark_value(size_t i) { return (unsigned char)(0x11 + 0x1F * i); }

static void put_marks(unsigned char *block) {
  for (size_t i = 0; i < NMARKS; i++) block[marks[i]] = mark_value(i);
}

/* The byte a marked block holds at offset off: its mark, else zero. */
static unsigned char marked_byte(size_t off) {
  for (size_t i = 0; i < NMARKS; i++)
    if (marks[i] == off) return mark_value(i);
  return 0;
}

/* First offset of block (n bytes) that differs from a marked block, or -1. */
static long long first_unmarked(const unsigned char *block, size_t n) {
  for (size_t off = 0; off < n; off++)
    if (block[off] != marked_byte(off)) return (long long)off;
  return -1;
}

/* Is there room on this node for both ranks' share of the test? */
static int memory_is_available(size_t need) {
  long long avail_kib = -1;
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &avail_kib) == 1) break;
  if (f) fclose(f);
  int ok = avail_kib >= 0 && (size_t)avail_kib * 1024 >= need, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all && rank == 0)
    printf("SKIPPED: needs %.1f GiB of available memory, MemAvailable is %.1f GiB\n", need / 1073741824.0,
           avail_kib / 1048576.0);
  return all;
}

/* Block 0 goes from rank 0 to rank 1, one span per step (a whole block, or
 * pieces): every byte arrives, also past INT_MAX. */
static void large_transfer(MPI_Comm comm, const char *what, int nspans, const pat_span *spans) {
  pat_buffers b = packed_buffers(comm, big_block);
  pat_sched s;
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  for (int i = 0; i < nspans; i++) pat_sched_transfer(&s, i, 0, 1, 1, &spans[i], 0);
  pat_sched_finalize(&s);
  unsigned char *block0 = (unsigned char *)b.stage;
  if (rank == 0) put_marks(block0);
  if (rank == 1) memset(block0, 0xA5, big_block); /* every byte must be overwritten */
  int rc = run(&s, &b);
  CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
  if (rank == 1) {
    long long off = first_unmarked(block0, big_block);
    CHECK(off < 0, "%s: byte %lld of the block is wrong", what, off);
  }
  pat_sched_free(&s);
  free(b.stage);
}

/* The swapped pair: its ints move in the other order. */
static MPI_Datatype swapped_pair(void) {
  int lens[2] = {1, 1}, displs[2] = {1, 0};
  MPI_Datatype t;
  MPI_Type_indexed(2, lens, displs, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

/* Is `out` the ints of `in` with every pair swapped, over n bytes? */
static long long first_unswapped(const int *in, const int *out, size_t n) {
  for (size_t i = 0; i + 1 < n / sizeof(int); i += 2)
    if (out[i] != in[i + 1] || out[i + 1] != in[i]) return (long long)(i * sizeof(int));
  return -1;
}

/* Buffers whose recvbuf holds 2 blocks of swapped pairs (not touched here). */
static pat_buffers pair_buffers(MPI_Comm comm, MPI_Datatype pair) {
  pat_buffers b = packed_buffers(comm, big_block);
  b.recvbuf = malloc(2 * big_block);
  b.recvcount = (int)(big_block / 8);
  b.recvtype = pair;
  b.block_extent = (MPI_Aint)big_block;
  return b;
}

/* Rank 0 alone, one block written at a time: its input of swapped pairs
 * packed into the stage (in MPI's order: swapped), then a stage block
 * unpacked into recvbuf's block 1, at an offset past INT_MAX (swapped
 * back). */
static void large_local_copies(MPI_Comm comm) {
  if (rank != 0) return;
  MPI_Datatype pair = swapped_pair();
  pat_buffers b = pair_buffers(comm, pair);
  unsigned char *input = calloc(1, big_block);
  put_marks(input);
  int rc = pat_buffers_put_own(&b, input, b.recvcount, pair);
  CHECK(rc == MPI_SUCCESS, "put_own of %zu bytes of swapped pairs: rc %d", big_block, rc);
  long long off = first_unswapped((const int *)input, (const int *)b.stage, big_block);
  CHECK(off < 0, "put_own: the stage is not the input's pairs swapped, from byte %lld", off);
  free(input);
  free(b.stage);
  free(b.recvbuf);

  b = pair_buffers(comm, pair);
  put_marks((unsigned char *)b.stage + big_block);
  memset((char *)b.recvbuf + big_block, 0xA5, big_block);
  rc = pat_buffers_unpack(&b, 1); /* this rank's block 0 is skipped */
  CHECK(rc == MPI_SUCCESS, "unpack of %zu bytes of swapped pairs: rc %d", big_block, rc);
  off = first_unswapped((const int *)(b.stage + big_block), (const int *)((char *)b.recvbuf + big_block), big_block);
  CHECK(off < 0, "unpack: recvbuf's block 1 is not the stage's pairs swapped, from byte %lld", off);
  free(b.stage);
  free(b.recvbuf);
  MPI_Type_free(&pair);
}

static int large(MPI_Comm comm) {
  /* one block is written at a time; twice that, and 1 GiB to spare */
  if (!memory_is_available(2 * big_block + ((size_t)1 << 30))) return SKIPPED;
  pat_span whole = pat_blocks(2, 0, 1);
  large_transfer(comm, "a whole block over INT_MAX", 1, &whole);
  /* a piece over INT_MAX bytes, then the rest of the block */
  pat_span pieces[2] = {pat_piece(0, 0, PAT_FRAC_ONE - 1), pat_piece(0, PAT_FRAC_ONE - 1, PAT_FRAC_ONE)};
  large_transfer(comm, "a piece over INT_MAX", 2, pieces);
  MPI_Barrier(MPI_COMM_WORLD);
  large_local_copies(comm);
  return 0;
}

/* ---- error paths ---- */

/* The tag of step 0 of an executor whose tag generation is 0. */
#define STEP0_TAG 0

/* A message that arrives after the step that would have received it was
 * abandoned: received here, it proves no request of that step still waits
 * for it (which would write it into the stage). */
static void late_message(MPI_Comm comm, int from, int to, const char *what) {
  int value = 4242, got = 0;
  if (rank == from) MPI_Send(&value, 1, MPI_INT, to, STEP0_TAG, comm);
  if (rank == to) {
    MPI_Recv(&got, 1, MPI_INT, from, STEP0_TAG, comm, MPI_STATUS_IGNORE);
    CHECK(got == value, "%s: the late message carried %d", what, got);
  }
}

static int error_class(int rc) {
  int cls = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

/* The executor after an abandoned step: nothing in flight, nothing posted
 * after it, not done. */
static int is_stopped(pat_exec *e) {
  return !e->inflight && pat_exec_post(e) != MPI_SUCCESS && pat_exec_run(e) != MPI_SUCCESS && !pat_exec_done(e);
}

/* Rank 0's schedule of P = 2, one step: receive rank 1's block from rank 1,
 * send its own to rank `to`. */
static void rank0_one_step(pat_sched *s, int to) {
  pat_sched_init(s, 2, 0);
  pat_span mine = pat_blocks(2, 0, 1), theirs = pat_blocks(2, 1, 1);
  pat_sched_add(s, 0, 0, PAT_OP_RECV, 1, 1, &theirs, 0);
  pat_sched_add(s, 0, 0, PAT_OP_SEND, to, 1, &mine, 0);
  pat_sched_finalize(s);
}

static void cancel(MPI_Comm comm) {
  const size_t block = (size_t)1 << 20; /* past every eager limit: the send waits for its receiver */
  pat_buffers b = packed_buffers(comm, block);
  memset(b.stage, 0x5A, 2 * block);
  pat_sched s;
  rank0_one_step(&s, 1);
  MPI_Request *pending = NULL;
  int npending = 0;
  if (rank == 0) {
    pat_exec e;
    int rc = pat_exec_init(&e, &s, 0, &b);
    if (rc == MPI_SUCCESS) rc = pat_exec_post(&e);
    CHECK(rc == MPI_SUCCESS, "post: rc %d", rc);
    rc = pat_exec_cancel(&e); /* rank 1 has posted nothing */
    CHECK(rc == MPI_SUCCESS, "cancel: rc %d", rc);
    CHECK(is_stopped(&e), "steps go on after a cancel");
    CHECK(pat_exec_pending(&e) <= 1, "%d requests pending: the receive stayed", pat_exec_pending(&e));
    rc = pat_exec_take_pending(&e, &pending, &npending);
    CHECK(rc == MPI_SUCCESS && pat_exec_pending(&e) == 0, "take_pending: rc %d", rc);
    pat_exec_free(&e); /* nothing left to wait for */
  }
  MPI_Bcast(&npending, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("after the cancel, %d request%s pending (the send MPI could not cancel)\n", npending,
                        npending == 1 ? "" : "s");
  if (rank == 1 && npending == 1) { /* the send MPI could not cancel: take it */
    unsigned char *got = malloc(block);
    MPI_Recv(got, (int)block, MPI_BYTE, 0, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
    long long wrong = -1;
    for (size_t i = 0; i < block && wrong < 0; i++)
      if (got[i] != 0x5A) wrong = (long long)i;
    CHECK(wrong < 0, "the pending send delivered a wrong byte at %lld", wrong);
    free(got);
  }
  late_message(comm, 1, 0, "after a cancel");
  if (rank == 0) {
    int rc = npending ? MPI_Waitall(npending, pending, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    CHECK(rc == MPI_SUCCESS, "the pending send: rc %d", rc);
    long long touched = -1;
    for (size_t i = 0; i < 2 * block && touched < 0; i++)
      if ((unsigned char)b.stage[i] != 0x5A) touched = (long long)i;
    CHECK(touched < 0, "the stage changed at byte %lld after the cancel", touched);
  }
  free(pending);
  pat_sched_free(&s);
  free(b.stage); /* only now: the send read it until it completed */
}

static void post_error(MPI_Comm comm) {
  const size_t block = 64;
  pat_buffers b = packed_buffers(comm, block);
  memset(b.stage, 0x5A, 2 * block);
  pat_sched s;
  rank0_one_step(&s, 7); /* there is no rank 7 */
  int stopped = 1;
  if (rank == 0) {
    pat_exec e;
    int rc = pat_exec_init(&e, &s, 0, &b);
    if (rc == MPI_SUCCESS) rc = pat_exec_post(&e);
    CHECK(error_class(rc) == MPI_ERR_RANK, "posting a send to rank 7: rc %d, class %d", rc, error_class(rc));
    stopped = !e.inflight && pat_exec_pending(&e) == 0;
    CHECK(stopped, "after the failed post: in flight %d, %d requests pending", e.inflight, pat_exec_pending(&e));
    CHECK(is_stopped(&e), "steps go on after a failed post");
    if (stopped) pat_exec_free(&e);
  }
  MPI_Bcast(&stopped, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (stopped) late_message(comm, 1, 0, "after a failed post"); /* else the receive would take it */
  if (rank == 0 && stopped)
    for (size_t i = 0; i < 2 * block; i++)
      if ((unsigned char)b.stage[i] != 0x5A) {
        CHECK(0, "the stage changed at byte %zu after the failed post", i);
        break;
      }
  pat_sched_free(&s);
  if (stopped) free(b.stage); /* else a receive may still write into it */
}

static void wait_error(MPI_Comm comm) {
  /* step 0: rank 1 sends a block of 16 bytes, rank 0 expects 8;
   * step 1: rank 0 sends its block to rank 1, which must still get it */
  pat_buffers b = packed_buffers(comm, rank == 0 ? 8 : 16);
  memset(b.stage, 0x5A, rank == 0 ? 16 : 32);
  pat_sched s;
  pat_sched_init(&s, 2, PAT_ALL_RANKS);
  pat_span theirs = pat_blocks(2, 1, 1), mine = pat_blocks(2, 0, 1);
  pat_sched_transfer(&s, 0, 1, 0, 1, &theirs, 0);
  pat_sched_transfer(&s, 1, 0, 1, 1, &mine, 0);
  pat_sched_finalize(&s);
  pat_exec e;
  int rc = pat_exec_init(&e, &s, rank, &b);
  if (rc == MPI_SUCCESS) rc = pat_exec_run(&e);
  if (rank == 0) {
    CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "a truncated receive: rc %d, class %d (%s)", rc, error_class(rc),
          rc == MPI_ERR_IN_STATUS ? "MPI_ERR_IN_STATUS" : "");
    CHECK(!e.inflight && pat_exec_pending(&e) == 0 && e.reqs[0] == MPI_REQUEST_NULL,
          "after the failed step: in flight %d, %d pending, request %s", e.inflight, pat_exec_pending(&e),
          e.reqs[0] == MPI_REQUEST_NULL ? "freed" : "still allocated");
    CHECK(pat_exec_done(&e), "the step after a wrong-sized message did not run");
  } else {
    /* its own receive expected 16 bytes and got rank 0's 8: short, also an error */
    CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "a short receive: rc %d, class %d", rc, error_class(rc));
    CHECK(pat_exec_done(&e), "rank 1 did not finish its steps");
  }
  pat_exec_free(&e);
  pat_sched_free(&s);
  free(b.stage);
}

int main(int argc, char **argv) {
  int P;
  const char *mode = test_init(&argc, &argv, &rank, &P, "");
  if (P != 2) {
    if (rank == 0) fprintf(stderr, "test_executor runs at P = 2\n");
    MPI_Finalize();
    return 1;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int status = 0;
  if (strcmp(mode, "large") == 0)
    status = large(comm);
  else if (strcmp(mode, "cancel") == 0)
    cancel(comm);
  else if (strcmp(mode, "post-error") == 0)
    post_error(comm);
  else if (strcmp(mode, "wait-error") == 0)
    wait_error(comm);
  else {
    if (rank == 0) fprintf(stderr, "unknown mode '%s'\n", mode);
    failures++;
  }
  MPI_Comm_free(&comm);
  char what[64];
  snprintf(what, sizeof what, "executor %s, P=%d", mode, P);
  if (status == SKIPPED) {
    MPI_Finalize();
    return SKIPPED;
  }
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  MPI_Finalize();
  return bad;
}
