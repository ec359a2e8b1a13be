#!/usr/bin/env bash
# bench/results/2026-11-24-counters: OSU's osu_allgather, unmodified, on shared memory (P = 2, one
# rank per core; P = 4, oversubscribed) under LD_PRELOAD, native against libpat before (7305e65: one
# shared call counter incremented with a locked add) and after (b612f03: each thread counts its own
# calls), 15 interleaved rounds, -i 5000.
#   bash bench/runs/counters/run.sh
# Needs root, build/ at b612f03 or later, the old library built from 7305e65 at $OLD (default
# /tmp/oldbuild/libpat_mpi.so:
#   git worktree add /tmp/oldsrc 7305e65 && cmake -S /tmp/oldsrc -B /tmp/oldbuild && cmake --build /tmp/oldbuild --target pat_mpi)
# and OSU's osu_allgather at $OSU (bench/balanced/osu.sh says how to build it); a quiet machine.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-counters} # OUT: the output folder (default: the committed one)
OSU=${OSU:-/tmp/osu/osu_allgather}
OLD=${OLD:-/tmp/oldbuild/libpat_mpi.so}
bash bench/balanced/osu.sh --osu "$OSU" --out $R/osu-shm --configs shm2,shm4 --rounds 15 --old-lib "$OLD" \
  --osu-args "-m 1:1048576 -i 5000"
