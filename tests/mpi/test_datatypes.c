/*
 * Datatypes whose type map is not their memory order, and send and receive
 * types that differ (between the two sides of a call and between ranks),
 * for every algorithm named on the command line.  MPI moves data in type-map
 * order, so a copy in memory order is wrong for, e.g., the swapped pair
 * indexed(2, {1,1}, {1,0}, MPI_INT).  Each result is compared byte by byte,
 * holes and the bytes around the buffer included, with the MPI library's own
 * all-gather (PMPI_Allgather) on the same arguments: made once per case,
 * under the first algorithm named, the others' results compared with its
 * hash (ref_begin in mpitest.h; PAT_MATRIX_REF_EVERY=1: before every call).
 *
 * Two families of layouts, each with one type signature per unit:
 *   ints: int, swapped pair, contiguous(2, swapped pair), dup(swapped pair),
 *         contiguous(3, int), a pair with a negative lower bound (ints at +4
 *         and -4, in that order), a strided vector;
 *   (char, double): padded struct, packed struct, and the same fields in
 *         the other memory order (type map order still char, double).
 * Every (send layout, receive layout) pair of a family runs, with other
 * layouts on odd ranks, at several counts including 0, and with MPI_IN_PLACE
 * for every receive layout.  Last, MPI_IN_PLACE as the receive buffer must
 * fail with MPI_ERR_BUFFER on every rank.
 *
 * --count-limit=N (not in the drop-in build) makes the executor describe
 * every byte count above N the way it describes those above INT_MAX (units
 * and a remainder), so that path runs at small sizes too.
 *
 * With -DPAT_MATRIX_DROPIN (tests/dropin) it is an unmodified MPI program,
 * like the correctness matrix: MPI_Allgather, intercepted by libpat_mpi.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allgather_under_test.h"
#include "mpitest.h"
#ifndef PAT_MATRIX_DROPIN
#include "exec/buffers.h" /* pat_buffers_set_count_limit */
#endif

/* A layout: a committed datatype and how many signature units one element holds. */
typedef struct layout {
  const char *name;
  MPI_Datatype type;
  int units;
} layout;

#define MAX_LAYOUTS 8
typedef struct family {
  const char *name;
  layout l[MAX_LAYOUTS];
  int n;
} family;

/* Units per rank: multiples of 12, so that every layout's element count is whole; the largest
 * is over the 64 KiB eager limit in every layout (60000 took CI twice as long). */
static const int unit_counts[] = {0, 12, 84, 6000, 24000};
#define NCOUNTS (int)(sizeof unit_counts / sizeof unit_counts[0])

/* Room before and after every buffer: negative lower bounds reach before the
 * buffer's address, and nothing may be written around it. */
#define GUARD 64

static long failures, cases, gathers;
static int world_rank;

static MPI_Datatype committed(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

static MPI_Datatype swapped_pair(void) {
  int lens[2] = {1, 1}, displs[2] = {1, 0};
  MPI_Datatype t;
  MPI_Type_indexed(2, lens, displs, MPI_INT, &t);
  return t;
}

static void int_family(family *f) {
  MPI_Datatype sw = committed(swapped_pair()), t;
  f->name = "ints";
  f->n = 0;
  f->l[f->n++] = (layout){"int", MPI_INT, 1};
  f->l[f->n++] = (layout){"swapped pair", sw, 2};
  MPI_Type_contiguous(2, sw, &t);
  f->l[f->n++] = (layout){"contiguous(2, swapped pair)", committed(t), 4};
  MPI_Type_dup(sw, &t);
  f->l[f->n++] = (layout){"dup(swapped pair)", committed(t), 2};
  MPI_Type_contiguous(3, MPI_INT, &t);
  f->l[f->n++] = (layout){"contiguous(3, int)", committed(t), 3};
  /* ints at +4 then -4; lower bound -8, extent 16 */
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {4, -4};
  MPI_Datatype two;
  MPI_Type_create_hindexed(2, lens, displs, MPI_INT, &two);
  MPI_Type_create_resized(two, -8, 16, &t);
  MPI_Type_free(&two);
  f->l[f->n++] = (layout){"resized pair, lb -8", committed(t), 2};
  MPI_Type_vector(2, 1, 3, MPI_INT, &t);
  f->l[f->n++] = (layout){"vector(2,1,3,int)", committed(t), 2};
}

/* struct {char at c, double at d}, resized to extent */
static MPI_Datatype char_double(MPI_Aint c, MPI_Aint d, MPI_Aint extent) {
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {c, d};
  MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, s, t;
  MPI_Type_create_struct(2, lens, displs, types, &s);
  MPI_Type_create_resized(s, 0, extent, &t);
  MPI_Type_free(&s);
  return committed(t);
}

static void char_double_family(family *f) {
  f->name = "char,double";
  f->n = 0;
  f->l[f->n++] = (layout){"padded struct{char; double}", char_double(0, 8, 16), 1};
  f->l[f->n++] = (layout){"packed struct{char; double}", char_double(0, 1, 9), 1};
  f->l[f->n++] = (layout){"struct{double; char}, map char first", char_double(8, 0, 16), 1};
}

static void family_free(family *f) {
  for (int i = 0; i < f->n; i++)
    if (f->l[i].type != MPI_INT) MPI_Type_free(&f->l[i].type);
}

/* A buffer of count elements of type, with GUARD bytes of room on both sides
 * (and more if the type reaches before its address). */
typedef struct region {
  char *base;
  size_t bytes;
  char *at; /* the address given to MPI */
} region;

static region region_make(MPI_Datatype type, size_t elements, unsigned seed) {
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &tlb, &textent);
  size_t before = GUARD + (size_t)(tlb < 0 ? -tlb : 0);
  region r;
  r.bytes = before + elements * (size_t)extent + (size_t)textent + GUARD;
  r.base = malloc(r.bytes);
  r.at = r.base + before;
  fill_pattern(r.base, r.bytes, seed);
  return r;
}

static void report_case(const char *alg, const char *what, const layout *s, const layout *r, int units, int rc,
                        long diff) {
  failures++;
  if (failures <= 20)
    fprintf(stderr, "FAIL world rank %d: alg=%s %s send=%s recv=%s units=%d rc=%d (%s) byte %ld\n", world_rank, alg,
            what, s ? s->name : "MPI_IN_PLACE", r->name, units, rc, rc == MPI_SUCCESS ? "" : error_text(rc), diff);
}

/* One all-gather of `units` signature units per rank: this rank sends with
 * layout s (NULL: MPI_IN_PLACE) and receives with layout r. */
static void check_gather(const char *alg, MPI_Comm comm, const layout *s, const layout *r, int units) {
  int P, rank;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  int rcount = units / r->units;
  region ours = region_make(r->type, (size_t)rcount * P, (unsigned)rank + 7u);
  region ref = region_make(r->type, (size_t)rcount * P, (unsigned)rank + 7u);
  region send = {0};
  const void *sendbuf = MPI_IN_PLACE;
  int scount = 0;
  MPI_Datatype stype = MPI_DATATYPE_NULL;
  if (s) {
    scount = units / s->units;
    stype = s->type;
    send = region_make(s->type, (size_t)scount, (unsigned)rank * 7919u + (unsigned)units);
    sendbuf = send.at;
  }
  if (ref_begin(comm)) PMPI_Allgather(sendbuf, scount, stype, ref.at, rcount, r->type, comm);
  int rc = ALLGATHER(sendbuf, scount, stype, ours.at, rcount, r->type, comm);
  cases++;
  gathers++;
  long diff;
  int same = ref_matches(ours.base, ref.base, ours.bytes, &diff);
  if (rc != MPI_SUCCESS || !same) report_case(alg, ref_hint(same, diff), s, r, units, rc, diff);
  free(ours.base);
  free(ref.base);
  free(send.base);
}

/* Every (send, receive) pair of the family on even ranks; odd ranks use other
 * layouts, so the types differ between ranks too. */
static void check_family(const char *alg, MPI_Comm comm, const family *f) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int odd = rank % 2;
  for (int si = 0; si < f->n; si++)
    for (int ri = 0; ri < f->n; ri++)
      for (int c = 0; c < NCOUNTS; c++) {
        const layout *s = &f->l[odd ? (si + 1) % f->n : si];
        const layout *r = &f->l[odd ? (ri + 2) % f->n : ri];
        check_gather(alg, comm, s, r, unit_counts[c]);
      }
  for (int ri = 0; ri < f->n; ri++)
    for (int c = 0; c < NCOUNTS; c++) check_gather(alg, comm, NULL, &f->l[odd ? (ri + 1) % f->n : ri], unit_counts[c]);
}

/* MPI_IN_PLACE is for the send buffer only: as the receive buffer it is an
 * error on every rank, before anything is sent. */
static void check_in_place_recvbuf(const char *alg, MPI_Comm comm) {
  int mine[2] = {1, 2};
  int rc = ALLGATHER(mine, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, comm);
  int cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  cases++;
  if (cls != MPI_ERR_BUFFER) {
    failures++;
    fprintf(stderr, "FAIL world rank %d: alg=%s MPI_IN_PLACE as recvbuf gave rc=%d class %d (%s), not MPI_ERR_BUFFER\n",
            world_rank, alg, rc, cls, rc == MPI_SUCCESS ? "success" : error_text(rc));
  }
}

int main(int argc, char **argv) {
  const char *const *args;
  int nargs = under_test_start(&argc, &argv, &args);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *algs[64];
  int nalgs = 0;
  for (int i = 0; i < nargs && nalgs < 64; i++) {
#ifndef PAT_MATRIX_DROPIN
    long limit;
    if (sscanf(args[i], "--count-limit=%ld", &limit) == 1) {
      pat_buffers_set_count_limit((size_t)limit);
      continue;
    }
#endif
    algs[nalgs++] = args[i];
  }
  family families[2];
  int_family(&families[0]);
  char_double_family(&families[1]);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  for (int a = 0; a < nalgs; a++) {
    const char *alg = algs[a];
    ref_next_alg();
    if (under_test_use(alg)) {
      failures++;
      continue;
    }
    for (int f = 0; f < 2; f++) check_family(alg, comm, &families[f]);
  }
  /* last: before libpat checked it, this crashed */
  for (int a = 0; a < nalgs; a++) {
#ifndef PAT_MATRIX_DROPIN
    if (PAT_UseAlg(algs[a]) != MPI_SUCCESS) continue;
#endif
    check_in_place_recvbuf(algs[a], comm);
  }
#ifdef PAT_MATRIX_DROPIN
  failures += dropin_check(comm, algs[0], gathers); /* refused calls are not counted */
#endif
  char what[64];
  snprintf(what, sizeof what, "datatypes, P=%d", P);
  int bad = report_failures(what, cases, failures, MPI_COMM_WORLD);
  MPI_Comm_free(&comm);
  for (int f = 0; f < 2; f++) family_free(&families[f]);
  under_test_finish();
  return bad;
}
