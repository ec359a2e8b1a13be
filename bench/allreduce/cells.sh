#!/usr/bin/env bash
# The all-reduce under imbalanced arrivals on the emulated cluster: pat-minibench --coll allreduce,
# each algorithm alone in its launch (PAT_ALLREDUCE: MPI's own, ring, Rabenseifner, RELAY, auto), in
# these arrival patterns: a rank that is always last (--late-rank, the whole max delay every call, the
# others' drawn), one slow rank and the others on time (--straggler), delays drawn afresh every call
# (random), delays drawn once and kept (fixed: a static imbalance, the same order every call), and
# balanced; rounds interleaved, the algorithms' order rotated per round.
# No model file.  Rows: OUT/cells.csv (label round/case/alg); OUT/log.txt the launches' output.
#   RATE=200mbit P=8 N=1M DELAY=100 ITERS=20 ROUNDS=2 bash bench/allreduce/cells.sh OUT
# DEADLINE_S=s: no launch starts after s seconds, and none runs past them (the device's budget);
# TIMEOUT=s a launch (default 180).  Nodes: HOSTS hosts of K ranks (P = HOSTS * K), placed by slot, or
# round robin with MAP=node; NP < HOSTS * K leaves the last hosts short (HOSTS=3 K=3 NP=8: 3 + 3 + 2); ENVS="VAR=value ..." passed to every launch (on 2 cores, 8 ranks and their
# threads oversubscribe the CPUs while each emulated host counts 2: PAT_WAIT_NAP=50 naps as libpat does
# where it knows).
#   python3 bench/allreduce/table.py OUT/cells.csv > OUT/table.md
# Before and after a change in one run: an ALGS entry ALG@old runs ALG with OLD_MB (another build's
# pat-minibench), labelled so; with PAT_VERBOSE=1 in ENVS the log has auto's choices and their trials:
#   OLD_MB=OLD/build/bench/minibench/pat-minibench ALGS="auto auto@old relay ring" ITERS=24 \
#     CASES="straggler late" ENVS="PAT_WAIT_NAP=50 PAT_VERBOSE=1" bash bench/allreduce/cells.sh OUT
#   python3 bench/allreduce/ab_table.py OUT/cells.csv > OUT/table.md
# An ALGS entry ALG+VAR=value runs ALG with that variable too, labelled so (ALGS="hrelay hrelay+PAT_PACE=98").
# UP_ARGS: more options of pat-cluster up (UP_ARGS=--switch-fair).
set -uo pipefail
OUT=${1:?usage: cells.sh OUTDIR}
cd "$(dirname "$0")/../.."
K=${K:-1} HOSTS=${HOSTS:-${P:-8}}
P=${NP:-$((HOSTS * K))} MAP=${MAP:-} ENVS=(${ENVS:-})
RATE=${RATE:-200mbit} N=${N:-1M} DELAY=${DELAY:-100} ITERS=${ITERS:-20} ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3} LATE=${LATE:-3} CASES=${CASES:-late random balanced} ALGS=(${ALGS:-native ring rabenseifner relay auto})
MB=${MB:-build/bench/minibench/pat-minibench} CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patr}
END=$(($(date +%s) + ${DEADLINE_S:-1000000})) TIMEOUT=${TIMEOUT:-180}
mkdir -p "$OUT"
LOG=$OUT/log.txt
trap '$CL down >/dev/null 2>&1' EXIT
$CL down >/dev/null 2>&1
$CL up -n "$HOSTS" --ranks-per-host "$K" --rate "$RATE" ${UP_ARGS:-} >>"$LOG" 2>&1 || { echo "cells.sh: cluster up failed" >&2; exit 1; }
n=${#ALGS[@]}
for r in $(seq 1 "$ROUNDS"); do
  for c in $CASES; do
    case $c in
      late) pattern=(--max-delay "$DELAY" --late-rank "$LATE") ;;
      straggler) pattern=(--max-delay "$DELAY" --straggler "$LATE") ;;
      random) pattern=(--max-delay "$DELAY") ;;
      fixed) pattern=(--max-delay "$DELAY" --fixed-delays) ;;
      balanced) pattern=(--max-delay 0) ;;
      *) echo "cells.sh: unknown case $c" >&2; exit 2 ;;
    esac
    for i in $(seq 0 $((n - 1))); do
      alg=${ALGS[$(((i + r) % n))]}
      echo "== $r/$c/$alg" >>"$LOG"
      s=$(date +%s) t=$((END - $(date +%s)))
      [ "$t" -lt 10 ] && { echo "$r/$c/$alg skipped (deadline)" | tee -a "$LOG"; continue; }
      [ "$t" -gt "$TIMEOUT" ] && t=$TIMEOUT
      mb=$MB
      case $alg in *@old) mb=${OLD_MB:?OLD_MB: another build of pat-minibench, for $alg} ;; esac
      name=${alg%@old} extra=()
      case $name in *+*=*) extra=(-x "${name#*+}") name=${name%%+*} ;; esac
      xs=(-x PAT_ALLREDUCE="$name" "${extra[@]}")
      for e in "${ENVS[@]}"; do xs+=(-x "$e"); done
      $CL run --timeout "$t" ${MAP:+--map-by "$MAP"} -np "$P" "${xs[@]}" "$mb" --coll allreduce --quiet -N "$N" \
        --iters "$ITERS" --warmup "$WARMUP" --flat-iters 0 --base-ms 20 "${pattern[@]}" \
        --csv "$OUT/cells.csv" --label "$r/$c/$alg" >>"$LOG" 2>&1
      echo "$r/$c/$alg rc $? $(($(date +%s) - s)) s" | tee -a "$LOG"
    done
  done
done
