/* A stand-in for MPICH's test/mpi/include/mtest_dtp.h as its collective
 * tests (coll/allred.c, allred2.c, op_coll.c) use it: the argument loop
 * over buffer kinds and counts, with host memory only (libpat's drop-in
 * takes host buffers; a device buffer would test the MPI library, not
 * libpat).  One pass per launch: "-count=N" where the test takes a count. */
#ifndef PAT_PEER_MTEST_DTP_H
#define PAT_PEER_MTEST_DTP_H
#include <assert.h>

#include "mpitest.h"

typedef enum {
  MTEST_MEM_TYPE__UNSET,
  MTEST_MEM_TYPE__UNREGISTERED_HOST,
  MTEST_MEM_TYPE__REGISTERED_HOST,
  MTEST_MEM_TYPE__DEVICE,
  MTEST_MEM_TYPE__SHARED,
  MTEST_MEM_TYPE__RANDOM,
  MTEST_MEM_TYPE__ALL
} mtest_mem_type_e;

typedef enum { MTEST_DTP_ONCE, MTEST_DTP_COLL, MTEST_COLL_NOCOUNT, MTEST_COLL_COUNT } mtest_dtp_arg_type_e;

struct dtp_args {
  int count;
  union {
    struct {
      mtest_mem_type_e oddmem, evenmem;
    } coll;
  } u;
  int passes; /* dtp_args_get_next's answers so far */
};

static inline const char *MTest_memtype_name(mtest_mem_type_e t) {
  return t == MTEST_MEM_TYPE__UNREGISTERED_HOST ? "host" : "other";
}

/* The test's argument string, split at blanks, as an MTestArgList. */
static inline MTestArgList *mtest_args_of_string(const char *arg) {
  char *copy = strdup(arg ? arg : ""), *save = NULL;
  char *argv[64] = {"test"};
  int argc = 1;
  for (char *w = strtok_r(copy, " \t", &save); w && argc < 64; w = strtok_r(NULL, " \t", &save)) argv[argc++] = w;
  MTestArgList *head = MTestArgListCreate(argc, argv);
  free(copy);
  return head;
}

static inline void dtp_args_init_arg(struct dtp_args *a, mtest_dtp_arg_type_e kind, const char *arg) {
  memset(a, 0, sizeof *a);
  MTestArgList *head = mtest_args_of_string(arg);
  if (kind == MTEST_COLL_COUNT) a->count = (int)MTestArgListGetLong(head, "count");
  MTestArgListDestroy(head);
  a->u.coll.oddmem = a->u.coll.evenmem = MTEST_MEM_TYPE__UNREGISTERED_HOST;
}

static inline bool dtp_args_get_next(struct dtp_args *a) { return a->passes++ == 0; }
static inline void dtp_args_finalize(struct dtp_args *a) { (void)a; }

/* Host memory: the host and the "device" pointers are one buffer. */
static inline void MTestAlloc(size_t size, mtest_mem_type_e t, void **host, void **dev, int zero, int device) {
  (void)t;
  (void)device;
  void *p = zero ? calloc(size ? size : 1, 1) : malloc(size ? size : 1);
  if (!p) MTestError("out of memory");
  *host = *dev = p;
}
#define MTestMalloc(size, type, host, dev, device) MTestAlloc(size, type, host, dev, 0, device)
#define MTestCalloc(size, type, host, dev, device) MTestAlloc(size, type, host, dev, 1, device)

static inline void MTestFree(mtest_mem_type_e t, void *host, void *dev) {
  (void)t;
  (void)dev;
  free(host);
}

static inline void MTestCopyContent(const void *src, void *dst, size_t size, mtest_mem_type_e t) {
  (void)t;
  if (src != dst) memmove(dst, src, size);
}

#endif
