#!/usr/bin/env bash
# bench/results/2026-11-25-nomodel: pacing without a model file. PAT_PACE=model (the default) now takes
# the rate from PAT_Init's ping-pong of world ranks 0 and 1 when they are on different nodes; before,
# a job without a model file was never paced. One library (build/), no PAT_MODEL, PAT_PACE=off against
# the default, alternating launches per cell (which goes first alternates too), two rounds, on the
# emulated cluster (P = 8, 500 Mbit/s), N = 1M floats, equal and one-4x blocks, maxDelay 0/50/100 ms.
#   bash bench/runs/nomodel/run.sh sweep   # off-R.csv, paced-R.csv, round-R.md (about 30 min)
#   bash bench/runs/nomodel/run.sh osu     # osu-cluster-allgather(v)/: OSU unmodified on the cluster,
#                                                       # no model file, the library before (OLD, default
#                                                       # /tmp/oldlib/build/libpat_mpi.so: d42e6e8, never paced
#                                                       # without a model file) and after, 3 rounds (about 15 min)
# Needs root, build/ (cmake --build build) and a quiet machine. Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-nomodel} # OUT: the output folder (default: the committed one)
cell() { # pace csv counts delay
  $CL run --timeout 900 -np 8 -x PAT_PACE=$1 $MB -N 1M --iters 12 --warmup 3 --base-ms 20 --quiet \
    --max-delay $4 --order blocked --counts $3 --alg native,auto,relay,direct --csv $2 --label "$3/$4" 2>&1 | quiet
}
case ${1:-} in
  sweep)
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    i=0
    for round in 1 2; do
      rm -f $R/off-$round.csv $R/paced-$round.csv
      for counts in equal onebig; do
        for d in 0 50 100; do
          echo "== round $round counts=$counts delay=$d"
          if [ $((i++ % 2)) = 0 ]; then
            cell off $R/off-$round.csv $counts $d
            cell model $R/paced-$round.csv $counts $d
          else
            cell model $R/paced-$round.csv $counts $d
            cell off $R/off-$round.csv $counts $d
          fi
        done
      done
      python3 bench/ab/compare.py $R/off-$round.csv $R/paced-$round.csv > $R/round-$round.md
    done > /tmp/nomodel-sweep.log
    $CL down ;;
  osu)
    for b in allgather allgatherv; do
      rm -rf /tmp/nomodel-osu-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/nomodel-osu-$b --configs cluster8 --rounds 3 \
        --old-lib "${OLD:-/tmp/oldlib/build/libpat_mpi.so}" --osu-args "-m 1:1048576 -i 50" >/dev/null
      mkdir -p $R/osu-cluster-$b && cp /tmp/nomodel-osu-$b/osu.csv /tmp/nomodel-osu-$b/table.md $R/osu-cluster-$b/
    done ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
