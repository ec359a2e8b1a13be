#!/usr/bin/env bash
# The all-reduce under imbalanced arrivals on the 16-core machine (one device call; under
# ../shared/device's kit): bench/allreduce/cells.sh on the emulated cluster, P = 8 hosts x 1 rank, a
# core per rank.  Two parts, each algorithm alone in its launch, rounds interleaved:
#   large: N = 1M floats (4 MiB), maxDelay 100 ms, a slow rank and the others on time (straggler), a
#          rank always last and the others drawn (late), balanced; MPI's own, ring, Rabenseifner,
#          RELAY, auto;
#   small: N = P and 1K floats (32 B at P = 8, 4 KiB: a solver's sizes; pat-minibench wants a float
#          a rank), delays drawn afresh; MPI's own,
#          recursive doubling, RELAY, auto.
# The kit's proj/ holds libpat.so.0, libpat_mpi.so and pat-minibench.  No model file; RATE (500mbit).
#   KIT=.device-kit DEADLINE_S=420 bash .device-kit/run.sh bash bench/device/allreduce.sh OUT
# The tables go to stdout too (the device returns a few files only).
set -uo pipefail
OUT=${1:?usage: allreduce.sh OUTDIR}
cd "$(dirname "$0")/../.."
K=$(cd "${KIT:-.device-kit}" && pwd)
END=$(($(date +%s) + ${DEADLINE_S:-420}))
left() { echo $((END - $(date +%s))); }
export MB=$K/proj/pat-minibench RATE=${RATE:-500mbit} P=${P:-8} DELAY=${DELAY:-100}
mkdir -p "$OUT"
N=1M ITERS=${ITERS:-24} ROUNDS=${ROUNDS:-2} CASES=${CASES:-"straggler late balanced"} \
  ALGS="native ring rabenseifner relay auto" DEADLINE_S=$(( $(left) - ${SMALL_S:-60} )) \
  bash bench/allreduce/cells.sh "$OUT/large"
for n in $P 1K; do
  N=$n ITERS=${ITERS:-24} ROUNDS=1 CASES=random ALGS="native rdb relay auto" TIMEOUT=30 \
    DEADLINE_S=$(left) bash bench/allreduce/cells.sh "$OUT/small-$n"
done
for d in "$OUT"/large "$OUT"/small-*; do
  [ -s "$d/cells.csv" ] || continue
  echo "== $d"; python3 bench/allreduce/table.py "$d/cells.csv" | tee "$d/table.md"
done
