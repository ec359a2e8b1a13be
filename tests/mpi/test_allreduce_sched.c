/*
 * The all-reduce schedules run by the executor itself (no runtime API):
 * each algorithm's schedule for this rank (pat_build_allreduce), the
 * reduction's buffers (exec/reduce.h), pat_exec_run.  At every P the test
 * runs at, for vectors of 0, 1, P - 1, 7 and 1000 elements (empty segments
 * where there are fewer elements than ranks):
 *
 *   int     MPI_SUM on MPI_INT, exact; also in place (MPI_IN_PLACE), and run
 *           step by step with pat_exec_post and pat_exec_test (as the
 *           background thread runs a schedule)
 *   double  MPI_SUM on MPI_DOUBLE: values whose sums are exact, compared
 *           exactly; and random values, within 1e-12 of the sum in rank order
 *   matrix  a user-defined non-commutative op, the product of 2x2 matrices
 *           of unsigned ints (mod 2^32) in rank order, on a type with a hole
 *           after each matrix (the hole must stay untouched): only the
 *           algorithms that keep rank order (PAT_AREDF_ORDERED)
 *
 * and in every case every rank's result is bit-identical to rank 0's.  Each
 * schedule also runs as a data flow (send windows of 1 and 64, exec/flow.c):
 * the ints exact, and the random doubles and the matrices bit-identical to
 * lockstep's (data flow keeps lockstep's order of combination); RELAY, a
 * data flow only, with its own window against windows of 1 and 64.  Last, the
 * executor refuses a reduction schedule on an all-gather's buffers and the
 * other way round.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/allreduce.h"
#include "exec/executor.h"
#include "exec/reduce.h"
#include "mpitest.h"

static int rank, P;
static long cases, failures;
static MPI_Comm comm;

/* ---- running one schedule ---- */

/* Run algorithm id on count elements of type at recv (sendbuf: the
 * contribution, or MPI_IN_PLACE), stepwise or not, in lockstep (window 0)
 * or as a data flow with that send window. */
static int run_allreduce(int id, const void *sendbuf, void *recv, int count, MPI_Datatype type, MPI_Op op,
                         int stepwise, int window) {
  pat_build_args a = {.P = P, .self = rank};
  pat_sched s;
  int rc = pat_build_allreduce(id, &s, &a);
  if (rc != PAT_OK) return MPI_ERR_INTERN;
  if (s.send_window == 0 || window > 0) s.send_window = window; /* a data flow's own (RELAY's) stays one */
  pat_reduce red;
  pat_buffers b;
  pat_exec e;
  rc = pat_reduce_init(&red, &b, comm, P, rank, recv, count, type, op);
  if (rc == MPI_SUCCESS) rc = pat_reduce_put_own(&red, &b, sendbuf);
  if (rc == MPI_SUCCESS) rc = pat_exec_init(&e, &s, rank, &b);
  if (rc == MPI_SUCCESS) {
    if (!stepwise) {
      rc = pat_exec_run(&e);
    } else {
      e.own_held = 1; /* the contribution is in place (the queue's runs set it so) */
      while (rc == MPI_SUCCESS && !pat_exec_done(&e)) {
        int done = 0; /* as the queue steps a run (run.c): a data flow is only tested */
        if (e.window == 0) rc = pat_exec_post(&e);
        while (rc == MPI_SUCCESS && !done) rc = pat_exec_test(&e, &done);
      }
      if (rc == MPI_SUCCESS) rc = e.data_error;
    }
    pat_exec_free(&e);
  }
  pat_reduce_release(&red, &b);
  pat_sched_free(&s);
  return rc;
}

/* Every rank's n bytes are rank 0's. */
static int same_everywhere(const void *buf, size_t n) {
  char *ref = malloc(n ? n : 1);
  if (rank == 0 && n) memcpy(ref, buf, n);
  MPI_Bcast(ref, (int)n, MPI_BYTE, 0, comm);
  int same = n == 0 || memcmp(ref, buf, n) == 0, all = 0;
  free(ref);
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, comm);
  return all;
}

static uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  x ^= x >> 16;
  return x;
}

/* ---- int ---- */

static int int_value(int r, int i) { return (int)(mix((uint32_t)(r * 7919 + i)) % 2001) - 1000; }

static void int_case(int id, int count, int mode) { /* mode 0: plain, 1: in place, 2: stepwise, 3: data flow
                                                      (in place, window 1), 4: data flow stepwise (window 64) */
  const char *name = pat_allreduce_algorithms[id].name,
             *how[] = {"", " in place", " stepwise", " data flow in place", " data flow stepwise"};
  int *in = malloc(((size_t)count + 1) * sizeof *in), *out = malloc(((size_t)count + 1) * sizeof *out);
  for (int i = 0; i < count; i++) {
    in[i] = int_value(rank, i);
    out[i] = mode == 1 || mode == 3 ? in[i] : -7;
  }
  int rc = run_allreduce(id, mode == 1 || mode == 3 ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM,
                         mode == 2 || mode == 4, mode == 3 ? 1 : mode == 4 ? 64 : 0);
  CHECK(rc == MPI_SUCCESS, "%s int count %d%s: rc %d", name, count, how[mode], rc);
  int bad = -1;
  for (int i = 0; i < count && bad < 0; i++) {
    long long want = 0;
    for (int r = 0; r < P; r++) want += int_value(r, i);
    if (out[i] != want) bad = i;
  }
  CHECK(bad < 0, "%s int count %d%s: element %d is %d", name, count, how[mode], bad, bad >= 0 ? out[bad] : 0);
  CHECK(same_everywhere(out, (size_t)count * sizeof *out), "%s int count %d%s: ranks differ", name, count, how[mode]);
  free(in);
  free(out);
}

/* ---- double ---- */

static void double_case(int id, int count, int exact) {
  const char *name = pat_allreduce_algorithms[id].name;
  double *in = malloc(((size_t)count + 1) * sizeof *in), *out = malloc(((size_t)count + 1) * sizeof *out);
  for (int i = 0; i < count; i++) {
    uint32_t h = mix((uint32_t)(rank * 104729 + i));
    in[i] = exact ? ldexp((double)(h % 4096), -(int)(h % 5)) : (double)h / 4294967296.0 * 3.0 - 1.0;
  }
  int rc = run_allreduce(id, in, out, count, MPI_DOUBLE, MPI_SUM, 0, 0);
  CHECK(rc == MPI_SUCCESS, "%s double count %d: rc %d", name, count, rc);
  double *flow = malloc(((size_t)count + 1) * sizeof *flow);
  for (int window = 1; window <= 64; window *= 64) {
    rc = run_allreduce(id, in, flow, count, MPI_DOUBLE, MPI_SUM, 0, window);
    CHECK(rc == MPI_SUCCESS && memcmp(flow, out, (size_t)count * sizeof *out) == 0,
          "%s double count %d, data flow window %d: rc %d, not lockstep's bits", name, count, window, rc);
  }
  free(flow);
  int bad = -1;
  for (int i = 0; i < count && bad < 0; i++) {
    double want = 0;
    for (int r = 0; r < P; r++) {
      uint32_t h = mix((uint32_t)(r * 104729 + i));
      want += exact ? ldexp((double)(h % 4096), -(int)(h % 5)) : (double)h / 4294967296.0 * 3.0 - 1.0;
    }
    if (exact ? out[i] != want : fabs(out[i] - want) > 1e-12 * (1 + fabs(want))) bad = i;
  }
  CHECK(bad < 0, "%s double%s count %d: element %d is %.17g", name, exact ? " exact" : "", count, bad,
        bad >= 0 ? out[bad] : 0.0);
  CHECK(same_everywhere(out, (size_t)count * sizeof *out), "%s double count %d: ranks differ", name, count);
  free(in);
  free(out);
}

/* ---- 2x2 matrices of unsigned, a hole after each ---- */

#define MAT_STRIDE 5 /* four entries and a hole */
#define HOLE 0xDEADBEEFu

static void mat_product(void *invec, void *inoutvec, int *len, MPI_Datatype *type) {
  (void)type;
  unsigned *a = invec, *b = inoutvec;
  for (int k = 0; k < *len; k++, a += MAT_STRIDE, b += MAT_STRIDE) {
    unsigned c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
    unsigned c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
    b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
  }
}

static void mat_value(int r, int i, unsigned *m) {
  for (int k = 0; k < 4; k++) m[k] = mix((uint32_t)(r * 31 + i * 977 + k)) % 7;
}

static void matrix_case(int id, int count, MPI_Datatype mat, MPI_Op op) {
  const char *name = pat_allreduce_algorithms[id].name;
  size_t n = (size_t)count * MAT_STRIDE + 1;
  unsigned *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  for (int i = 0; i < count; i++) {
    mat_value(rank, i, &in[i * MAT_STRIDE]);
    in[i * MAT_STRIDE + 4] = 1;
    out[i * MAT_STRIDE + 4] = HOLE;
  }
  int rc = run_allreduce(id, in, out, count, mat, op, 0, 0);
  CHECK(rc == MPI_SUCCESS, "%s matrix count %d: rc %d", name, count, rc);
  unsigned *flow = malloc(n * sizeof *flow);
  for (int i = 0; i < count; i++) flow[i * MAT_STRIDE + 4] = HOLE;
  rc = run_allreduce(id, in, flow, count, mat, op, 0, 2);
  CHECK(rc == MPI_SUCCESS && memcmp(flow, out, (size_t)count * MAT_STRIDE * sizeof *out) == 0,
        "%s matrix count %d, data flow: rc %d, not lockstep's product (or the holes written)", name, count, rc);
  free(flow);
  int bad = -1, hole = -1;
  for (int i = 0; i < count && bad < 0; i++) {
    unsigned want[MAT_STRIDE], m[4];
    mat_value(0, i, want);
    for (int r = 1; r < P; r++) {
      mat_value(r, i, m);
      int one = 1;
      want[4] = 0;
      mat_product(want, m, &one, NULL); /* m = want * m */
      memcpy(want, m, sizeof m);
    }
    if (memcmp(&out[i * MAT_STRIDE], want, 4 * sizeof *want) != 0) bad = i;
    if (out[i * MAT_STRIDE + 4] != HOLE) hole = i;
  }
  CHECK(bad < 0, "%s matrix count %d: element %d is not the product in rank order", name, count, bad);
  CHECK(hole < 0, "%s matrix count %d: the hole after element %d was written", name, count, hole);
  CHECK(same_everywhere(out, (size_t)count * MAT_STRIDE * sizeof *out), "%s matrix count %d: ranks differ", name,
        count);
  free(in);
  free(out);
}

/* ---- refusals ---- */

static void refusals(void) {
  int v = 1, w = 0;
  pat_build_args a = {.P = P, .self = rank};
  pat_sched gather, red;
  pat_build(PAT_ALG_RING, &gather, &a);
  pat_build_allreduce(PAT_ARED_RDB, &red, &a);
  pat_reduce r;
  pat_buffers rb, gb;
  pat_exec e;
  pat_reduce_init(&r, &rb, comm, P, rank, &w, 1, MPI_INT, MPI_SUM);
  pat_buffers_typed(&gb, comm, P, rank, &v, 1, MPI_INT);
  int rc = pat_exec_init(&e, &gather, rank, &rb);
  CHECK(rc == MPI_ERR_INTERN, "an all-gather schedule on a reduction's buffers: rc %d", rc);
  pat_exec_free(&e);
  rc = pat_exec_init(&e, &red, rank, &gb);
  CHECK(rc == MPI_ERR_INTERN, "a reduction schedule on an all-gather's buffers: rc %d", rc);
  pat_exec_free(&e);
  pat_buffers_release(&gb);
  pat_reduce_release(&r, &rb);
  pat_sched_free(&gather);
  pat_sched_free(&red);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, &rank, &P, "all");
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Datatype four, mat;
  MPI_Type_contiguous(4, MPI_UNSIGNED, &four);
  MPI_Type_create_resized(four, 0, MAT_STRIDE * sizeof(unsigned), &mat);
  MPI_Type_commit(&mat);
  MPI_Type_free(&four);
  MPI_Op product;
  MPI_Op_create(mat_product, 0, &product);
  const int counts[] = {0, 1, P - 1, 7, 1000};
  for (int id = 0; id < PAT_ARED_COUNT; id++)
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
      int n = counts[k];
      for (int mode = 0; mode < 5; mode++) int_case(id, n, mode);
      double_case(id, n, 1);
      double_case(id, n, 0);
      if (pat_allreduce_algorithms[id].flags & PAT_AREDF_ORDERED) matrix_case(id, n, mat, product);
    }
  refusals();
  MPI_Op_free(&product);
  MPI_Type_free(&mat);
  int rc = report_failures("test_allreduce_sched", cases, failures, comm);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return rc;
}
