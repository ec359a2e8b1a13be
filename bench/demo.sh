#!/usr/bin/env bash
# The main job: a small sweep on local ranks (shared memory), then the
# paper-style table and where the CSV and plots went.  About 1.5 minutes on an
# idle 2-core machine, up to ~3.5 under heavy load from other processes.
#
#   bench/demo.sh                     # uses build/ at the repo root
#   PAT_BUILD_DIR=/path/to/build bench/demo.sh
#   PAT_DEMO_P=8 bench/demo.sh --iters 40   # extra arguments go to sweep.py (last wins)
#
# Build first: cmake -S . -B build && cmake --build build   (or bench/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${PAT_BUILD_DIR:-build}
BENCH="$BUILD_DIR/bench/minibench/pat-minibench"
if [ ! -x "$BENCH" ]; then
  echo "demo: $BENCH not found; build first: cmake -S . -B $BUILD_DIR && cmake --build $BUILD_DIR" >&2
  exit 3
fi
command -v mpirun >/dev/null || { echo "demo: mpirun not found (Debian: openmpi-bin)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "demo: python3 not found" >&2; exit 3; }
command -v gnuplot >/dev/null || echo "demo: gnuplot not found (Debian: gnuplot-nox): no plots will be drawn" >&2

if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# Every algorithm libpat knows is tried: those not available yet are reported
# as failed in the table and the sweep goes on.  The compute phase is shorter
# than the paper's 100 ms per half to keep the demo short.
P=${PAT_DEMO_P:-4}
exec python3 bench/sweep.py \
  --label demo \
  --P "$P" \
  --N 16K,128K,512K \
  --delays 0,5,20 \
  --algs all \
  --iters 15 --warmup 2 \
  --base-ms 20 --compute sleep \
  --bench "$BENCH" \
  "$@"
