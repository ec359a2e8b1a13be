#!/usr/bin/env bash
# Non-blocking all-gathers on the emulated cluster (P = 8 hosts, 500 Mbit/s), each variant alone in its
# launch, as a user runs one: per cell (N/maxDelay/T: floats, the posts' spread in ms, compute after the
# post in ms) one launch of pat-minibench per variant, their order rotated from round to round. A
# variant is `native` (MPI's own MPI_Iallgather), `auto` (PAT_ALG=auto, this build), `old` (auto from
# the pat-minibench OLD_MB names, another build) or an algorithm's name (its schedule in libpat's
# background thread).
# Rows to OUT/alone.csv (label round/N/delay-T/variant); the table (each variant's median e-bar, and
# its e-bar over native's paired by round) from python3 bench/nbc/alone_table.py OUT/alone.csv.
#   OUT=bench/results/DATE/x VARIANTS="native auto old" CELLS="1M/0/0 4M/0/0 4M/100/224" ROUNDS=3 ITERS=20 \
#     OLD_MB=/tmp/old/build/bench/minibench/pat-minibench bash bench/nbc/alone_ab.sh
# Needs root and build/ (cmake --build build); tears its cluster down at the end.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=folder}
VARIANTS=${VARIANTS:-native auto} CELLS=${CELLS:-1M/0/0 4M/0/0 1M/100/0 4M/100/0}
ROUNDS=${ROUNDS:-3} ITERS=${ITERS:-20}
MB=${MB:-build/bench/minibench/pat-minibench} OLD_MB=${OLD_MB:-}
CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patq}
read -r -a variants <<<"$VARIANTS"
mkdir -p "$OUT"
$CL down >/dev/null 2>&1
$CL up -n 8 --rate 500mbit >/dev/null || exit 1
trap '$CL down >/dev/null 2>&1' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for cell in $CELLS; do
    IFS=/ read -r n d t <<<"$cell"
    for i in $(seq 0 $((${#variants[@]} - 1))); do
      v=${variants[$(((i + round) % ${#variants[@]}))]}
      mb=$MB setting=$v alg=$v
      case $v in
        native) setting=ring ;; # the launch's setting starts the background thread; the call's is --alg
        old) mb=${OLD_MB:?OLD_MB=another build\'s pat-minibench} setting=auto alg=auto ;;
      esac
      $CL run --timeout 300 -np 8 -x PAT_ALG="$setting" "$mb" -N "$n" --iters "$ITERS" --warmup 2 --base-ms 20 \
        --max-delay "$d" --order blocked --overlap "${t:-0}" --alg "$alg" --quiet --flat-iters 0 \
        --csv "$OUT/alone.csv" --label "$round/$n/$d-${t:-0}/$v" >/dev/null 2>&1 || echo "launch failed: $round/$cell/$v"
    done
  done
  echo "round $round done $(date -u +%T)"
done
python3 bench/nbc/alone_table.py "$OUT/alone.csv"
