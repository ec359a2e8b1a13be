#!/usr/bin/env bash
# Run the whole test suite (unit, MPI, drop-in with C, C++, Python and
# Fortran programs, stress, cluster smoke) on the build in build/ (Open MPI),
# then build libpat against MPICH into build-mpich/ and run there the MPI
# correctness matrix, the drop-in tests (C, C++ and Fortran), the Fortran
# module and the quick stress suite (tests/run_mpich.sh).  What each tier
# covers and why: docs/testing.md.
#
# Arguments go to the first ctest (e.g. -R dropin); with arguments, or with
# PAT_MPICH=0, the MPICH part is skipped.  It is skipped with a message when
# MPICH is not installed (bench/setup.sh installs it).
#
# The last lines give each part's count and seconds, and the sum of both
# parts on a line of its own: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${PAT_BUILD_DIR:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the point-to-point layer Open MPI selects here anyway, named so that a launch does not open
# the others first (about 0.2 s of each launch's start; docs/testing.md)
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# "N passed N failed" from ctest's summary in $log (none: the part did not
# get to run its tests, one failure)
counts() {
  local line
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -n "$line" ]; then
    echo "$line" | sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2 \1/' |
      awk '{print $1 - $2, $2}'
  elif grep -q "^No tests were found" "$log" || grep -q "MPICH tests are skipped" "$log"; then
    echo "0 0"
  else
    echo "0 1"
  fi
}

start=$SECONDS
# -j2: two tests at a time, those that launch ranks too, but for the ones a
# neighbour slows more than it saves (PROCESSORS 2: pat_tests_share_cores in
# tests/CMakeLists.txt).
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 1800 -j "${PAT_TEST_JOBS:-2}" "$@") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
read -r ompi_pass ompi_fail < <(counts)
ompi_s=$((SECONDS - start))
summary=("run.sh: Open MPI ($BUILD_DIR): $ompi_pass passed, $ompi_fail failed, $ompi_s s")
pass=$ompi_pass fail=$ompi_fail

if [ "${PAT_MPICH:-1}" != 0 ] && [ $# -eq 0 ]; then
  start=$SECONDS
  bash tests/run_mpich.sh 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  read -r mpich_pass mpich_fail < <(counts)
  summary+=("run.sh: MPICH (build-mpich, build included): $mpich_pass passed, $mpich_fail failed, $((SECONDS - start)) s")
  pass=$((pass + mpich_pass)) fail=$((fail + mpich_fail))
fi
[ "$rc" = 0 ] || [ "$fail" != 0 ] || fail=1 # a part that failed without a count
printf '%s\n' "${summary[@]}"
echo "$pass passed, $fail failed"
exit $rc
