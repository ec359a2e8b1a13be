#!/usr/bin/env bash
# auto's all-reduce before and after a change, in one run: pat-minibench --coll allreduce on the emulated
# cluster (P hosts x 1 rank), auto of this build ("new") and of another (OLD_MB, "old") beside RELAY and
# ring of this build, each alone in its launch, the order rotated per round; PAT_VERBOSE=1 logs auto's
# choices and the summed trials they were made from.  Rows: OUT/cells.csv (label round/case/alg-lib).
#   OLD_MB=/tmp/old/build/bench/minibench/pat-minibench RATE=200mbit ITERS=24 ROUNDS=2 \
#     CASES="straggler late" bash bench/allreduce/auto_ab.sh OUT
#   python3 bench/allreduce/ab_table.py OUT/cells.csv > OUT/table.md
set -uo pipefail
OUT=${1:?usage: auto_ab.sh OUTDIR}
cd "$(dirname "$0")/../.."
OLD_MB=${OLD_MB:?OLD_MB: the other build's pat-minibench} MB=${MB:-build/bench/minibench/pat-minibench}
P=${P:-8} RATE=${RATE:-200mbit} N=${N:-1M} DELAY=${DELAY:-100} ITERS=${ITERS:-24} ROUNDS=${ROUNDS:-2}
CASES=${CASES:-straggler late} LATE=${LATE:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patab}
CL=bench/cluster/pat-cluster
mkdir -p "$OUT"
LOG=$OUT/log.txt
$CL down >/dev/null 2>&1
$CL up -n "$P" --rate "$RATE" >>"$LOG" 2>&1 || { echo "auto_ab.sh: cluster up failed" >&2; exit 1; }
trap '$CL down >/dev/null 2>&1' EXIT
variants=(auto:new auto:old relay:new ring:new)
n=${#variants[@]}
for r in $(seq 1 "$ROUNDS"); do
  for c in $CASES; do
    case $c in
      late) pattern=(--max-delay "$DELAY" --late-rank "$LATE") ;;
      straggler) pattern=(--max-delay "$DELAY" --straggler "$LATE") ;;
      random) pattern=(--max-delay "$DELAY") ;;
      balanced) pattern=(--max-delay 0) ;;
      *) echo "auto_ab.sh: unknown case $c" >&2; exit 2 ;;
    esac
    for i in $(seq 0 $((n - 1))); do
      v=${variants[$(((i + r) % n))]}
      alg=${v%%:*} lib=${v#*:} mb=$MB
      [ "$lib" = old ] && mb=$OLD_MB
      s=$(date +%s)
      # PAT_WAIT_NAP=50: on 2 cores 8 ranks and their threads oversubscribe the CPUs (bench/allreduce/cells.sh)
      $CL run --timeout 300 -np "$P" -x PAT_ALLREDUCE="$alg" -x PAT_WAIT_NAP=50 -x PAT_VERBOSE=1 "$mb" \
        --coll allreduce --quiet -N "$N" --iters "$ITERS" --warmup 3 --flat-iters 0 --base-ms 20 "${pattern[@]}" \
        --csv "$OUT/cells.csv" --label "$r/$c/$alg-$lib" >>"$LOG" 2>&1
      echo "$r/$c/$alg-$lib rc $? $(($(date +%s) - s)) s" | tee -a "$LOG"
    done
  done
done
