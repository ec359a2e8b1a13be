#!/usr/bin/env bash
# bench/results/2026-11-24-ackfirst: the emulated cluster with ACKs sent ahead of queued data
# (pat-cluster up --ack-first: htb with a priority class for packets < 128 B) against the default
# tbf FIFO links, P = 8 at 500 Mbit/s, two rounds alternating the two emulations.
#   bash bench/runs/ackfirst/run.sh
# Needs root, build/ (cmake --build build) and a quiet machine; tears the cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-ackfirst} # OUT: the output folder (default: the committed one)
H=bench/runs/ackfirst # this script's helpers
mpicc -O2 -o /tmp/duplex bench/runs/duplex/duplex.c
rm -f $R/minibench.csv
for round in 1 2; do
  for emu in default ack-first; do
    $CL down >/dev/null 2>&1
    if [ $emu = ack-first ]; then $CL up -n 8 --rate 500mbit --ack-first; else $CL up -n 8 --rate 500mbit; fi
    echo "== round $round $emu duplex"
    $CL run --timeout 120 /tmp/duplex 500 524288 7 2>&1 | grep -v setpgid
    for d in 0 50 100; do
      echo "== round $round $emu N=1M delay=$d"
      $CL run --timeout 280 -np 8 $MB -N 1M --iters 12 --warmup 3 --base-ms 20 --quiet \
        --max-delay $d --alg ring,direct,relay,bdr,ard,native --csv $R/minibench.csv \
        --label "$emu/round$round" 2>&1 | grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
    done
  done
done > $R/log.txt
$CL down
OUT=$R python3 $H/summarise.py > $R/summary.md
