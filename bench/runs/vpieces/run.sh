#!/usr/bin/env bash
# bench/results/2026-11-25-vpieces: RELAY's pieces by each block's size (issue 23), before and after,
# alternating launches on the emulated cluster with the same minibench binary and the library swapped.
#   bash bench/runs/vpieces/run.sh ab        # interleaved order: minibench-old.csv, minibench-new.csv, compare.md
#   bash bench/runs/vpieces/run.sh blocked   # blocked order: blocked-old.csv, blocked-new.csv, compare-blocked.md
#   bash bench/runs/vpieces/run.sh timeline  # PAT_TIMELINE of RELAY, 1M one rank 4x, balanced
# Needs root, build/ (cmake --build build), a quiet machine, and the library of the commit before
# (OLD=its build dir, default /tmp/headsrc/build; this run used 0f641f6:
#   git worktree add /tmp/headsrc 0f641f6 && cmake -S /tmp/headsrc -B /tmp/headsrc/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/headsrc/build --target pat pat_mpi).
# Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-vpieces} # OUT: the output folder (default: the committed one)

MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model # calibrated on the same emulated cluster (P = 8, 500 Mbit/s)
OLD=${OLD:-/tmp/headsrc/build}
ORDER=interleaved
cell() { # lib csv N counts delay
  local lib=$1 csv=$2 N=$3 counts=$4 d=$5 extra="--order $ORDER"
  [ $d = 50+size ] && extra="$extra --compute-by-size"
  $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL -x LD_LIBRARY_PATH=$lib $MB -N $N --iters 12 --warmup 3 \
    --base-ms 20 --quiet --max-delay ${d%+size} $extra --counts $counts --alg native,auto,relay,direct \
    --csv $csv --label "$counts/$d" 2>&1 | grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
}
case ${1:-} in
  ab|blocked)
    OLDCSV=$R/minibench-old.csv NEWCSV=$R/minibench-new.csv CMP=$R/compare.md
    [ $1 = blocked ] && ORDER=blocked OLDCSV=$R/blocked-old.csv NEWCSV=$R/blocked-new.csv CMP=$R/compare-blocked.md
    rm -f $OLDCSV $NEWCSV
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    i=0
    for N in 1M 4M; do
      for counts in onebig ramp; do
        for d in 0 50 100 50+size; do
          echo "== N=$N counts=$counts delay=$d"
          if [ $((i++ % 2)) = 0 ]; then # alternate which library goes first
            cell $OLD $OLDCSV $N $counts $d; cell build $NEWCSV $N $counts $d
          else
            cell build $NEWCSV $N $counts $d; cell $OLD $OLDCSV $N $counts $d
          fi
        done
      done
    done > /tmp/vpieces-$1.log
    $CL down
    python3 bench/ab/compare.py $OLDCSV $NEWCSV > $CMP
    ;;
  timeline)
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for lib in $OLD build; do
      rm -f /tmp/vpieces-tl-$(basename $(dirname $lib)).*
      $CL run --timeout 300 -np 8 -x PAT_MODEL=$MODEL -x LD_LIBRARY_PATH=$lib \
        -x PAT_TIMELINE=/tmp/vpieces-tl-$(basename $(dirname $lib)) $MB -N 1M --iters 12 --warmup 3 --base-ms 20 \
        --quiet --max-delay 0 --counts onebig --alg relay
      python3 bench/timeline/timeline.py /tmp/vpieces-tl-$(basename $(dirname $lib)) --call 8
    done
    $CL down
    ;;
  *) sed -n '2,11p' "$0"; exit 2 ;;
esac
