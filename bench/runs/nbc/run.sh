#!/usr/bin/env bash
# bench/results/2026-11-25-nbc: libpat's private communicators by MPI_Comm_create_group instead
# of MPI_Comm_dup / a split of world (Open MPI 4.1 left libnbc's progress hook registered), before
# and after, OSU unmodified under LD_PRELOAD at P = 2 on shared memory, no model file.
#   bash bench/runs/nbc/run.sh osu        # osu-allgatherv/, osu-allgather/ (about 12 min)
#   bash bench/runs/nbc/run.sh profile    # perf: where the 1 B loop's samples go (libnbc or not)
#   bash bench/runs/nbc/run.sh callgrind  # instructions per call of libpat's pass-through
# Needs build/ (cmake --build build), OSU's binaries at /tmp/osu (bench/balanced/osu.sh says how to
# build them), the library of the commit before at OLD (default /tmp/oldlib/build/libpat_mpi.so:
#   git worktree add /tmp/oldlib 534c499 && cmake -S /tmp/oldlib -B /tmp/oldlib/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/oldlib/build --target pat pat_mpi)
# and a quiet machine.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-nbc} # OUT: the output folder (default: the committed one)
OLD=${OLD:-/tmp/oldlib/build/libpat_mpi.so}
case ${1:-} in
  osu)
    for b in allgatherv allgather; do
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/nbc-osu-$b --configs shm2 --rounds 5 --old-lib "$OLD"
      cp /tmp/nbc-osu-$b/osu.csv /tmp/nbc-osu-$b/table.md $R/osu-$b/
    done ;;
  profile)
    for v in native old new; do
      case $v in native) X=() ;; old) X=(-x LD_PRELOAD=$OLD) ;; new) X=(-x LD_PRELOAD=$PWD/build/libpat_mpi.so) ;; esac
      perf record -q -F 10000 -o /tmp/nbc-$v.data -- mpirun -np 2 --bind-to core "${X[@]}" /tmp/osu/osu_allgatherv \
        -m 1:1 -i 1000000 >/dev/null 2>&1
      echo "== $v"
      perf report -i /tmp/nbc-$v.data --comm osu_allgatherv --sort dso --stdio 2>/dev/null | grep -v '^#' | head -8
    done ;;
  callgrind)
    rm -f /tmp/nbc-cg.*
    mpirun -np 2 --bind-to core -x LD_PRELOAD=$PWD/build/libpat_mpi.so valgrind --tool=callgrind \
      --callgrind-out-file=/tmp/nbc-cg.%p /tmp/osu/osu_allgatherv -m 1:1 -i 20000 >/dev/null 2>&1
    callgrind_annotate --inclusive=yes "$(ls /tmp/nbc-cg.* | head -1)" | grep -E 'Allgatherv|pass_through|check_send|type_size|stats_call' ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
