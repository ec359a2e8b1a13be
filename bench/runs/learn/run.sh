#!/usr/bin/env bash
# bench/results/2026-11-24-learn: auto learns a call's cost before the choice it informs (pat_engine_learn).
#   bash bench/runs/learn/run.sh cluster  # minibench.csv: P = 16 and P = 8, old and new alternating
#   bash bench/runs/learn/run.sh osu      # osu-cluster/: osu_allgather on the emulated cluster, no model
#   bash bench/runs/learn/run.sh bfs      # bfs.txt: bench/examples/bfs on the cluster, no model, old/new
#   OLD=/tmp/oldbuild4 bash bench/runs/learn/run.sh relay  # relay-balanced.csv: RELAY on balanced
#        patterns (2d44ec8) against 72b8bfc (OLD), P = 8; then python3 .../summarise.py relay-balanced.csv
# Needs root, build/ (cmake --build build), a quiet machine, and the build before the change (OLD=its build
# dir, default /tmp/oldbuild3: 7db145e built from a git worktree, targets pat-minibench and pat_mpi); `osu`
# needs OSU's osu_allgather built unmodified (OSU=path, default /tmp/osu/osu_allgather; bench/balanced/osu.sh).
# Each part tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-learn} # OUT: the output folder (default: the committed one)
H=bench/runs/learn # this script's helpers
OLD=${OLD:-/tmp/oldbuild3}
MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model # calibrated on the same emulated cluster (P = 8, 500 Mbit/s)
# cells P N model delays...: two rounds, each the old build's launch then the new one's for every delay.
# --order blocked gives every algorithm its own communicator, so auto's site sees only auto's calls.
cells() {
  local P=$1 N=$2 model=$3 csv=${CSV:-$R/minibench.csv}; shift 3
  for round in 1 2; do
    for v in old new; do
      local mb=build/bench/minibench/pat-minibench
      [ $v = old ] && mb=$OLD/bench/minibench/pat-minibench
      for d in "$@"; do
        $CL run --timeout 900 -np $P ${model:+-x PAT_MODEL=$model} $mb -N $N --iters 12 --warmup 3 --base-ms 20 \
          --max-delay $d --order blocked --alg native,auto,ring,relay --quiet --csv $csv \
          --label "$v/P$P/$N/$d/r$round/${model:+model}" 2>&1 | grep -E "^(native|auto|ring|relay) "
      done
    done
  done
}
case ${1:-} in
  cluster)
    rm -f $R/minibench.csv
    $CL down >/dev/null 2>&1
    { $CL up -n 16 --rate 200mbit && cells 16 1M "" 0 100; $CL down; } > $R/cluster.log 2>&1
    { $CL up -n 8 --rate 500mbit && cells 8 1M "$MODEL" 0 50 100 && cells 8 1M "" 0 100; $CL down; } >> $R/cluster.log 2>&1
    OUT=$R python3 $H/summarise.py > $R/summary.md
    ;;
  osu)
    bash bench/balanced/osu.sh --osu "${OSU:-/tmp/osu/osu_allgather}" --out $R/osu-cluster --configs cluster8 --rounds 3 \
      --old-lib $OLD/libpat_mpi.so --osu-args "-m 1:1048576 -i 50"
    ;;
  relay)
    export CSV=$R/relay-balanced.csv
    rm -f $CSV
    $CL down >/dev/null 2>&1
    { $CL up -n 8 --rate 500mbit && cells 8 1M "$MODEL" 0 50 && cells 8 256K "$MODEL" 0 && cells 8 4M "$MODEL" 0 &&
        cells 8 1M "" 0; $CL down; } > $R/relay.log 2>&1
    OUT=$R python3 $H/summarise.py relay-balanced.csv > $R/relay-balanced.md
    ;;
  bfs) # an unmodified irregular code (BENCHMARKS.md, Arrivals libpat cannot predict), no model file
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for round in 1 2 3; do
      for v in native old new; do
        case $v in native) X="" ;; old) X="-x LD_PRELOAD=$OLD/libpat_mpi.so" ;; new) X="-x LD_PRELOAD=$PWD/build/libpat_mpi.so" ;; esac
        echo "r$round $v"; $CL run --timeout 600 -np 8 $X $PWD/build/bench/examples/bfs -v 131072 -n 64
      done
    done > $R/bfs.txt 2>&1
    $CL down
    ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
