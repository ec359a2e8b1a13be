/* Random layouts of a type signature (see layout.h). */
#include "layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void families_init(family *f) {
  f[0] = (family){"int", 1, {MPI_INT}, {'i'}, 4};
  f[1] = (family){"char,double", 2, {MPI_CHAR, MPI_DOUBLE}, {'c', 'd'}, 9};
  f[2] = (family){"byte", 1, {MPI_BYTE}, {'b'}, 1};
}

/* A type under construction: derived types are freed once a bigger one holds them. */
typedef struct built {
  MPI_Datatype t;
  int derived;
} built;

enum { K_BASIC, K_CONTIG, K_VECTOR, K_INDEXED, K_STRUCT, K_DUP, K_NESTED, K_RESIZED, K_COUNT };

#define MAX_DEPTH 2
#define MAX_ITEMS 64 /* units (<= 12) x items per unit (<= FAMILY_MAX_ITEMS) */

static void say(char *d, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(d, n, fmt, ap);
  va_end(ap);
  if (w >= (int)n && n > 4) strcpy(d + n - 4, "...");
}

static void drop(built *b) {
  if (b->derived) MPI_Type_free(&b->t);
}

static int item_size(MPI_Datatype t) {
  int s;
  MPI_Type_size(t, &s);
  return s;
}

/* One signature unit as C would lay it out: items at aligned offsets, the
 * extent rounded up to the largest alignment (so {char, double} has 7
 * padding bytes after the char). */
static built unit_natural(const family *f) {
  if (f->m == 1) return (built){f->item[0], 0};
  int lens[FAMILY_MAX_ITEMS] = {0};
  MPI_Aint displs[FAMILY_MAX_ITEMS] = {0}, pos = 0, align = 1;
  for (int i = 0; i < f->m; i++) {
    MPI_Aint s = item_size(f->item[i]);
    pos = (pos + s - 1) / s * s;
    displs[i] = pos;
    lens[i] = 1;
    pos += s;
    if (s > align) align = s;
  }
  MPI_Datatype st, t;
  MPI_Type_create_struct(f->m, lens, displs, (MPI_Datatype *)f->item, &st);
  MPI_Type_create_resized(st, 0, (pos + align - 1) / align * align, &t);
  MPI_Type_free(&st);
  return (built){t, 1};
}

static MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

static void name_unit(const family *f, char *d, size_t n) {
  if (f->m == 1) {
    say(d, n, "%s", f->name);
    return;
  }
  say(d, n, "{%s}", f->name);
}

static built make(const family *f, int units, rng *r, int depth, char *d, size_t n);

static built contig(const family *f, int units, char *d, size_t n) {
  built u = unit_natural(f);
  char un[32];
  name_unit(f, un, sizeof un);
  MPI_Datatype t;
  MPI_Type_contiguous(units, u.t, &t);
  drop(&u);
  say(d, n, "contig(%d,%s)", units, un);
  return (built){t, 1};
}

/* vector (single items) or hvector of natural units; the stride may be negative. */
static built vector(const family *f, int units, rng *r, char *d, size_t n) {
  static const int strides[] = {1, 2, 3, -1, -2};
  int s = strides[rng_below(r, 5)];
  built u = unit_natural(f);
  char un[32];
  name_unit(f, un, sizeof un);
  MPI_Datatype t;
  if (f->m == 1) {
    MPI_Type_vector(units, 1, s, u.t, &t);
    say(d, n, "vector(%d,1,%d,%s)", units, s, un);
  } else {
    MPI_Aint stride = s * extent_of(u.t);
    MPI_Type_create_hvector(units, 1, stride, u.t, &t);
    say(d, n, "hvector(%d,1,%ld,%s)", units, (long)stride, un);
  }
  drop(&u);
  return (built){t, 1};
}

static void say_displs(char *d, size_t n, const char *head, const long *displs, int count, const char *tail) {
  size_t w = 0;
  say(d, n, "%s", head);
  for (int i = 0; i < count && (w = strlen(d)) < n; i++) say(d + w, n - w, "%s%ld", i ? "," : "", displs[i]);
  w = strlen(d);
  if (w < n) say(d + w, n - w, "%s", tail);
}

/* Units at permuted slots (spaced by a gap, shifted so some are negative):
 * indexed / indexed_block of single items, hindexed of natural units. */
static built indexed(const family *f, int units, rng *r, char *d, size_t n) {
  int perm[MAX_ITEMS], lens[MAX_ITEMS], idispl[MAX_ITEMS];
  long ldispl[MAX_ITEMS];
  MPI_Aint adispl[MAX_ITEMS];
  for (int i = 0; i < units; i++) perm[i] = i;
  rng_shuffle(r, perm, units);
  int gap = (int)rng_range(r, 1, 2), shift = (int)rng_range(r, 0, units);
  built u = unit_natural(f);
  MPI_Aint ext = extent_of(u.t);
  for (int i = 0; i < units; i++) {
    lens[i] = 1;
    idispl[i] = perm[i] * gap - shift;
    adispl[i] = idispl[i] * ext;
    ldispl[i] = f->m == 1 ? idispl[i] : (long)adispl[i];
  }
  char un[32], head[64], tail[48];
  name_unit(f, un, sizeof un);
  MPI_Datatype t;
  if (f->m > 1) {
    MPI_Type_create_hindexed(units, lens, adispl, u.t, &t);
    say(head, sizeof head, "hindexed(%d,bytes ", units);
  } else if (rng_chance(r, 1, 2)) {
    MPI_Type_indexed(units, lens, idispl, u.t, &t);
    say(head, sizeof head, "indexed(%d,", units);
  } else {
    MPI_Type_create_indexed_block(units, 1, idispl, u.t, &t);
    say(head, sizeof head, "indexed_block(%d,1,", units);
  }
  say(tail, sizeof tail, ",%s)", un);
  say_displs(d, n, head, ldispl, units, tail);
  drop(&u);
  return (built){t, 1};
}

/* Every item on its own, in a random memory order with random padding and
 * displacements shifted below 0, resized with padding before and after. */
static built structure(const family *f, int units, rng *r, char *d, size_t n) {
  int count = units * f->m, order[MAX_ITEMS], lens[MAX_ITEMS];
  MPI_Datatype types[MAX_ITEMS];
  MPI_Aint displ[MAX_ITEMS], pos = 0, lo, hi;
  long ldispl[MAX_ITEMS];
  for (int i = 0; i < count; i++) {
    order[i] = i;
    lens[i] = 1;
    types[i] = f->item[i % f->m];
  }
  rng_shuffle(r, order, count);
  for (int k = 0; k < count; k++) { /* order[k]: the item at the k-th place in memory */
    if (rng_chance(r, 1, 3)) pos += rng_range(r, 1, 7);
    displ[order[k]] = pos;
    pos += item_size(types[order[k]]);
  }
  MPI_Aint shift = rng_range(r, 0, pos);
  for (int i = 0; i < count; i++) ldispl[i] = (long)(displ[i] -= shift);
  lo = -shift - rng_range(r, 0, 8);
  hi = pos - shift + rng_range(r, 0, 8);
  MPI_Datatype st, t;
  MPI_Type_create_struct(count, lens, displ, types, &st);
  MPI_Type_create_resized(st, lo, hi - lo, &t);
  MPI_Type_free(&st);
  char tail[64];
  say(tail, sizeof tail, ") lb %ld extent %ld", (long)lo, (long)(hi - lo));
  say_displs(d, n, f->m == 1 ? "struct(items at " : "struct(items c,d,... at ", ldispl, count, tail);
  return (built){t, 1};
}

static built dup(const family *f, int units, rng *r, int depth, char *d, size_t n) {
  char inner[LAYOUT_DESC];
  built in = make(f, units, r, depth + 1, inner, sizeof inner);
  MPI_Datatype t;
  MPI_Type_dup(in.t, &t);
  drop(&in);
  say(d, n, "dup(%s)", inner);
  return (built){t, 1};
}

/* contiguous(k, inner) with inner of units/k units. */
static built nested(const family *f, int units, rng *r, int depth, char *d, size_t n) {
  int divisors[12], nd = 0;
  for (int v = 1; v < units; v++)
    if (units % v == 0) divisors[nd++] = v;
  int v = divisors[rng_below(r, (uint64_t)nd)];
  char inner[LAYOUT_DESC];
  built in = make(f, v, r, depth + 1, inner, sizeof inner);
  MPI_Datatype t;
  MPI_Type_contiguous(units / v, in.t, &t);
  drop(&in);
  say(d, n, "contig(%d,%s)", units / v, inner);
  return (built){t, 1};
}

/* resized(inner): the lower bound moved down (below 0) and the extent grown. */
static built resized(const family *f, int units, rng *r, int depth, char *d, size_t n) {
  char inner[LAYOUT_DESC];
  built in = make(f, units, r, depth + 1, inner, sizeof inner);
  MPI_Aint lb, extent, below = rng_range(r, 1, 24), above = rng_range(r, 0, 16);
  MPI_Type_get_extent(in.t, &lb, &extent);
  MPI_Datatype t;
  MPI_Type_create_resized(in.t, lb - below, extent + below + above, &t);
  drop(&in);
  say(d, n, "resized(%s, lb %ld, extent %ld)", inner, (long)(lb - below), (long)(extent + below + above));
  return (built){t, 1};
}

static int kind_allowed(int k, const family *f, int units, int depth) {
  switch (k) {
    case K_BASIC: return f->m == 1 && units == 1;
    case K_DUP:
    case K_RESIZED: return depth < MAX_DEPTH;
    case K_NESTED: return depth < MAX_DEPTH && units > 1;
    default: return 1;
  }
}

static built make(const family *f, int units, rng *r, int depth, char *d, size_t n) {
  int k;
  do k = (int)rng_below(r, K_COUNT);
  while (!kind_allowed(k, f, units, depth));
  switch (k) {
    case K_BASIC: say(d, n, "%s", f->name); return (built){f->item[0], 0};
    case K_CONTIG: return contig(f, units, d, n);
    case K_VECTOR: return vector(f, units, r, d, n);
    case K_INDEXED: return indexed(f, units, r, d, n);
    case K_STRUCT: return structure(f, units, r, d, n);
    case K_DUP: return dup(f, units, r, depth, d, n);
    case K_NESTED: return nested(f, units, r, depth, d, n);
    default: return resized(f, units, r, depth, d, n);
  }
}

void layout_random(layout *l, const family *f, int units, rng *r) {
  built b = make(f, units, r, 0, l->desc, sizeof l->desc);
  if (b.derived) MPI_Type_commit(&b.t);
  l->type = b.t;
  l->owned = b.derived;
  l->units = units;
}

void layout_free(layout *l) {
  if (l->owned) MPI_Type_free(&l->type);
  l->owned = 0;
}
