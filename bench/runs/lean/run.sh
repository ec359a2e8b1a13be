#!/usr/bin/env bash
# bench/results/2026-11-25-lean: the pass-through's argument screen (src/runtime/args.h): arguments the
# full checks plainly accept go straight to MPI's own all-gather(v) without asking MPI for type
# sizes. Before and after, OSU unmodified under LD_PRELOAD on shared memory, no model file.
#   bash bench/runs/lean/run.sh osu        # osu-allgatherv/, osu-allgather/ at P = 2 (about 25 min)
#   bash bench/runs/lean/run.sh osu4       # osu-allgatherv-shm4/ at P = 4 (about 10 min)
#   bash bench/runs/lean/run.sh callgrind  # instructions per 1 B call, old and new (callgrind.txt)
# Needs build/ (cmake --build build), OSU's binaries at /tmp/osu (bench/balanced/osu.sh says how to
# build them), the library of the commit before at OLD (default /tmp/oldlib/build/libpat_mpi.so:
#   git worktree add /tmp/oldlib 82af606 && cmake -S /tmp/oldlib -B /tmp/oldlib/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/oldlib/build --target pat pat_mpi)
# and a quiet machine.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-lean} # OUT: the output folder (default: the committed one)
OLD=${OLD:-/tmp/oldlib/build/libpat_mpi.so}
case ${1:-} in
  osu)
    for b in allgatherv allgather; do
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/lean-osu-$b --configs shm2 --rounds 7 --old-lib "$OLD"
      mkdir -p $R/osu-$b && cp /tmp/lean-osu-$b/osu.csv /tmp/lean-osu-$b/table.md $R/osu-$b/
    done ;;
  osu4)
    bash bench/balanced/osu.sh --osu /tmp/osu/osu_allgatherv --out /tmp/lean-osu4 --configs shm4 --rounds 5 --old-lib "$OLD"
    mkdir -p $R/osu-allgatherv-shm4 && cp /tmp/lean-osu4/osu.csv /tmp/lean-osu4/table.md $R/osu-allgatherv-shm4/ ;;
  callgrind)
    for v in old new; do
      lib=$OLD
      [ $v = new ] && lib=$PWD/build/libpat_mpi.so
      for b in allgatherv allgather; do
        rm -f /tmp/lean-cg.*
        mpirun -np 2 --bind-to core -x LD_PRELOAD=$lib valgrind --tool=callgrind \
          --callgrind-out-file=/tmp/lean-cg.%p /tmp/osu/osu_$b -m 1:1 -i 20000 >/dev/null 2>&1
        f=$(ls /tmp/lean-cg.* | head -1)
        # libpat's instructions per call: the drop-in's MPI_Allgather(v), inclusive, less the
        # PMPI_Allgather(v) it calls (the only caller), both from the same profile
        name=$([ $b = allgatherv ] && echo Allgatherv || echo Allgather)
        callgrind_annotate --inclusive=yes $f | awk -v v=$v -v b=$b -v n=$name '
          $0 ~ "pat_mpi.c:MPI_" n " \\[" { gsub(",", "", $1); outer = $1 }
          $0 ~ "\\?\\?\\?:PMPI_" n " \\[" { gsub(",", "", $1); inner = $1 }
          END { printf "%s %s: %.0f instructions per 1 B call in libpat (20200 calls; MPI_%s %.0f, PMPI_%s %.0f)\n",
                v, b, (outer - inner) / 20200, n, outer / 20200, n, inner / 20200 }'
      done
    done | tee $R/callgrind.txt ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
