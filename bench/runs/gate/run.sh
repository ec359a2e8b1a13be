#!/usr/bin/env bash
# bench/results/2026-11-25-gate: the pass-through's gate (src/runtime/through.h): the drop-in asks
# one small libpat function and calls MPI's own itself. Before (d42e6e8) and after, OSU unmodified
# under LD_PRELOAD on shared memory, no model file, interleaved rounds.
#   bash bench/runs/gate/run.sh osu        # osu-allgatherv/, osu-allgather/ at P = 2 (about 10 min)
#   bash bench/runs/gate/run.sh osu4       # osu-allgatherv-shm4/ at P = 4 (about 5 min)
#   bash bench/runs/gate/run.sh callgrind  # libpat's instructions per 1 B call, old and new (callgrind.txt)
# Needs build/ (cmake --build build), OSU's binaries at /tmp/osu (bench/balanced/osu.sh says how to
# build them), the library of the commit before at OLD (default /tmp/oldlib/build/libpat_mpi.so:
#   git worktree add /tmp/oldlib d42e6e8 && cmake -S /tmp/oldlib -B /tmp/oldlib/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/oldlib/build --target pat pat_mpi)
# and a quiet machine. ROUNDS (default 21) and ITERS (OSU's -i, default 5000; another value is in
# the folders' names: ITERS=1000 ROUNDS=41 run.sh osu writes osu-allgatherv-i1000-r41/) may be set.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-gate} # OUT: the output folder (default: the committed one)
OLD=${OLD:-/tmp/oldlib/build/libpat_mpi.so}
ROUNDS=${ROUNDS:-21} ITERS=${ITERS:-5000}
case ${1:-} in
  osu|osu4)
    cfg=shm2 sfx=""
    [ $1 = osu4 ] && cfg=shm4 sfx=-shm4
    [ "$ITERS" != 5000 ] && sfx=$sfx-i$ITERS
    [ "$ROUNDS" != 21 ] && sfx=$sfx-r$ROUNDS
    for b in allgatherv allgather; do
      [ $1 = osu4 ] && [ $b = allgather ] && continue
      rm -rf /tmp/gate-osu-$b$sfx
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/gate-osu-$b$sfx --configs $cfg --rounds $ROUNDS \
        --osu-args "-m 1:1048576 -i $ITERS" --old-lib "$OLD" >/dev/null
      mkdir -p $R/osu-$b$sfx && cp /tmp/gate-osu-$b$sfx/osu.csv /tmp/gate-osu-$b$sfx/table.md $R/osu-$b$sfx/
    done ;;
  callgrind)
    for v in old new; do
      lib=$OLD
      [ $v = new ] && lib=$PWD/build/libpat_mpi.so
      for b in allgatherv allgather; do
        rm -f /tmp/gate-cg.*
        mpirun -np 2 --bind-to core -x LD_PRELOAD=$lib valgrind --tool=callgrind \
          --callgrind-out-file=/tmp/gate-cg.%p /tmp/osu/osu_$b -m 1:1 -i 20000 >/dev/null 2>&1
        f=$(ls /tmp/gate-cg.* | head -1)
        # libpat's own instructions (exclusive, every function of libpat.so and libpat_mpi.so, the
        # first call's set-up of the communicator's state included) per call
        echo "$v $b: $(callgrind_annotate --threshold=100 $f | awk '
          /libpat(_mpi)?\.so/ { gsub(",", "", $1); t += $1 }
          END { printf "%.1f instructions per 1 B call in libpat, 20200 calls (libpat.so and libpat_mpi.so functions, exclusive)", t / 20200 }')"
      done
    done | tee $R/callgrind.txt ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
