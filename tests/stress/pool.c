/* The communicator pool (see pool.h). */
#include "pool.h"

#include <stdio.h>
#include <string.h>

#include "rng.h"

static const char *kind_names[COMM_KINDS] = {"world", "dup", "split reversed", "split random", "sub split",
                                             "sub create_group"};

/* Does case k replace slot s?  About one slot in four per case. */
static int replaces(uint64_t seed, int64_t k, int s) {
  rng r = rng_make(seed, k, s, RNG_POOL);
  return rng_chance(&r, 1, 4);
}

/* The shape of the communicator that case k creates in slot s (k = -1: the initial pool). */
static void desc_make(comm_desc *d, uint64_t seed, int64_t k, int s, int P) {
  rng r = rng_make(seed, k, s, RNG_COMM);
  d->kind = (int)rng_below(&r, COMM_KINDS);
  d->made_at = k;
  for (int i = 0; i < P; i++) d->order[i] = i;
  d->size = P;
  if (d->kind == COMM_SPLIT_REVERSED)
    for (int i = 0; i < P; i++) d->order[i] = P - 1 - i;
  if (d->kind == COMM_SPLIT_RANDOM || d->kind == COMM_SUB_SPLIT || d->kind == COMM_SUB_GROUP)
    rng_shuffle(&r, d->order, P);
  if (d->kind == COMM_SUB_SPLIT || d->kind == COMM_SUB_GROUP) d->size = P < 2 ? P : (int)rng_range(&r, 2, P);
}

static int position(const comm_desc *d, int world_rank) {
  for (int i = 0; i < d->size; i++)
    if (d->order[i] == world_rank) return i;
  return -1;
}

/* Collective over world (or, for create_group, over the members). */
static MPI_Comm create(const comm_desc *d, int rank, int tag) {
  MPI_Comm c = MPI_COMM_NULL;
  int pos = position(d, rank);
  switch (d->kind) {
    case COMM_WORLD: return MPI_COMM_WORLD;
    case COMM_DUP: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
    case COMM_SUB_GROUP:
      if (pos >= 0) {
        MPI_Group world, g;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, d->size, d->order, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, tag, &c);
        MPI_Group_free(&g);
        MPI_Group_free(&world);
      }
      break;
    default: MPI_Comm_split(MPI_COMM_WORLD, pos >= 0 ? 0 : MPI_UNDEFINED, pos, &c); break;
  }
  if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  return c;
}

static void release(MPI_Comm *c) {
  if (*c != MPI_COMM_NULL && *c != MPI_COMM_WORLD) MPI_Comm_free(c);
  *c = MPI_COMM_NULL;
}

/* This rank's order of frees in case k: all ascending, odd ranks
 * descending, or a shuffle of its own. */
static void free_order(const pool *p, int64_t k, int *order) {
  rng shared = rng_make(p->seed, k, RNG_ANY, RNG_FREE), mine = rng_make(p->seed, k, p->rank, RNG_FREE);
  int mode = (int)rng_below(&shared, 3);
  for (int s = 0; s < POOL_SLOTS; s++) order[s] = mode == 1 && p->rank % 2 ? POOL_SLOTS - 1 - s : s;
  if (mode == 2) rng_shuffle(&mine, order, POOL_SLOTS);
}

void pool_start(pool *p, uint64_t seed, int64_t first) {
  MPI_Comm_size(MPI_COMM_WORLD, &p->P);
  MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
  p->seed = seed;
  for (int s = 0; s < POOL_SLOTS; s++) {
    int64_t k = first - 1;
    while (k >= 0 && !replaces(seed, k, s)) k--;
    desc_make(&p->desc[s], seed, k, s, p->P);
    p->comm[s] = create(&p->desc[s], p->rank, s);
  }
}

void pool_churn(pool *p, int64_t k) {
  int order[POOL_SLOTS];
  free_order(p, k, order);
  for (int i = 0; i < POOL_SLOTS; i++)
    if (replaces(p->seed, k, order[i])) release(&p->comm[order[i]]);
  for (int s = 0; s < POOL_SLOTS; s++)
    if (replaces(p->seed, k, s)) {
      desc_make(&p->desc[s], p->seed, k, s, p->P);
      p->comm[s] = create(&p->desc[s], p->rank, s);
    }
}

void pool_finish(pool *p) {
  for (int s = 0; s < POOL_SLOTS; s++) {
    int i = p->rank % 2 ? POOL_SLOTS - 1 - s : s;
    release(&p->comm[i]);
  }
}

void comm_desc_text(const comm_desc *d, char *out, size_t n) {
  int w = snprintf(out, n, "%s, %d ranks: world", kind_names[d->kind], d->size);
  for (int i = 0; i < d->size && w > 0 && (size_t)w < n; i++)
    w += snprintf(out + w, n - (size_t)w, "%s%d", i ? "," : " ", d->order[i]);
  if (w > 0 && (size_t)w < n) snprintf(out + w, n - (size_t)w, " (made at case %lld)", (long long)d->made_at);
}
