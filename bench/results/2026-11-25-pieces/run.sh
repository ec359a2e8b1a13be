#!/usr/bin/env bash
# bench/results/2026-11-25-pieces: RELAY's piece size on the emulated cluster (P = 8, 500 Mbit/s, the
# 2026-11-25-paced cluster model, instrumented, blocked order, 12 calls after 3 warm-up calls), builds
# side by side in interleaved launches (one launch per build, cell and round, the builds in a fixed
# order within a round).
#   bash bench/results/2026-11-25-pieces/run.sh variants   # builds 5177e31 with PAT_RELAY_MAX_PIECE 48K (as
#                                                          # committed), 28K, 24K, 16K, 12K into /tmp/pieces-*
#   bash bench/results/2026-11-25-pieces/run.sh sizes      # sizes.csv: 512K and 2M floats x 0/50/100 ms,
#                                                          # 48K/24K/12K, 6 rounds (about 15 min)
#   bash bench/results/2026-11-25-pieces/run.sh onemeg     # onemeg.csv: 1M x 0/50/100 ms, 48K/12K, 8 rounds
#   bash bench/results/2026-11-25-pieces/run.sh count      # count.csv: 1M x 0/50 ms, all 5 variants, 6 rounds
#   bash bench/results/2026-11-25-pieces/run.sh ab         # ab.csv: 5177e31 (/tmp/pieces-48k) against build/,
#                                                          # RELAY and auto, equal/one-big/ramp cells, 4 rounds
#   python3 bench/results/2026-11-25-pieces/table.py bench/results/2026-11-25-pieces/X.csv BASE > X.md
# Needs root, build/ built, a quiet machine. Tears the emulated cluster down at the end.
set -uo pipefail
cd "$(dirname "$0")/../../.."
R=bench/results/2026-11-25-pieces
CL=bench/cluster/pat-cluster
MODEL=bench/results/2026-11-25-paced/model/cluster-p8.model
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BASE_COMMIT=5177e31
# run OUT ROUNDS "N/counts/delay ..." "name:builddir ..." ALGS
run() {
  local out=$1 rounds=$2 cells=$3 variants=$4 algs=$5
  rm -f "$out"
  $CL down >/dev/null 2>&1
  $CL up -n 8 --rate 500mbit
  for round in $(seq 1 "$rounds"); do
    for cell in $cells; do
      IFS=/ read -r N counts d <<< "$cell"
      local extra=()
      case $d in *+size) extra=(--compute-by-size) ;; esac
      for v in $variants; do
        echo "== $round $cell ${v%%:*} $(date +%T)"
        $CL run --timeout 600 -np 8 -x PAT_MODEL=$MODEL "${v#*:}"/bench/minibench/pat-minibench -N "$N" --iters 12 \
          --warmup 3 --base-ms 20 --quiet --max-delay "${d%+size}" --order blocked --counts "$counts" "${extra[@]}" \
          --alg "$algs" --csv "$out" --label "$round/$N/$counts/$d/${v%%:*}" 2>&1 | grep -E "^[a-z]+ +ok|FAIL|rror"
      done
    done
  done
  $CL down
}
V=/tmp/pieces
case ${1:-} in
  variants)
    for p in 48:49152 28:28672 24:24576 16:16384 12:12288; do
      d=$V-${p%%:*}k
      rm -rf "$d" && git clone -q . "$d" && git -C "$d" checkout -q $BASE_COMMIT
      sed -i "s/#define PAT_RELAY_MAX_PIECE 49152/#define PAT_RELAY_MAX_PIECE ${p#*:}/" "$d/algorithms/algorithms.h"
      cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
      cmake --build "$d/build" -j "$(nproc)" --target pat-minibench >/dev/null
    done ;;
  sizes) run $R/sizes.csv 6 "512K/equalv/0 512K/equalv/50 512K/equalv/100 2M/equalv/0 2M/equalv/50 2M/equalv/100" \
           "main:$V-48k/build 24k:$V-24k/build 12k:$V-12k/build" relay ;;
  onemeg) run $R/onemeg.csv 8 "1M/equalv/50 1M/equalv/0 1M/equalv/100" "main:$V-48k/build 12k:$V-12k/build" relay ;;
  count) run $R/count.csv 6 "1M/equalv/0 1M/equalv/50" \
           "main:$V-48k/build 28k:$V-28k/build 24k:$V-24k/build 16k:$V-16k/build 12k:$V-12k/build" relay ;;
  ab) run $R/ab.csv 4 "1M/equalv/0 1M/equalv/50 1M/equalv/100 2M/equalv/50 1M/onebig/50 1M/onebig/100+size 1M/ramp/50 \
         4M/ramp/50 4M/onebig/50+size" "old:$V-48k/build new:build" relay,auto ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac
