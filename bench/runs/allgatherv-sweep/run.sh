#!/usr/bin/env bash
# bench/results/2026-11-25-allgatherv-sweep: issue 23's sweep at the head of 2026-11-25, two launches
# (rounds) per cell. Emulated cluster P = 8, 500 Mbit/s, the cluster model of the folder's model/,
# instrumented (edges), blocked order, 12 calls per algorithm after 3 warm-up calls,
# NATIVE (MPI's own all-gatherv), auto, RELAY and DIRECT in each launch. N in {1M, 4M} floats x
# blocks in {equal through MPI_Allgatherv, one rank 4x, ramp} x maxDelay in {0, 50, 100} ms, and
# "compute proportional to data" (--compute-by-size) for the unequal layouts at 50 and 100 ms.
#   bash bench/runs/allgatherv-sweep/run.sh sweep [NAME]  # NAME.csv, NAME.md, figures/NAME*.png (about 25 min;
#                                                              # NAME: sweep, the default, at e0579a0; sweep-pairs at the
#                                                              # replay with one connection per pair)
#   bash bench/runs/allgatherv-sweep/run.sh table [NAME]  # NAME.md and its figure again from NAME.csv
#   python3 bench/runs/allgatherv-sweep/compare.py bench/results/2026-11-25-allgatherv-sweep/sweep.csv \
#     bench/results/2026-11-25-allgatherv-sweep/sweep-pairs.csv > bench/results/2026-11-25-allgatherv-sweep/compare.md
#   bash bench/runs/allgatherv-sweep/run.sh pairs       # pairs.md: the replay against measured calls (equal blocks,
#                                                              # 1M/4M x 0/50/100 ms, RELAY, DIRECT, RING, BDR), pat-model of
#                                                              # e0579a0 (OLD, default /tmp/head/build) against build/'s
#   bash bench/runs/allgatherv-sweep/run.sh osu     # osu-allgatherv/, osu-allgather/: OSU 5.3 unmodified under
#                                                         # LD_PRELOAD at P = 2 on one node (OSU binaries at /tmp/osu:
#                                                         # bench/balanced/osu.sh says how)
#   OUT=FOLDER bash bench/runs/allgatherv-sweep/run.sh sweep|table NAME  # the same into another folder (or SWEEP_DIR)
# Needs root, build/ (cmake --build build) and a quiet machine. Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
HERE=bench/runs/allgatherv-sweep # this script's helpers
R=${OUT:-${SWEEP_DIR:-bench/results/2026-11-25-allgatherv-sweep}} # where NAME.csv, NAME.md and figures/NAME* go
MODEL=${MODEL:-bench/results/2026-11-25-allgatherv-sweep/model/cluster-p8.model} # the emulated cluster's, with its link line
NAME=${2:-sweep}
cell() { # round N counts delay
  local extra=()
  case $4 in *+size) extra=(--compute-by-size) ;; esac
  $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL $MB -N $2 --iters 12 --warmup 3 --base-ms 20 --quiet \
    --max-delay ${4%+size} --order blocked --counts $3 "${extra[@]}" --alg native,auto,relay,direct \
    --csv $R/$NAME.csv --label "$1/$3/$4" 2>&1 | quiet
}
table() {
  mkdir -p $R/figures
  python3 $HERE/table.py $R/$NAME.csv $R/figures/$NAME > $R/$NAME.md
  gnuplot -e "name='$NAME'; dir='$R/figures/'" $HERE/plot.gp
}
case ${1:-} in
  sweep)
    rm -f $R/$NAME.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for round in 1 2; do
      for N in 1M 4M; do
        for counts in equalv onebig ramp; do
          delays="0 50 100"
          [ $counts != equalv ] && delays="$delays 50+size 100+size"
          for d in $delays; do
            echo "== round $round N=$N counts=$counts delay=$d $(date +%T)"
            cell $round $N $counts $d
          done
        done
      done
    done > /tmp/allgatherv-$NAME.log
    $CL down
    table ;;
  table) table ;;
  pairs)
    rm -rf /tmp/allgatherv-traces && mkdir -p /tmp/allgatherv-traces
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for N in 1M 4M; do
      for d in 0 50 100; do
        $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL $MB -N $N --iters 12 --warmup 3 --base-ms 20 --quiet \
          --max-delay $d --order blocked --counts equalv --alg relay,direct,ring,bdr \
          --trace /tmp/allgatherv-traces/$N-$d.csv 2>&1 | quiet
      done
    done > /tmp/allgatherv-pairs.log
    $CL down
    python3 $HERE/pairs.py --model $MODEL --old ${OLD:-/tmp/head/build}/pat-model --new build/pat-model \
      /tmp/allgatherv-traces/1M-{0,50,100}.csv:1M /tmp/allgatherv-traces/4M-{0,50,100}.csv:4M > $R/pairs.md ;;
  osu)
    for b in allgatherv allgather; do
      rm -rf /tmp/allgatherv-osu-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/allgatherv-osu-$b --configs shm2 --rounds ${ROUNDS:-15} \
        --osu-args "-m 1:1048576 -i 2000" >/dev/null
      mkdir -p $R/osu-$b && cp /tmp/allgatherv-osu-$b/osu.csv /tmp/allgatherv-osu-$b/table.md $R/osu-$b/
    done ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
