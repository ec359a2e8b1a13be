#!/usr/bin/env bash
# The emulated cluster with nodes: H hosts x k ranks (shared memory inside a host, TCP between
# hosts), every candidate alone in its own launch (auto's call site sees only its own calls), the
# launches of a round interleaved and their order rotated from round to round; N x maxDelay cells.
# One CSV row per launch (pat-minibench --csv) into OUT/cells.csv, then OUT/cells.md (medians of ebar
# and ebar/elb per cell and algorithm, 95% intervals of the median where there are >= 3 rounds).
#
#   OUT=bench/results/DATE-nodes H=4 K=2 RATE=200mbit N="1M 4M" DELAYS="0 50 100" ROUNDS=3 \
#     ALGS="native han ring direct relay hring hrelay auto" ITERS=12 bash bench/nodes/run.sh
#
# han is NATIVE under Open MPI's HAN (--mca coll_han_priority 100). MODEL=FILE gives every launch
# PAT_MODEL. Needs root and build/ (cmake --build build); tears the cluster down at the end.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=folder}
H=${H:-4} K=${K:-2} RATE=${RATE:-200mbit} ROUNDS=${ROUNDS:-3} ITERS=${ITERS:-12} WARMUP=${WARMUP:-3}
N=${N:-1M 4M} DELAYS=${DELAYS:-0 50 100}
ALGS=${ALGS:-native han ring direct relay hring hrelay auto}
CL=bench/cluster/pat-cluster
MB=build/bench/minibench/pat-minibench
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
model=()
[ -n "${MODEL:-}" ] && model=(-x PAT_MODEL="$MODEL")
$CL down >/dev/null 2>&1
$CL up -n "$H" --ranks-per-host "$K" --rate "$RATE" || exit 1
trap '$CL down >/dev/null 2>&1' EXIT
read -r -a algs <<<"$ALGS"
for round in $(seq 1 "$ROUNDS"); do
  for n in $N; do
    for d in $DELAYS; do
      # rotate the order by the round, so no algorithm always runs first
      for i in $(seq 0 $((${#algs[@]} - 1))); do
        alg=${algs[$(((i + round) % ${#algs[@]}))]}
        mca=() name=$alg
        [ "$alg" = han ] && mca=(--mca coll_han_priority 100) && name=native
        echo "== round $round N=$n delay=$d $alg $(date +%T)"
        $CL run --timeout 600 --np-all "${mca[@]}" "${model[@]}" $MB -N "$n" --iters "$ITERS" --warmup "$WARMUP" \
          --base-ms 20 --quiet --max-delay "$d" --alg "$name" --csv "$OUT/cells.csv" --label "$round/$n/$d/$alg" 2>&1 |
          grep -v "^(\|^ r'\|libpat stats\|^$"
      done
    done
  done
done
python3 bench/nodes/table.py "$OUT/cells.csv" >"$OUT/cells.md"
