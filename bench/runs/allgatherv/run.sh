#!/usr/bin/env bash
# bench/results/2026-11-24-allgatherv: the first measurements of PAT_Allgatherv (issue 23).
#   bash bench/runs/allgatherv/run.sh osu      # osu_allgatherv under the drop-in (auto)
#   bash bench/runs/allgatherv/run.sh cluster  # unequal blocks on the emulated cluster
#   bash bench/runs/allgatherv/run.sh before-after  # the all-gather before/after (OLD=build of 5e59ed2)
# Needs root, build/ (cmake --build build), a quiet machine, and for `osu` OSU's osu_allgatherv
# built unmodified from its 5.x release (see bench/balanced/osu.sh; OSU=path, default
# /tmp/osu/osu_allgatherv).  `cluster` tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-allgatherv} # OUT: the output folder (default: the committed one)
H=bench/runs/allgatherv # this script's helpers
case ${1:-} in
  osu)
    bash bench/balanced/osu.sh --osu "${OSU:-/tmp/osu/osu_allgatherv}" --out $R/osu --configs shm2,shm4 \
      --rounds 5 --osu-args "-m 1:1048576 -i 1000"
    ;;
  cluster)
    rm -f $R/minibench.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for N in 1M 4M; do
      for counts in onebig ramp; do
        for d in 0 50 50+size; do
          extra=""
          [ $d = 50+size ] && extra=--compute-by-size
          echo "== N=$N counts=$counts delay=$d"
          $CL run --timeout 600 -np 8 $MB -N $N --iters 12 --warmup 3 --base-ms 20 --quiet \
            --max-delay ${d%+size} $extra --counts $counts --alg ring,direct,relay,bdr,native \
            --csv $R/minibench.csv --label "$counts/$d" 2>&1 | grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
        done
      done
    done > $R/log.txt
    $CL down
    OUT=$R python3 $H/summarise.py > $R/summary.md
    ;;
  before-after)
    # the all-gather before (5e59ed2, built into $OLD, default /tmp/oldbuild) and after, interleaved:
    # osu_allgather on shared memory, and one imbalanced cluster cell
    OLD=${OLD:-/tmp/oldbuild}
    bash bench/balanced/osu.sh --osu "${OSU_AG:-/tmp/osu/osu_allgather}" --out $R/osu-allgather --configs shm2,shm4 \
      --rounds 5 --old-lib $OLD/libpat_mpi.so --osu-args "-m 1:1048576 -i 1000"
    rm -f $R/before-after.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for round in 1 2 3; do
      for v in new old; do
        mb=$MB
        [ $v = old ] && mb=$OLD/bench/minibench/pat-minibench
        $CL run --timeout 300 -np 8 $mb -N 1M --iters 12 --warmup 3 --base-ms 20 --quiet --max-delay 50 \
          --alg ring,direct,relay --csv $R/before-after-$v.csv --label "$v/round$round" >/dev/null 2>&1
      done
    done
    $CL down
    ;;
  *) sed -n '2,7p' "$0"; exit 2 ;;
esac
