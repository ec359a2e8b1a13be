#!/usr/bin/env bash
# bench/results/2026-11-25-paced: the cluster model recalibrated at the head, now with its link line
# (pat-calibrate's ping-pong), so that the default PAT_PACE=model paces data-flow schedules; then the
# all-gatherv sweep of issue 23 with that model against the committed 2026-11-24-b2b model (no link
# line: no pacing), one library, the two models alternating cell by cell on the emulated cluster
# (P = 8, 500 Mbit/s, blocked order). Nothing sets PAT_PACE: each run takes the default.
#   bash bench/runs/paced/run.sh calibrate  # model/: calibration CSV, pat-fit's log, the model (about 12 min)
#   bash bench/runs/paced/run.sh sweep      # sweep-nolink.csv, sweep-link.csv, sweep.md (about 30 min)
# Needs root, build/ (cmake --build build) and a quiet machine. Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-paced} # OUT: the output folder (default: the committed one)
OLD_MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model # no link line
NEW_MODEL=$R/model/cluster-p8.model
cell() { # model csv N counts delay algs
  local extra="--order blocked"
  [ $5 = 50+size ] && extra="$extra --compute-by-size"
  $CL run --timeout 900 -np 8 -x PAT_MODEL=$1 $MB -N $3 --iters 12 --warmup 3 \
    --base-ms 20 --quiet --max-delay ${5%+size} $extra --counts $4 --alg $6 --csv $2 --label "$4/$5" 2>&1 | quiet
}
case ${1:-} in
  calibrate)
    # the settings of the 2026-11-24-b2b calibration
    mkdir -p $R/model
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    $CL run --timeout 1800 -np 8 build/bench/calibrate/pat-calibrate --out $R/model/calibration-cluster-p8.csv \
      --quick --ci 0.02 --min-reps 5 --max-seconds 3
    $CL down
    build/pat-fit --in $R/model/calibration-cluster-p8.csv --out $NEW_MODEL > $R/model/fit-cluster-p8.txt ;;
  sweep)
    rm -f $R/sweep-nolink.csv $R/sweep-link.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    i=0
    for N in 1M 4M; do
      for counts in onebig ramp; do
        for d in 0 50 100 50+size; do
          echo "== N=$N counts=$counts delay=$d"
          if [ $((i++ % 2)) = 0 ]; then # alternate which model goes first
            cell $OLD_MODEL $R/sweep-nolink.csv $N $counts $d native,auto,relay,direct
            cell $NEW_MODEL $R/sweep-link.csv $N $counts $d native,auto,relay,direct
          else
            cell $NEW_MODEL $R/sweep-link.csv $N $counts $d native,auto,relay,direct
            cell $OLD_MODEL $R/sweep-nolink.csv $N $counts $d native,auto,relay,direct
          fi
        done
      done
    done > /tmp/paced-sweep.log
    $CL down
    mkdir -p $R/figures
    python3 bench/ab/compare.py $R/sweep-nolink.csv $R/sweep-link.csv --dat $R/figures > $R/sweep.md
    ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
