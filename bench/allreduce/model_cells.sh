#!/usr/bin/env bash
# The cost model's ē for the all-reduce cells that cells.sh measures: pat-schedule's replay of each
# algorithm's schedule (the data flows, RELAY, HRELAY and SLT, as the executor runs them; pieces cut
# as for the vector's bytes) on one arrival pattern, every rank on time but the last, LATE ms late.
# Replayed with alpha = 0 and gamma = 0, one segment of the vector (its bytes / P) = tau at the link's
# rate; with PPN > 1 nodes of PPN consecutive ranks (by slot), shared memory 10x the link.
# One CSV row per cell on stdout: shape, rate, vector bytes, late ms, algorithm, ē and ē_lb in ms.
#   RATE_MBIT=200 P=8 PPN=1 BYTES=4194304 LATES="0 100" ALGS="ring relay slt" bash bench/allreduce/model_cells.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE_MBIT=${RATE_MBIT:-200} P=${P:-8} PPN=${PPN:-1} BYTES=${BYTES:-4194304} LATES=${LATES:-0 100}
ALGS=(${ALGS:-ring relay slt}) SCHEDULE=${SCHEDULE:-build/pat-schedule}
tau_ms=$(awk -v b="$BYTES" -v p="$P" -v r="$RATE_MBIT" 'BEGIN { printf "%.6f", b / p * 8 / (r * 1e6) * 1e3 }')
shape="$((P / PPN))x$PPN"
ppn=()
[ "$PPN" -gt 1 ] && ppn=(--ppn "$PPN")
[ -n "${NO_HEADER:-}" ] || echo "shape,rate_mbit,vector_bytes,late_ms,alg,model_ebar_ms,model_elb_ms"
for late in $LATES; do
  arrivals=$(awk -v p="$P" -v l="$late" -v t="$tau_ms" 'BEGIN {
    for (i = 0; i < p - 1; i++) printf "0,"; printf "%.4f", l / t }')
  for alg in "${ALGS[@]}"; do
    line=$("$SCHEDULE" --coll allreduce --alg "$alg" -P "$P" "${ppn[@]}" --arrivals "$arrivals" \
      --bytes "$BYTES" --times | grep '^mean e:')
    # "mean e: ALG X tau, RING Y tau (...), lower bound Z tau"
    awk -v s="$shape" -v r="$RATE_MBIT" -v b="$BYTES" -v l="$late" -v a="$alg" -v t="$tau_ms" '{
      printf "%s,%s,%s,%s,%s,%.1f,%.1f\n", s, r, b, l, a, $4 * t, $(NF - 1) * t }' <<<"$line"
  done
done
