/* Minimal assertions for the unit tests: count failures, keep going. */
#ifndef PAT_TESTUTIL_H
#define PAT_TESTUTIL_H
#include <stdio.h>

static int test_failures;
#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      test_failures++;                                              \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
      if (test_failures > 20) return 1;                             \
    }                                                               \
  } while (0)
#define TEST_RESULT() (test_failures ? (fprintf(stderr, "%d failures\n", test_failures), 1) : 0)
#endif
