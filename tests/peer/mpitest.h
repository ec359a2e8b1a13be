/* A stand-in for the part of MPICH's test harness (test/mpi/util/mtest.c and
 * its headers) that the MPICH test programs of the peer runs use
 * (run_mpich_nbc.sh, run_mpich_allred.sh, run_mpich_allgather.sh), written for libpat: MPICH's own
 * harness needs its configure step.  Everything is static inline so that a
 * test is one translation unit, plus mtest_main.c for the tests that define
 * run() instead of main().
 *
 * What the tests rely on, and this provides:
 *   MTest_Init/MTest_Finalize  initialise at MTEST_THREADLEVEL_DEFAULT (as
 *                              MPICH's harness: single by default), report
 *                              " No Errors" or the count on rank 0.
 *   MTestGetIntracomm(General) a sequence of intra-communicators, each
 *                              built another way (dup, split with reversed
 *                              keys, a group, a merged inter-communicator,
 *                              parts of the world with MPI_COMM_NULL on the
 *                              ranks left out): libpat keeps state per
 *                              communicator, and a rank order other than
 *                              the world's is what a reduction in rank order
 *                              must get right.
 *   MTestGetIntercomm          inter-communicators of several shapes.
 *   MTestArgList*              "-key=value" arguments.
 * The communicator sequences are this file's own, not MPICH's: the tests
 * only need each to be a valid communicator they have not seen before. */
#ifndef PAT_PEER_MPITEST_H
#define PAT_PEER_MPITEST_H
#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h> /* usleep, which nonblocking3.c uses */

/* What MPICH's configure would find on this platform (allred.c tests
 * MPI_C_BOOL only where the compiler has _Bool). */
#define HAVE__BOOL 1

/* MPI 4's persistent collectives under the names Open MPI 4.1 gives them
 * (its pcollreq extension), as MPICH's harness maps MPIX_ names (p_allred.c,
 * p_allgather.c, p_allgatherv.c). */
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Allgatherv_init MPIX_Allgatherv_init
#endif

#ifndef MTEST_MPI_VERSION
#define MTEST_MPI_VERSION MPI_VERSION
#endif
#ifndef MTEST_MPI_SUBVERSION
#define MTEST_MPI_SUBVERSION MPI_SUBVERSION
#endif
#define MTEST_HAVE_MIN_MPI_VERSION(major_, minor_) \
  (MTEST_MPI_VERSION > (major_) || (MTEST_MPI_VERSION == (major_) && MTEST_MPI_SUBVERSION >= (minor_)))

int run(const char *arg); /* the tests without a main() of their own; mtest_main.c calls it */

static inline int mtest_verbosity(void) {
  const char *v = getenv("MPITEST_VERBOSE");
  return v ? atoi(v) : 0;
}

static inline void MTest_Init_thread(int *argc, char ***argv, int required, int *provided) {
  MPI_Init_thread(argc, argv, required, provided);
}

static inline void MTest_Init(int *argc, char ***argv) {
  int level = MPI_THREAD_SINGLE, provided;
  const char *s = getenv("MTEST_THREADLEVEL_DEFAULT");
  if (s && strcasecmp(s, "multiple") == 0) level = MPI_THREAD_MULTIPLE;
  else if (s && strcasecmp(s, "serialized") == 0) level = MPI_THREAD_SERIALIZED;
  else if (s && strcasecmp(s, "funneled") == 0) level = MPI_THREAD_FUNNELED;
  MPI_Init_thread(argc, argv, level, &provided);
}

static inline void MTest_Finalize(int errs) {
  int rank, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all) printf(" Found %d errors\n", all);
    else printf(" No Errors\n");
  }
  fflush(stdout);
  MPI_Finalize();
}

#define MTestReturnValue(errs) ((errs) != 0)

static inline void MTestPrintErrorMsg(const char *msg, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, cls = 0;
  MPI_Error_class(code, &cls);
  MPI_Error_string(code, text, &len);
  printf("%s%sError class %d (%s)\n", msg ? msg : "", msg ? ": " : "", cls, text);
  fflush(stdout);
}
static inline void MTestPrintError(int code) { MTestPrintErrorMsg(NULL, code); }

static inline void MTestPrintfMsg(int level, const char *format, ...) {
  int verbose = mtest_verbosity();
  if (!verbose || level > verbose) return;
  va_list ap;
  va_start(ap, format);
  vprintf(format, ap);
  va_end(ap);
  fflush(stdout);
}

static inline void MTestError(const char *msg) {
  fprintf(stderr, "%s\n", msg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void MTestSleep(int seconds) { sleep((unsigned)seconds); }

/* ---- intra-communicators ---- */

static int mtest_intra_next;
static const char *mtest_intra_name = "";

/* Candidate k of the sequence on this rank (MPI_COMM_NULL where the rank is
 * not in it); *last once k is past the end.  small: parts of the world
 * may be offered. */
static inline MPI_Comm mtest_intra_candidate(int k, int small, int *last, const char **name) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Group world, part;
  *last = 0;
  switch (k) {
    case 0:
      *name = "MPI_COMM_WORLD";
      return MPI_COMM_WORLD;
    case 1:
      *name = "a dup of MPI_COMM_WORLD";
      MPI_Comm_dup(MPI_COMM_WORLD, &c);
      return c;
    case 2:
      *name = "MPI_COMM_WORLD in reverse order";
      MPI_Comm_split(MPI_COMM_WORLD, 7, size - 1 - rank, &c);
      return c;
    case 3:
      *name = "MPI_COMM_SELF";
      return MPI_COMM_SELF;
    case 4: { /* the two halves as an inter-communicator, merged with the upper half first */
      *name = "MPI_COMM_WORLD rebuilt by MPI_Intercomm_merge";
      if (size < 2) return MPI_COMM_NULL;
      int upper = rank >= size / 2;
      MPI_Comm local, inter;
      MPI_Comm_split(MPI_COMM_WORLD, upper, rank, &local);
      MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, upper ? 0 : size / 2, 41, &inter);
      MPI_Intercomm_merge(inter, !upper, &c);
      MPI_Comm_free(&inter);
      MPI_Comm_free(&local);
      return c;
    }
    case 5: /* odd and even ranks, each its own communicator, both in use at once */
      *name = "odd or even ranks (MPI_Comm_split)";
      if (!small) return MPI_COMM_NULL;
      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
      return c;
    case 6: { /* the lower half in reverse order, through a group */
      *name = "the lower half in reverse order (MPI_Comm_create_group)";
      int n = size / 2;
      if (!small || n < 1 || rank >= n) return MPI_COMM_NULL;
      int *ranks = malloc((size_t)n * sizeof *ranks);
      for (int i = 0; i < n; i++) ranks[i] = n - 1 - i;
      MPI_Comm_group(MPI_COMM_WORLD, &world);
      MPI_Group_incl(world, n, ranks, &part);
      MPI_Comm_create_group(MPI_COMM_WORLD, part, 3, &c);
      MPI_Group_free(&part);
      MPI_Group_free(&world);
      free(ranks);
      return c;
    }
    case 7: { /* every third rank from rank 1, through MPI_Comm_create on all of the world */
      *name = "ranks 1, 4, 7, ... (MPI_Comm_create)";
      if (!small || size < 2) return MPI_COMM_NULL;
      int range[1][3] = {{1, size - 1, 3}};
      MPI_Comm_group(MPI_COMM_WORLD, &world);
      MPI_Group_range_incl(world, 1, range, &part);
      MPI_Comm_create(MPI_COMM_WORLD, part, &c);
      MPI_Group_free(&part);
      MPI_Group_free(&world);
      return c;
    }
    default: { /* the world less its last 1, 2, ... ranks, down to two */
      int n = size - (k - 7);
      *name = "the world less its last ranks (MPI_Comm_split)";
      if (!small || n < 2) {
        *last = 1;
        return MPI_COMM_NULL;
      }
      MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &c);
      return c;
    }
  }
}

static inline void MTestFreeComm(MPI_Comm *comm) {
  if (*comm != MPI_COMM_WORLD && *comm != MPI_COMM_SELF && *comm != MPI_COMM_NULL) MPI_Comm_free(comm);
  *comm = MPI_COMM_NULL;
}

/* The next communicator with at least min_size ranks (MPI_COMM_NULL on the
 * ranks outside it); 0 once the sequence is over, and then it starts again.
 * allow_smaller: parts of the world too. */
static inline int MTestGetIntracommGeneral(MPI_Comm *comm, int min_size, int allow_smaller) {
  for (;;) {
    int last, fits;
    const char *name = "";
    *comm = mtest_intra_candidate(mtest_intra_next++, allow_smaller, &last, &name);
    if (last) {
      mtest_intra_next = 0;
      mtest_intra_name = "MPI_COMM_NULL";
      return 0;
    }
    if (*comm == MPI_COMM_NULL) {
      fits = 1;
    } else {
      int n;
      MPI_Comm_size(*comm, &n);
      fits = n >= min_size;
    }
    /* every rank must take or skip the same candidate */
    MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (fits) {
      mtest_intra_name = *comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : name;
      return mtest_intra_next;
    }
    MTestFreeComm(comm);
  }
}

static inline int MTestGetIntracomm(MPI_Comm *comm, int min_size) {
  return MTestGetIntracommGeneral(comm, min_size, 0);
}
static inline const char *MTestGetIntracommName(void) { return mtest_intra_name; }

/* ---- inter-communicators ---- */

static int mtest_inter_next;
static const char *mtest_inter_name = "";

/* Candidate k: *left for the rank's group; *last past the end. */
static inline MPI_Comm mtest_inter_candidate(int k, int *left, int *last, const char **name) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm c = MPI_COMM_NULL, local = MPI_COMM_NULL, tmp;
  *last = 0;
  *left = 0;
  if (size < 2 || k > 3) {
    *last = 1;
    return MPI_COMM_NULL;
  }
  switch (k) {
    case 0: /* lower and upper halves */
      *name = "the lower half against the upper half";
      *left = rank < size / 2;
      MPI_Comm_split(MPI_COMM_WORLD, *left, rank, &local);
      MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, *left ? size / 2 : 0, 11, &c);
      break;
    case 1: /* even against odd ranks, each group in reverse order */
      *name = "even ranks against odd ranks, reversed";
      *left = rank % 2 == 0;
      MPI_Comm_split(MPI_COMM_WORLD, *left, size - rank, &local);
      {
        /* the local leader is each group's highest world rank */
        int hi_even = (size - 1) - (size - 1) % 2, hi_odd = size % 2 ? size - 2 : size - 1;
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, *left ? hi_odd : hi_even, 12, &c);
      }
      break;
    case 2: /* rank 0 alone against the others */
      *name = "rank 0 against the others";
      *left = rank == 0;
      MPI_Comm_split(MPI_COMM_WORLD, *left, rank, &local);
      MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, *left ? 1 : 0, 13, &c);
      break;
    case 3: /* a dup of the halves' inter-communicator */
      *name = "a dup of the halves' inter-communicator";
      *left = rank < size / 2;
      MPI_Comm_split(MPI_COMM_WORLD, *left, rank, &local);
      MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, *left ? size / 2 : 0, 14, &tmp);
      MPI_Comm_dup(tmp, &c);
      MPI_Comm_free(&tmp);
      break;
  }
  if (local != MPI_COMM_NULL) MPI_Comm_free(&local);
  return c;
}

/* The next inter-communicator whose two groups have min_size ranks
 * together; 0 once the sequence is over. */
static inline int MTestGetIntercomm(MPI_Comm *comm, int *left, int min_size) {
  for (;;) {
    int last, fits = 1;
    const char *name = "";
    *comm = mtest_inter_candidate(mtest_inter_next++, left, &last, &name);
    if (last) {
      mtest_inter_next = 0;
      mtest_inter_name = "MPI_COMM_NULL";
      return 0;
    }
    if (*comm != MPI_COMM_NULL) {
      int n, m;
      MPI_Comm_size(*comm, &n);
      MPI_Comm_remote_size(*comm, &m);
      fits = n + m >= min_size;
    }
    MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (fits) {
      mtest_inter_name = name;
      return mtest_inter_next;
    }
    MTestFreeComm(comm);
  }
}
static inline const char *MTestGetIntercommName(void) { return mtest_inter_name; }

/* ---- "-key=value" arguments ---- */

typedef struct MTestArgList {
  char *key, *value;
  struct MTestArgList *next;
} MTestArgList;

static inline MTestArgList *MTestArgListCreate(int argc, char **argv) {
  MTestArgList *head = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    while (*a == '-') a++;
    const char *eq = strchr(a, '=');
    MTestArgList *e = malloc(sizeof *e);
    e->key = eq ? strndup(a, (size_t)(eq - a)) : strdup(a);
    e->value = strdup(eq ? eq + 1 : "1"); /* a bare "-flag" reads as flag=1 */
    e->next = head;
    head = e;
  }
  return head;
}

static inline void MTestArgListDestroy(MTestArgList *head) {
  while (head) {
    MTestArgList *next = head->next;
    free(head->key);
    free(head->value);
    free(head);
    head = next;
  }
}

static inline char *MTestArgListSearch(MTestArgList *head, const char *key) {
  for (; head; head = head->next)
    if (strcmp(head->key, key) == 0) return head->value;
  return NULL;
}

static inline const char *MTestArgListGetString(MTestArgList *head, const char *key) {
  const char *v = MTestArgListSearch(head, key);
  if (!v) {
    fprintf(stderr, "the test needs the argument -%s=...\n", key);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return v;
}
static inline const char *MTestArgListGetString_with_default(MTestArgList *head, const char *key,
                                                             const char *dflt) {
  const char *v = MTestArgListSearch(head, key);
  return v ? v : dflt;
}
static inline int MTestArgListGetInt(MTestArgList *head, const char *key) {
  return atoi(MTestArgListGetString(head, key));
}
static inline int MTestArgListGetInt_with_default(MTestArgList *head, const char *key, int dflt) {
  const char *v = MTestArgListSearch(head, key);
  return v ? atoi(v) : dflt;
}
static inline long MTestArgListGetLong(MTestArgList *head, const char *key) {
  return atol(MTestArgListGetString(head, key));
}
static inline long MTestArgListGetLong_with_default(MTestArgList *head, const char *key, long dflt) {
  const char *v = MTestArgListSearch(head, key);
  return v ? atol(v) : dflt;
}

#endif
