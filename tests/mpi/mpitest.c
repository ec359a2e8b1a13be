#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct padded {
  char c;
  double d;
  int i[2];
} padded;

int test_types_create(test_type *t) {
  t[0] = (test_type){"MPI_FLOAT", MPI_FLOAT};
  t[1] = (test_type){"MPI_DOUBLE", MPI_DOUBLE};
  t[2] = (test_type){"MPI_BYTE", MPI_BYTE};
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 3, MPI_INT, &vec); /* two ints, two-int hole between them */
  MPI_Type_commit(&vec);
  t[3] = (test_type){"vector(2,1,3,INT)", vec};
  int lens[3] = {1, 1, 2};
  MPI_Aint displs[3] = {offsetof(padded, c), offsetof(padded, d), offsetof(padded, i)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, st, sr;
  MPI_Type_create_struct(3, lens, displs, types, &st);
  MPI_Type_create_resized(st, 0, sizeof(padded), &sr);
  MPI_Type_free(&st);
  MPI_Type_commit(&sr);
  t[4] = (test_type){"struct{char,double,int[2]}", sr};
  return 5;
}

void test_types_free(test_type *t, int n) {
  for (int i = 3; i < n; i++) MPI_Type_free(&t[i].type);
}

void test_comms_create(test_comm comms[TEST_NCOMMS]) {
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  comms[0] = (test_comm){"world", MPI_COMM_WORLD};
  comms[1].name = "reversed";
  MPI_Comm_split(MPI_COMM_WORLD, 0, P - rank, &comms[1].comm);
  comms[2].name = "half";
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &comms[2].comm);
}

void test_comms_free(test_comm comms[TEST_NCOMMS]) {
  for (int i = 1; i < TEST_NCOMMS; i++) MPI_Comm_free(&comms[i].comm);
}

void fill_pattern(void *buf, size_t n, unsigned seed) {
  unsigned char *p = buf;
  unsigned x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    p[i] = (unsigned char)(x >> 16);
  }
}

long first_difference(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  if (memcmp(x, y, n) == 0) return -1;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return (long)i;
  return -1;
}

int report_failures(const char *what, long cases, long local_failures, MPI_Comm comm) {
  /* a case fails if it fails on any rank; the rank with most failures bounds
   * the number of failed cases from below */
  long worst = 0, all_cases = 0;
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Allreduce(&local_failures, &worst, 1, MPI_LONG, MPI_MAX, comm);
  MPI_Allreduce(&cases, &all_cases, 1, MPI_LONG, MPI_MAX, comm);
  if (rank == 0) {
    printf("%s: %ld cases\n", what, all_cases);
    printf("%ld passed, %ld failed\n", all_cases - worst, worst);
    fflush(stdout);
  }
  return worst ? 1 : 0;
}

const char *test_init(int *argc, char ***argv, int *rank, int *P, const char *dflt) {
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, P);
  return *argc > 1 ? (*argv)[1] : dflt;
}

void sleep_ms(double ms) {
  if (!(ms > 0)) return;
  struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000 * (double)(time_t)(ms / 1000)) * 1e6)};
  nanosleep(&ts, NULL);
}

/* The references of the current algorithm's cases, in the order it runs
 * them (ref_begin and ref_matches in mpitest.h). */
static struct {
  int every;  /* PAT_MATRIX_REF_EVERY */
  int next;   /* the current algorithm's next case */
  int cur;    /* the case between ref_begin and ref_matches */
  int made;   /* ... whose reference ref_begin asked for */
  int n, cap; /* cases with a reference */
  uint64_t *hash;
} refs = {-1, 0, 0, 0, 0, 0, NULL};

/* 64 bits of every byte of buf[0..n) */
static uint64_t buffer_hash(const void *buf, size_t n) {
  const unsigned char *p = buf;
  uint64_t h = 0x243F6A8885A308D3u ^ (uint64_t)n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15u;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = ((h ^ p[i]) * 0x100000001B3u) ^ (h >> 31);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDu;
  return h ^ (h >> 33);
}

void ref_next_alg(void) { refs.next = 0; }

int ref_begin(MPI_Comm comm) {
  if (refs.every < 0) {
    const char *every = getenv("PAT_MATRIX_REF_EVERY");
    refs.every = every && *every && strcmp(every, "0") != 0;
  }
  refs.cur = refs.next++;
  refs.made = refs.every || refs.cur >= refs.n;
  if (!refs.made) PMPI_Barrier(comm);
  return refs.made;
}

int ref_matches(const void *ours, const void *ref, size_t total, long *diff) {
  *diff = -1;
  if (!refs.made) return buffer_hash(ours, total) == refs.hash[refs.cur];
  if (!refs.every && refs.cur == refs.n) {
    if (refs.n == refs.cap) {
      refs.cap = refs.cap ? 2 * refs.cap : 256;
      refs.hash = realloc(refs.hash, (size_t)refs.cap * sizeof *refs.hash);
    }
    refs.hash[refs.n++] = buffer_hash(ref, total);
  }
  *diff = first_difference(ours, ref, total);
  return *diff < 0;
}

const char *ref_hint(int matched, long diff) {
  return matched || diff >= 0 ? "" : " (differs from MPI's own result; PAT_MATRIX_REF_EVERY=1 names the byte)";
}
