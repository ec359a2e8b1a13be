#!/usr/bin/env bash
# bench/results/2026-11-24-vauto: auto for MPI_Allgatherv (issue 23), a choice per count signature.
#   bash bench/runs/vauto/run.sh cluster  # unequal blocks on the emulated cluster, auto with a model
#   bash bench/runs/vauto/run.sh osu      # osu_allgatherv under the drop-in, before (OLD) and after
# Needs root, build/ (cmake --build build), a quiet machine; `osu` needs OSU's osu_allgatherv built
# unmodified (see bench/balanced/osu.sh; OSU=path, default /tmp/osu/osu_allgatherv) and the libpat of the
# commit before (OLD=its build dir, default /tmp/oldbuild; this run used 0dd9de1).  `cluster` tears the
# emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-24-vauto} # OUT: the output folder (default: the committed one)
H=bench/runs/vauto # this script's helpers
MODEL=bench/results/2026-11-24-b2b/model/cluster-p8.model # calibrated on the same emulated cluster (P = 8, 500 Mbit/s)
case ${1:-} in
  cluster)
    rm -f $R/minibench.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for N in 1M 4M; do
      for counts in equalv onebig ramp; do
        for d in 0 50 100 50+size; do
          extra=""
          [ $d = 50+size ] && extra=--compute-by-size
          echo "== N=$N counts=$counts delay=$d"
          $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL $MB -N $N --iters 12 --warmup 3 --base-ms 20 --quiet \
            --max-delay ${d%+size} $extra --counts $counts --alg native,auto,relay,direct \
            --csv $R/minibench.csv --label "$counts/$d" 2>&1 | grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
        done
      done
    done > $R/cluster.log
    $CL down
    OUT=$R python3 $H/summarise.py > $R/summary.md
    ;;
  osu)
    OLD=${OLD:-/tmp/oldbuild}
    bash bench/balanced/osu.sh --osu "${OSU:-/tmp/osu/osu_allgatherv}" --out $R/osu --configs shm2,shm4 \
      --rounds 15 --old-lib $OLD/libpat_mpi.so --osu-args "-m 1:1048576 -i 1000"
    ;;
  *) sed -n '2,8p' "$0"; exit 2 ;;
esac
