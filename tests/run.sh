#!/usr/bin/env bash
# Run the whole test suite (unit, MPI, cluster smoke) on the build in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${PAT_BUILD_DIR:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$BUILD_DIR"
ctest --output-on-failure --timeout 1800 "$@"
