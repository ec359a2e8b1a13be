#!/usr/bin/env bash
# bench/results/2026-11-25-equalv: issue 23's sweep for its third distribution, equal blocks through
# MPI_Allgatherv (minibench --counts equalv: auto takes the all-gather's path), at the head, with the
# 2026-11-25-paced cluster model (link line: pacing by default), on the emulated cluster (P = 8,
# 500 Mbit/s, blocked order, 12 calls). N in {1M, 4M} floats x maxDelay in {0, 50, 100} ms; with equal
# blocks "compute proportional to data" is the 50 ms cell. Two launches per cell (rounds), NATIVE,
# auto, RELAY, DIRECT in each.
#   bash bench/runs/equalv/run.sh sweep   # sweep.csv, sweep.md (about 10 min)
# Needs root, build/ (cmake --build build) and a quiet machine. Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-equalv} # OUT: the output folder (default: the committed one)
H=bench/runs/equalv # this script's helpers
MODEL=bench/results/2026-11-25-paced/model/cluster-p8.model
case ${1:-} in
  sweep)
    rm -f $R/sweep.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for round in 1 2; do
      for N in 1M 4M; do
        for d in 0 50 100; do
          echo "== round=$round N=$N delay=$d"
          $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL $MB -N $N --iters 12 --warmup 3 --base-ms 20 --quiet \
            --max-delay $d --order blocked --counts equalv --alg native,auto,relay,direct --csv $R/sweep.csv \
            --label "equalv/$d/$round" 2>&1 | quiet
        done
      done
    done > /tmp/equalv-sweep.log
    $CL down
    python3 $H/table.py $R/sweep.csv > $R/sweep.md
    ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
