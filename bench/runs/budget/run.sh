#!/usr/bin/env bash
# bench/results/2026-11-25-budget: RELAY's send budget by P (320 messages per rank up to P = 8) and
# auto's exchange mode for unequal-block sites whose static choice is RELAY (issue 23), before and
# after, in alternating launches on the emulated cluster (P = 8, 500 Mbit/s) with one minibench binary
# and the library swapped with LD_LIBRARY_PATH.
#   bash bench/runs/budget/run.sh sweep    # blocked order: sweep-old.csv, sweep-new.csv, sweep.md (about 30 min)
#   bash bench/runs/budget/run.sh budget   # RELAY alone at 4M, send budgets 160, 320, 420: budget.csv
#   bash bench/runs/budget/run.sh random   # unpredictable arrivals, unequal blocks, auto against native: random.md
#   PREV=dir NEW=dir bash bench/runs/budget/run.sh response  # two builds, 7 cells: /tmp/resp/{a,b}.csv (response.md)
# Needs root, build/ (cmake --build build), a quiet machine, and the library of the commit before
# (OLD=its build dir, default /tmp/headsrc/build; this run used cdfc568:
#   git worktree add /tmp/headsrc cdfc568 && cmake -S /tmp/headsrc -B /tmp/headsrc/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/headsrc/build --target pat pat_mpi).
# `budget` builds two more worktrees of OLD's commit with the budget edited (/tmp/budget-320, /tmp/budget-420).
# Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-budget} # OUT: another folder (2026-11-25-head used it)
MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model # calibrated on the same emulated cluster (P = 8, 500 Mbit/s)
OLD=${OLD:-/tmp/headsrc/build}
cell() { # lib csv N counts delay algs
  local extra="--order blocked"
  [ $5 = 50+size ] && extra="$extra --compute-by-size"
  $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL -x LD_LIBRARY_PATH=$1 $MB -N $3 --iters 12 --warmup 3 \
    --base-ms 20 --quiet --max-delay ${5%+size} $extra --counts $4 --alg $6 --csv $2 --label "$4/$5" 2>&1 | quiet
}
case ${1:-} in
  sweep)
    rm -f $R/sweep-old.csv $R/sweep-new.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    i=0
    for N in 1M 4M; do
      for counts in onebig ramp; do
        for d in 0 50 100 50+size; do
          echo "== N=$N counts=$counts delay=$d"
          if [ $((i++ % 2)) = 0 ]; then # alternate which library goes first
            cell $OLD $R/sweep-old.csv $N $counts $d native,auto,relay,direct
            cell build $R/sweep-new.csv $N $counts $d native,auto,relay,direct
          else
            cell build $R/sweep-new.csv $N $counts $d native,auto,relay,direct
            cell $OLD $R/sweep-old.csv $N $counts $d native,auto,relay,direct
          fi
        done
      done
    done > /tmp/budget-sweep.log
    $CL down
    mkdir -p $R/figures # the same comparison as the last folder's
    python3 bench/ab/compare.py $R/sweep-old.csv $R/sweep-new.csv --dat $R/figures > $R/sweep.md
    ;;
  budget)
    src=$(git -C $(dirname $OLD) rev-parse HEAD)
    for b in 320 420; do
      [ -e /tmp/budget-$b/build/libpat.so ] && continue
      git worktree add -f /tmp/budget-$b $src >/dev/null
      sed -i "s/#define PAT_RELAY_MAX_SENDS 160/#define PAT_RELAY_MAX_SENDS $b/" /tmp/budget-$b/algorithms/algorithms.h
      cmake -S /tmp/budget-$b -B /tmp/budget-$b/build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
      cmake --build /tmp/budget-$b/build -j2 --target pat pat_mpi >/dev/null
    done
    rm -f $R/budget.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for d in 0 100; do
      for counts in onebig ramp; do
        for round in 1 2; do
          for b in 160 320 420; do
            lib=$OLD
            [ $b != 160 ] && lib=/tmp/budget-$b/build
            cell $lib $R/budget-$b.csv 4M $counts $d relay
          done
        done
      done
    done > /tmp/budget-budget.log
    $CL down
    for b in 160 320 420; do sed "1!s/^/$b,/;1s/^/budget,/" $R/budget-$b.csv; done | awk 'NR == 1 || !/^budget/' > $R/budget.csv
    rm -f $R/budget-160.csv $R/budget-320.csv $R/budget-420.csv
    ;;
  random) # no instrumentation, random delays per call (issue 26's workload) with unequal blocks, old and new library
    rm -f /tmp/budget-random-*.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for counts in onebig ramp; do
      for model in none $MODEL; do
        for lib in $OLD build; do
          tag=$([ $lib = build ] && echo after || echo before)-$([ $model = none ] && echo nomodel || echo model)
          mx=()
          [ $model != none ] && mx=(-x PAT_MODEL=$model)
          $CL run --timeout 900 -np 8 "${mx[@]}" -x LD_LIBRARY_PATH=$lib $MB --instrument none --alg native,auto \
            --iters 100 --warmup 4 --base-ms 10 --max-delay 20 -N 1M --counts $counts --order blocked --quiet \
            --csv /tmp/budget-random-$tag.csv --label $counts 2>&1 | quiet
        done
      done
    done > /tmp/budget-random.log
    $CL down
    python3 - > $R/random.md <<'PY'
import csv, glob
print("| library | model file | blocks | native ē ms | auto ē ms (ran) | auto / native |")
print("|---|---|---|---|---|---|")
for f in sorted(glob.glob("/tmp/budget-random-*.csv")):
    lib, model = f[len("/tmp/budget-random-"):-4].rsplit("-", 1)
    rows = {}
    for r in csv.DictReader(open(f)):
        rows.setdefault(r["label"], {})[r["alg"]] = r
    for label, a in rows.items():
        n, x = float(a["native"]["ebar_us"]) / 1000, float(a["auto"]["ebar_us"]) / 1000
        print(f"| {lib} | {model} | {label} | {n:.1f} | {x:.1f} ({a['auto']['chosen']}) | {x / n:.3f} |")
PY
    ;;
  response)
    mkdir -p /tmp/resp && rm -f /tmp/resp/a.csv /tmp/resp/b.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    i=0
    for c in "4M onebig 50" "4M onebig 100" "4M ramp 50" "4M ramp 100" "1M onebig 50" "1M ramp 100" "4M onebig 0"; do
      set -- $c
      echo "== $c"
      if [ $((i++ % 2)) = 0 ]; then
        cell $PREV /tmp/resp/a.csv $1 $2 $3 native,auto,relay; cell $NEW /tmp/resp/b.csv $1 $2 $3 native,auto,relay
      else
        cell $NEW /tmp/resp/b.csv $1 $2 $3 native,auto,relay; cell $PREV /tmp/resp/a.csv $1 $2 $3 native,auto,relay
      fi
    done > /tmp/budget-response.log
    $CL down
    ;;
  *) sed -n '2,14p' $R/run.sh; exit 2 ;;
esac
