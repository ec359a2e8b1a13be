#!/bin/bash
# The model at scale (bench/results/2026-11-26-scale): what pat-model and pat-schedule predict for P up to
# 4096 in nodes of 32-128 ranks, flat RELAY against HRELAY, HRING and RING, and what the selection costs.
# Pure model: no MPI, no network; the 'select' part measures CPU time (CLOCK_THREAD_CPUTIME_ID), robust to
# other work on the machine but still best run on a quiet one.
#
#   bash bench/runs/scale/run.sh predict    # pat-model, P = 256, 1024, 4096 x ppn 32, 64, 128 x maxDelay 0, 50 ms
#                                           #   x N = 16M, 64M floats; flat RELAY replayed up to P = RELAY_MAX_P
#                                           #   (default 1024: ~25 s a cell there); ~10 min
#   OLD=/path/to/old/build bash bench/runs/scale/run.sh select
#                                           # the selection's CPU time per call at P = 64, 256, 1024 in nodes
#                                           #   of 16 and 32, this build and OLD's pat-model (built from the commit
#                                           #   before, with --select-timing; without OLD: this build only); ~2 min
#   bash bench/runs/scale/run.sh schedule   # pat-schedule --summary at P = 4096 in nodes of 128; ~1 min
#   bash bench/runs/scale/run.sh table      # table.md from predict/ (python3 bench/runs/scale/table.py)
#
# Writes into OUT (default bench/results/2026-11-26-scale).  BUILD: this build (default build).
set -euo pipefail
OUT=${OUT:-bench/results/2026-11-26-scale}
BUILD=${BUILD:-build}
RELAY_MAX_P=${RELAY_MAX_P:-1024}
NET=(--rate 10gbit --latency 2us --intra-rate 100gbit --intra-latency 1us)
part=${1:-all}

predict() {
  mkdir -p "$OUT/predict"
  for N in 16M 64M; do
    for P in 256 1024 4096; do
      for k in 32 64 128; do
        for D in 0 50ms; do
          f="$OUT/predict/P${P}-ppn${k}-N${N}-D${D}.txt"
          "$BUILD/pat-model" "${NET[@]}" --P "$P" --ppn "$k" --N "$N" --max-delay "$D" --algs ring,hring,hrelay \
            --node-model > "$f"
          if [ "$P" -le "$RELAY_MAX_P" ]; then
            "$BUILD/pat-model" "${NET[@]}" --P "$P" --ppn "$k" --N "$N" --max-delay "$D" --algs relay \
              | grep -E '^relay ' > "$f.relay" || true
          fi
        done
      done
    done
  done
}

select_cpu() {
  mkdir -p "$OUT/select"
  for which in new old; do
    bin="$BUILD/pat-model"
    if [ "$which" = old ]; then
      [ -n "${OLD:-}" ] || continue
      bin="$OLD/pat-model"
    fi
    for P in 64 256 1024; do
      for k in 16 32; do
        for D in 0 50ms; do
          timeout 600 "$bin" "${NET[@]}" --P "$P" --ppn "$k" --N 16M --max-delay "$D" --select-timing \
            > "$OUT/select/$which-P$P-ppn$k-D$D.txt" 2>&1 || true
        done
      done
    done
  done
}

schedule() {
  mkdir -p "$OUT/schedule"
  for alg in hrelay hring ring relay; do
    for W in 0 3000; do
      "$BUILD/pat-schedule" --alg "$alg" -P 4096 --ppn 128 --random "$W" --summary \
        > "$OUT/schedule/$alg-P4096-ppn128-random$W.txt"
    done
  done
}

case "$part" in
predict) predict ;;
select) select_cpu ;;
schedule) schedule ;;
table) OUT="$OUT" python3 bench/runs/scale/table.py > "$OUT/table.md" ;;
all) predict; select_cpu; schedule; OUT="$OUT" python3 bench/runs/scale/table.py > "$OUT/table.md" ;;
*) echo "usage: run.sh predict|select|schedule|table|all" >&2; exit 2 ;;
esac
