#!/usr/bin/env bash
# auto as a user runs it (issue 53): one algorithm per launch, so that auto's call site sees only its
# own calls, against each fixed algorithm alone; launches interleaved (each round runs every algorithm
# of a cell once, in an order rotated by round), several rounds; on the emulated cluster at P = 8,
# N in {256K, 1M, 4M} floats x maxDelay in {0, 10, 50, 100} ms, without a model file and with each
# model file given (the fixed algorithms too: PAT_PACE and PAT_WAIT_NAP read the model file). Then per cell and model condition: the median e-bar of each algorithm over the
# rounds with a 95% interval, and auto's ratio to the fastest fixed algorithm (paired by round).
#
#   bash bench/auto/user_protocol.sh OUTDIR                    # the whole protocol (needs root, a quiet machine)
#   MODELS="build/demo-cache/x.model full.model" bash bench/auto/user_protocol.sh OUTDIR
#   DRY=1 bash bench/auto/user_protocol.sh /tmp/up-dry         # 1 cell, tiny sizes, local mpirun: does it work?
#
# Settings (environment): ROUNDS (3), ITERS ("20 200": calls per launch, each its own set of launches),
# WARMUP (3), SIZES ("256K 1M 4M"), DELAYS ("0 10 50 100"), FIXED ("native ring direct relay bruck nex rdb"),
# MODELS (model files, space-separated; "none" is always the first condition), RATE (500mbit), BASE_MS (20),
# MB (build/bench/minibench/pat-minibench), LOCAL=1 (plain mpirun -np $P on this node, PAT_ONE_NODE=auto,
# no cluster), P (8), K (1: ranks per emulated host; the cluster then has ceil(P / K) hosts, shared
# memory inside each; where K does not divide P the last host holds fewer: P = 8, K = 3 is 3 + 3 + 2), MAP (node: rank r on host r mod P / K, pat-cluster run --map-by; default by slot),
# OLD_MB (another build's pat-minibench: ALG@old in FIXED, or auto@old, runs it there, labelled build=old,
# so that before and after run interleaved in one protocol; e.g. FIXED="auto@old hring hrelay").
# Writes OUTDIR/raw.csv (one row per launch: pat-minibench's CSV, its label
# "cond=..;iters=..;round=.."), OUTDIR/log.txt, OUTDIR/summary.md (bench/auto/summarize.py).
# The cluster is brought up here and torn down at the end (PAT_CLUSTER_PREFIX keeps it apart from others').
set -uo pipefail
OUT=${1:?usage: user_protocol.sh OUTDIR}
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-20 200}
WARMUP=${WARMUP:-3}
SIZES=${SIZES:-256K 1M 4M}
DELAYS=${DELAYS:-0 10 50 100}
FIXED=${FIXED:-native ring direct relay bruck nex rdb}
MODELS=${MODELS:-}
RATE=${RATE:-500mbit}
BASE_MS=${BASE_MS:-20}
MB=${MB:-build/bench/minibench/pat-minibench}
P=${P:-8}
K=${K:-1}
LOCAL=${LOCAL:-0}
CL=bench/cluster/pat-cluster
if [ "${DRY:-0}" = 1 ]; then # one cell, tiny, on this node
  ROUNDS=2 ITERS=4 WARMUP=1 SIZES=4K DELAYS=2 FIXED="native ring" LOCAL=1 P=${P_DRY:-3} BASE_MS=1
fi
mkdir -p "$OUT"
[ -x "$MB" ] || { echo "user_protocol: $MB missing (cmake --build build)" >&2; exit 2; }
for m in $MODELS; do [ -f "$m" ] || { echo "user_protocol: no model file $m" >&2; exit 2; }; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RAW=$OUT/raw.csv LOG=$OUT/log.txt
rm -f "$RAW"
: > "$LOG"

launch() { # cond model iters round N delay alg (alg@old: OLD_MB's build)
  local env=(-x PAT_REPORT=1) label="cond=$1;iters=$3;round=$4" mb=$MB alg=$7
  if [ "${alg%@old}" != "$alg" ]; then
    mb=${OLD_MB:?ALG@old needs OLD_MB} alg=${alg%@old} label="$label;build=old"
  fi
  [ "$2" != none ] && env+=(-x PAT_MODEL="$(readlink -f "$2")")
  local args=(-N "$5" --iters "$3" --warmup "$WARMUP" --base-ms "$BASE_MS" --max-delay "$6" --alg "$alg"
              --order blocked --flat-iters 0 --quiet --csv "$RAW" --label "$label")
  echo "== $label N=$5 delay=$6 alg=$7" >> "$LOG"
  if [ "$LOCAL" = 1 ]; then
    mpirun -np "$P" --oversubscribe --bind-to none -x PAT_ONE_NODE=auto "${env[@]}" "$mb" "${args[@]}" >> "$LOG" 2>&1
  else
    $CL run --timeout 1800 ${MAP:+--map-by "$MAP"} -np "$P" "${env[@]}" "$mb" "${args[@]}" >> "$LOG" 2>&1
  fi || echo "   launch failed (exit $?)" >> "$LOG"
}

if [ "$LOCAL" != 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "user_protocol: the emulated cluster needs root (LOCAL=1 runs on this node)" >&2; exit 2; }
  export PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patu}
  $CL down >/dev/null 2>&1
  # P not a multiple of K: the last host holds fewer (by slot, 8 ranks at K = 3: 3 + 3 + 2)
  $CL up -n $(((P + K - 1) / K)) --ranks-per-host "$K" --rate "$RATE" >> "$LOG" 2>&1 || { echo "user_protocol: pat-cluster up failed (see $LOG)" >&2; exit 2; }
  trap '$CL down >/dev/null 2>&1' EXIT
fi

conds=("none:none")
for m in $MODELS; do conds+=("$(basename "$m" .model):$m"); done
algs=(auto $FIXED)
for round in $(seq 1 "$ROUNDS"); do
  for iters in $ITERS; do
    for N in $SIZES; do
      for d in $DELAYS; do
        for c in "${conds[@]}"; do
          # rotate the launch order by round, so no algorithm always follows the same one
          n=${#algs[@]}
          for i in $(seq 0 $((n - 1))); do
            alg=${algs[$(((i + round - 1) % n))]}
            launch "${c%%:*}" "${c#*:}" "$iters" "$round" "$N" "$d" "$alg"
          done
        done
      done
    done
  done
  echo "round $round of $ROUNDS done: $(date -u +%H:%M:%S)" | tee -a "$LOG"
done
python3 bench/auto/summarize.py "$RAW" > "$OUT/summary.md"
cat "$OUT/summary.md"
