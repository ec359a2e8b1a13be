/* Random derived datatypes with a given type signature, for the stress
 * tests.  A family fixes one signature unit (e.g. {char, double}); a layout
 * is a committed datatype whose type map is `units` such units, laid out in
 * memory by one of several constructors: predefined, contiguous, vector and
 * hvector (also with a negative stride), indexed with permuted
 * displacements, a struct of every item in a random memory order with
 * padding, dup, contiguous of another layout, and resized with a negative
 * lower bound.  Elements never overlap (lb <= true lb, ub >= true ub), so a
 * layout is valid as a receive type. */
#ifndef STRESS_LAYOUT_H
#define STRESS_LAYOUT_H

#include <mpi.h>

#include "rng.h"

#define FAMILY_MAX_ITEMS 3

typedef struct family {
  const char *name;
  int m; /* basic items per signature unit */
  MPI_Datatype item[FAMILY_MAX_ITEMS];
  char letter[FAMILY_MAX_ITEMS]; /* for descriptions */
  int bytes;                     /* signature bytes per unit */
} family;

/* The families: {int}, {char, double}, {byte}. */
#define NFAMILIES 3
void families_init(family *f);

#define LAYOUT_DESC 512

typedef struct layout {
  MPI_Datatype type; /* committed */
  int units;         /* signature units per element */
  int owned;         /* a derived type this layout must free */
  char desc[LAYOUT_DESC];
} layout;

/* A random layout of exactly `units` signature units of f (units >= 1). */
void layout_random(layout *l, const family *f, int units, rng *r);
void layout_free(layout *l);

#endif
