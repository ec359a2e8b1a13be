#!/usr/bin/env bash
# The main job: calibrate the cost model on local ranks (unless PAT_MODEL is
# set), then a small sweep on them (shared memory) with auto selecting from
# that model, then the paper-style table and where the CSV and plots went.
# About 2.5 minutes on an idle 2-core machine, up to ~5 under heavy load.
# PAT_DEMO_CALIBRATE=0 skips the calibration (auto then uses the built-in
# ping-pong estimate, which on shared memory picks arrival-aware algorithms on
# mere scheduling jitter: BENCHMARKS.md section 7).
#
#   bench/demo.sh                     # uses build/ at the repo root
#   PAT_BUILD_DIR=/path/to/build bench/demo.sh
#   PAT_DEMO_P=8 bench/demo.sh --iters 40   # extra arguments go to bench/sweep/sweep.py (last wins)
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
LAUNCHER="mpirun -np {P} --oversubscribe --bind-to none"
if [ -z "${PAT_MODEL:-}" ] && [ "${PAT_DEMO_CALIBRATE:-1}" != 0 ]; then
  MODEL_DIR="bench/results/$(date +%F)-demo-model-p$P"
  mkdir -p "$MODEL_DIR"
  echo "demo: calibrating the cost model on $P local ranks -> $MODEL_DIR/shm-p$P.model"
  # shellcheck disable=SC2086
  # every algorithm, native included, 1 B to 1 MiB per rank (the sweep's blocks are
  # 16-512 KiB); --quick bounds each point to 1 s: about 10-20 s on shared memory
  ${LAUNCHER//\{P\}/$P} "$BUILD_DIR/bench/calibrate/pat-calibrate" \
    --out "$MODEL_DIR/calibration.csv" --quick >"$MODEL_DIR/calibrate.log" 2>&1 ||
    { echo "demo: pat-calibrate failed, see $MODEL_DIR/calibrate.log" >&2; exit 1; }
  "$BUILD_DIR/pat-fit" --in "$MODEL_DIR/calibration.csv" --out "$MODEL_DIR/shm-p$P.model" >"$MODEL_DIR/fit.txt" ||
    { echo "demo: pat-fit failed, see $MODEL_DIR/fit.txt" >&2; exit 1; }
  export PAT_MODEL="$PWD/$MODEL_DIR/shm-p$P.model"
fi
[ -n "${PAT_MODEL:-}" ] && LAUNCHER="$LAUNCHER -x PAT_MODEL" && echo "demo: auto selects with PAT_MODEL=$PAT_MODEL"
exec python3 bench/sweep/sweep.py \
  --launcher "$LAUNCHER" \
  --label demo \
  --P "$P" \
  --N 16K,128K,512K \
  --delays 0,5,20 \
  --algs all \
  --iters 15 --warmup 2 \
  --base-ms 20 --compute sleep \
  --bench "$BENCH" \
  "$@"
