#!/usr/bin/env bash
# Run the whole test suite (unit, MPI, drop-in with C, C++, Python and
# Fortran programs, stress, cluster smoke) on the build in build/ (Open MPI),
# then build libpat against MPICH into build-mpich/ and run there the MPI
# correctness matrix, the drop-in tests (C, C++ and Fortran), the Fortran
# module and the quick stress suite (tests/run_mpich.sh).
#
# Arguments go to the first ctest (e.g. -R dropin); with arguments, or with
# PAT_MPICH=0, the MPICH part is skipped.  It is skipped with a message when
# MPICH is not installed (bench/setup.sh installs it).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${PAT_BUILD_DIR:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd "$BUILD_DIR" && ctest --output-on-failure --timeout 1800 "$@")
rc=$?
if [ "${PAT_MPICH:-1}" != 0 ] && [ $# -eq 0 ]; then
  bash tests/run_mpich.sh || rc=1
fi
exit $rc
