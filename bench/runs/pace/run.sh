#!/usr/bin/env bash
# bench/results/2026-11-25-pace: pacing a relay's forwards to the link rate (PAT_PACE) against none,
# one library (build/), alternating launches per cell, two rounds, on the emulated cluster (P = 8,
# 500 Mbit/s) with the cluster model file (which has no link line, so PAT_PACE=500 gives the rate).
#   bash bench/runs/pace/run.sh          # pace.csv, then: python3 .../table.py pace.csv > pace.md
# Needs root, build/ (cmake --build build), a quiet machine. About 20 minutes.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-pace} # OUT: the output folder (default: the committed one)
MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model
rm -f $R/pace.csv
$CL down >/dev/null 2>&1
$CL up -n 8 --rate 500mbit
for round in 1 2; do
  for cell in "1M onebig 50" "1M ramp 50" "1M onebig 0" "4M onebig 50" "4M ramp 100"; do
    set -- $cell
    for pace in off 500; do
      [ $round = 2 ] && pace=$([ $pace = off ] && echo 500 || echo off) # the other first in round 2
      $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL -x PAT_PACE=$pace $MB -N $1 --iters 12 --warmup 3 \
        --base-ms 20 --quiet --max-delay $3 --order blocked --counts $2 --alg relay,auto --csv $R/pace.csv \
        --label "$pace/$1/$2/$3" >/dev/null 2>&1
    done
  done
done
$CL down
