/*
 * Call sites: the all-gathers an application makes on one communicator, told
 * apart by their block size in bytes (an all-gatherv of unequal blocks by
 * its shape key, pat/shape.h, and the site keeps the blocks of its last
 * call) -- never by a datatype handle, which the
 * application may free, nor by the count, which ranks may express with
 * different datatypes.  Every rank of a correct program sees the same sizes
 * in the same order, so every rank's table has the same sites at the same
 * places: decisions may be keyed by site numbers.  For each site the gaps between leaving the previous
 * call and entering one of this site are smoothed (predict.h), and the site
 * that followed it last time is remembered, so the arrival at the next call
 * can be predicted as soon as a call ends.
 *
 * The runtime keeps one table per communicator and indexes its per-site
 * statistics (report.h) by the same site numbers.  Pure: no MPI, no clock
 * reads (times are passed in, ns on the common clock).
 */
#ifndef PAT_SITES_H
#define PAT_SITES_H

#include <stdint.h>

#include "pat/predict.h"

#define PAT_SITES_MAX 16 /* sites per communicator; beyond, the least recently used is replaced */

typedef struct pat_site {
  int64_t bytes;       /* the key: bytes per block, or an all-gatherv's shape key (pat/shape.h) */
  int64_t *shape;      /* a shape key's blocks (bytes per rank, owned), NULL for equal blocks */
  uint64_t shape_hash; /* pat_shape_hash of them, 0 for equal blocks */
  int shape_n;         /* entries of shape */
  int count;           /* receive count of its first call (for reports) */
  long long calls;     /* calls made at it */
  pat_gap_history gaps;
  int successor;       /* the site called after this one last time, or -1 */
  long long last_call; /* number of the call that used it last */
} pat_site;

typedef struct pat_sites {
  pat_site site[PAT_SITES_MAX];
  int n;               /* sites in use */
  int last;            /* site of the last call, -1 before the first */
  long long calls;     /* calls recorded */
  int64_t last_exit_ns;
  int skip_gaps;       /* nothing will predict from this table: the gaps are not smoothed (0 after init) */
} pat_sites;

void pat_sites_init(pat_sites *t);
/* Frees the sites' shapes. */
void pat_sites_free(pat_sites *t);

/* Site i is an all-gatherv's shape key: keep its blocks (P bytes per rank)
 * as the last call there passed them.  Returns 0, or -1 out of memory. */
int pat_sites_set_shape(pat_sites *t, int i, int P, const int64_t *bytes);

/* The block size a model predicts site i with: its key for equal blocks,
 * else the mean of its blocks (rounded up). */
int64_t pat_sites_block_bytes(const pat_sites *t, int i);

/* The site of a call with `bytes` bytes per block (count elements): an
 * existing one, or a new one.  *fresh is 1 for a new site, 2 when the new
 * site took the place of the least recently used one (whose statistics
 * belong to the old site), else 0. */
int pat_sites_find(pat_sites *t, int count, int64_t bytes, int *fresh);

/* The site a new one would replace when the table is full (the least
 * recently used), or -1 while there is room. */
int pat_sites_victim(const pat_sites *t);

/* The site of blocks of `bytes`, or -1 if there is none. */
int pat_sites_lookup(const pat_sites *t, int64_t bytes);

/* The site expected next: the one that followed the last call's site last
 * time, or that site again; -1 before the first call. */
int pat_sites_next(const pat_sites *t);

/* A call of site i arrived at arrival_ns and left at exit_ns: learn its gap
 * (unless skip_gaps) and the succession. */
void pat_sites_record(pat_sites *t, int i, int64_t arrival_ns, int64_t exit_ns);

/* The next call, predicted from the history: its site (the successor of the
 * last call's site, or that site again), its arrival and its block size.
 * Returns 0 when there is no history to predict from. */
int pat_sites_predict(const pat_sites *t, int *site, int64_t *arrival_ns, int64_t *bytes);

#endif
