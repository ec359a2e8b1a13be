/* main() for the MPICH tests that define run(const char *arg) instead (MPICH
 * links them with its own driver): the command line's arguments joined by
 * blanks are run()'s argument, and rank 0 reports the errors of all ranks. */
#include "mpitest.h"

int main(int argc, char **argv) {
  char arg[1024] = "";
  size_t used = 0;
  for (int i = 1; i < argc; i++) {
    int n = snprintf(arg + used, sizeof arg - used, "%s%s", i > 1 ? " " : "", argv[i]);
    if (n < 0 || (size_t)n >= sizeof arg - used) break;
    used += (size_t)n;
  }
  MTest_Init(&argc, &argv);
  int errs = run(arg);
  MTest_Finalize(errs);
  return MTestReturnValue(errs);
}
