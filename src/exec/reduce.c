/* A reduction's buffers, messages and combinations (see reduce.h). */
#include "exec/reduce.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void pat_reduce_segments(int P, int count, int *counts, int *displs) {
  int at = 0;
  for (int b = 0; b < P; b++) {
    counts[b] = count / P + (b < count % P);
    displs[b] = at;
    at += counts[b];
  }
}

int pat_reduce_init(pat_reduce *r, pat_buffers *b, MPI_Comm comm, int P, int self, void *vec, int count,
                    MPI_Datatype type, MPI_Op op) {
  memset(r, 0, sizeof *r);
  memset(b, 0, sizeof *b);
  b->block_type = MPI_DATATYPE_NULL;
  r->op = op;
  r->type = type;
  r->count = count;
  r->counts = malloc((size_t)P * sizeof *r->counts);
  r->displs = malloc((size_t)P * sizeof *r->displs);
  if (!r->counts || !r->displs) return MPI_ERR_NO_MEM;
  pat_reduce_segments(P, count, r->counts, r->displs);
  int rc = pat_buffers_typed_v(b, comm, P, self, vec, r->counts, r->displs, type);
  if (rc != MPI_SUCCESS) return rc;
  b->reduce = r;
  r->extent = b->type_extent;
  r->dense = pat_type_is_dense(type);
  /* the receive buffer spans what count elements of type touch: true extent past (count - 1) extents,
   * element 0 at -true_lb from the allocation */
  MPI_Aint tlb, textent;
  rc = MPI_Type_get_true_extent(type, &tlb, &textent);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Aint span = count > 0 ? (MPI_Aint)(count - 1) * r->extent + textent : 0;
  if (span < 0) return MPI_ERR_TYPE; /* a negative extent: not a type a vector of count can use */
  r->scratch_mem = malloc(span > 0 ? (size_t)span : 1);
  if (!r->scratch_mem) return MPI_ERR_NO_MEM;
  r->scratch = r->scratch_mem - tlb;
  return MPI_SUCCESS;
}

void pat_reduce_release(pat_reduce *r, pat_buffers *b) {
  if (b->reduce == r) {
    b->counts = b->displs = NULL; /* r's arrays */
    b->reduce = NULL;
    pat_buffers_release(b);
  }
  free(r->counts);
  free(r->displs);
  free(r->scratch_mem);
  memset(r, 0, sizeof *r);
}

/* n elements from src to dst in type-map order, holes untouched: memcpy for
 * a dense type, else MPI_Pack then MPI_Unpack (no message: two threads
 * copying at once cannot take each other's data). */
static int copy_elements(const pat_reduce *r, MPI_Comm comm, const char *src, char *dst, int n) {
  if (n == 0 || src == dst) return MPI_SUCCESS;
  if (r->dense) {
    memmove(dst, src, (size_t)n * (size_t)r->extent);
    return MPI_SUCCESS;
  }
  int bytes = 0, rc = MPI_Pack_size(n, r->type, comm, &bytes);
  if (rc != MPI_SUCCESS) return rc;
  char *tmp = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (!tmp) return MPI_ERR_NO_MEM;
  int pos = 0;
  rc = MPI_Pack(src, n, r->type, tmp, bytes, &pos, comm);
  int used = pos;
  pos = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Unpack(tmp, used, &pos, dst, n, r->type, comm);
  free(tmp);
  return rc;
}

int pat_reduce_put_own(const pat_reduce *r, const pat_buffers *b, const void *sendbuf) {
  if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return copy_elements(r, b->comm, sendbuf, b->recvbuf, r->count);
}

/* ---- an op's elements ---- */

typedef struct runs {
  int n;
  int *first, *len; /* in elements from element 0 */
} runs;

static void runs_free(runs *x) {
  free(x->first);
  free(x->len);
  x->first = x->len = NULL;
}

/* The op's spans as runs of elements, touching runs merged (a span of
 * whole segments is one run), empty ones left out. */
static int op_runs(const pat_reduce *r, int P, const pat_op *op, runs *out) {
  int most = 0;
  for (int i = 0; i < op->nspans; i++) most += op->span[i].count;
  out->n = 0;
  out->first = malloc((size_t)(most ? most : 1) * sizeof *out->first);
  out->len = malloc((size_t)(most ? most : 1) * sizeof *out->len);
  if (!out->first || !out->len) {
    runs_free(out);
    return MPI_ERR_NO_MEM;
  }
  for (int i = 0; i < op->nspans; i++)
    for (int k = 0; k < op->span[i].count; k++) {
      int seg = (op->span[i].first + k) % P;
      long long c = r->counts[seg];
      int lo = (int)(c * op->span[i].lo / PAT_FRAC_ONE), hi = (int)(c * op->span[i].hi / PAT_FRAC_ONE);
      int first = r->displs[seg] + lo, len = hi - lo;
      if (len <= 0) continue;
      if (out->n > 0 && out->first[out->n - 1] + out->len[out->n - 1] == first) {
        out->len[out->n - 1] += len;
        continue;
      }
      out->first[out->n] = first;
      out->len[out->n++] = len;
    }
  return MPI_SUCCESS;
}

/* The message of op's elements in a buffer laid out as the vector, its
 * element `origin` at base. */
static int describe_at(const pat_buffers *b, const pat_op *op, char *base, int origin, pat_msg *m) {
  const pat_reduce *r = b->reduce;
  *m = (pat_msg){base, 0, r->type, MPI_DATATYPE_NULL};
  if (op->nspans == 0) {
    m->type = MPI_BYTE;
    return MPI_SUCCESS;
  }
  runs x;
  int rc = op_runs(r, b->P, op, &x);
  if (rc != MPI_SUCCESS) return rc;
  if (x.n == 1) {
    m->addr = base + (MPI_Aint)(x.first[0] - origin) * r->extent;
    m->count = x.len[0];
  } else if (x.n > 1) {
    MPI_Aint *displ = malloc((size_t)x.n * sizeof *displ);
    rc = displ ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0; i < x.n && displ; i++) displ[i] = (MPI_Aint)(x.first[i] - origin) * r->extent;
    if (rc == MPI_SUCCESS) rc = MPI_Type_create_hindexed(x.n, x.len, displ, r->type, &m->tmp);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&m->tmp);
    free(displ);
    m->count = 1;
    m->type = m->tmp;
  }
  runs_free(&x);
  return rc;
}

int pat_reduce_describe(const pat_buffers *b, const pat_op *op, pat_msg *m) {
  const pat_reduce *r = b->reduce;
  char *base = op->kind == PAT_OP_RECV && (op->flags & PAT_OPF_REDUCE) ? r->scratch : (char *)b->recvbuf;
  return describe_at(b, op, base, 0, m);
}

/* Op's elements, arrived in a buffer laid out as the vector (element
 * `origin` at in_base), into the vector: combined on op's side
 * (PAT_OPF_REDUCE), else copied. */
static int apply_from(const pat_buffers *b, const pat_op *op, char *in_base, int origin) {
  const pat_reduce *r = b->reduce;
  runs x;
  int rc = op_runs(r, b->P, op, &x);
  const int reduce = (op->flags & PAT_OPF_REDUCE) != 0, high = (op->flags & PAT_OPF_REDUCE_HIGH) != 0;
  for (int i = 0; i < x.n && rc == MPI_SUCCESS; i++) {
    char *in = in_base + (MPI_Aint)(x.first[i] - origin) * r->extent, *held = (char *)b->recvbuf + (MPI_Aint)x.first[i] * r->extent;
    if (!reduce) {
      rc = copy_elements(r, b->comm, in, held, x.len[i]);
    } else if (!high) {
      rc = MPI_Reduce_local(in, held, x.len[i], r->type, r->op);
    } else {
      rc = MPI_Reduce_local(held, in, x.len[i], r->type, r->op);
      if (rc == MPI_SUCCESS) rc = copy_elements(r, b->comm, in, held, x.len[i]);
    }
  }
  runs_free(&x);
  return rc;
}

int pat_reduce_combine(const pat_buffers *b, const pat_op *op) { return apply_from(b, op, b->reduce->scratch, 0); }

int pat_reduce_landing_make(const pat_buffers *b, const pat_op *op, pat_reduce_landing *l) {
  const pat_reduce *r = b->reduce;
  *l = (pat_reduce_landing){NULL, NULL, 0};
  runs x;
  int rc = op_runs(r, b->P, op, &x);
  if (rc != MPI_SUCCESS || x.n == 0) {
    runs_free(&x);
    return rc;
  }
  int lo = x.first[0], hi = x.first[0] + x.len[0];
  for (int i = 1; i < x.n; i++) {
    if (x.first[i] < lo) lo = x.first[i];
    if (x.first[i] + x.len[i] > hi) hi = x.first[i] + x.len[i];
  }
  runs_free(&x);
  /* as the call's receive buffer (pat_reduce_init): the true extent past hi - lo - 1 extents */
  MPI_Aint tlb, textent;
  rc = MPI_Type_get_true_extent(r->type, &tlb, &textent);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Aint span = (MPI_Aint)(hi - lo - 1) * r->extent + textent;
  if (!(l->mem = malloc(span > 0 ? (size_t)span : 1))) return MPI_ERR_NO_MEM;
  l->base = l->mem - tlb;
  l->origin = lo;
  return MPI_SUCCESS;
}

int pat_reduce_describe_landing(const pat_buffers *b, const pat_op *op, const pat_reduce_landing *l, pat_msg *m) {
  return describe_at(b, op, l->base, l->origin, m);
}

int pat_reduce_apply_landing(const pat_buffers *b, const pat_op *op, const pat_reduce_landing *l) {
  return l->mem ? apply_from(b, op, l->base, l->origin) : MPI_SUCCESS;
}
