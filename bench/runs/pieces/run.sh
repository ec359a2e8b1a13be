#!/usr/bin/env bash
# bench/results/2026-11-25-pieces: RELAY's piece size on the emulated cluster (P = 8, 500 Mbit/s, the
# 2026-11-25-paced cluster model, instrumented, blocked order, 12 calls after 3 warm-up calls), builds
# side by side in interleaved launches (one launch per build, cell and round, the builds in a fixed
# order within a round).
#   bash bench/runs/pieces/run.sh variants   # builds 5177e31 with PAT_RELAY_MAX_PIECE 48K (as
#                                                          # committed), 28K, 24K, 16K, 12K into /tmp/pieces-*
#   bash bench/runs/pieces/run.sh sizes      # sizes.csv: 512K and 2M floats x 0/50/100 ms,
#                                                          # 48K/24K/12K, 6 rounds (about 15 min)
#   bash bench/runs/pieces/run.sh onemeg     # onemeg.csv: 1M x 0/50/100 ms, 48K/12K, 8 rounds
#   bash bench/runs/pieces/run.sh count      # count.csv: 1M x 0/50 ms, all 5 variants, 6 rounds
#   bash bench/runs/pieces/run.sh ab         # ab.csv: 5177e31 (/tmp/pieces-48k) against build/,
#                                                          # RELAY and auto, equal/one-big/ramp cells, 4 rounds
#   python3 bench/runs/pieces/table.py bench/results/2026-11-25-pieces/X.csv BASE > X.md
#   bash bench/runs/pieces/run.sh osu        # osu-allgatherv-cluster8/: OSU 5.3's osu_allgatherv unmodified
#                                                          # (/tmp/osu, bench/balanced/osu.sh says how) on the cluster,
#                                                          # the head against 5177e31 (--old-lib), with and without the
#                                                          # model file, 3 rounds at -i 100
#   bash bench/runs/pieces/run.sh nap        # nap.csv: 86b9af0 against build/ (the static arrival-aware
#                                                          # path naps, as the planned and classic ones do), RELAY and
#                                                          # auto, one-big/ramp cells, 4 rounds
#   bash bench/runs/pieces/run.sh osushm     # osu-allgatherv-shm2/, osu-allgather-shm2/: the same at P = 2
#                                                          # on one node (no oversubscription), 31 rounds at -i 2000
#   bash bench/runs/pieces/run.sh stage      # stage.csv: 37a5db8 against build/ (the static arrival-
#                                                          # aware path packs on the planner's kept stage instead of a
#                                                          # fresh malloc per call), NATIVE, auto, RELAY, 4M unequal and
#                                                          # 1M cells, 3 rounds (about 25 min)
#   bash bench/runs/pieces/run.sh sweep [NAME] # NAME.csv, NAME.md, figures/NAME.png (NAME: sweep):
#                                                          # issue 23's sweep at the head, bench/runs/closing/run.sh
#                                                          # sweep into this folder (NATIVE, auto, RELAY, DIRECT; two
#                                                          # rounds; about 30 min); sweep: 86b9af0, sweep-stage: c9f6baa
# Needs root, build/ built, a quiet machine. Tears the emulated cluster down at the end.
SELF=$(readlink -f "$0")
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-pieces} # OUT: the output folder (default: the committed one)
MODEL=bench/results/2026-11-25-paced/model/cluster-p8.model
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
# build_at COMMIT: the minibench of COMMIT built in $V-COMMIT; prints that folder
build_at() {
  local d=$V-$1
  rm -rf "$d" && git clone -q . "$d" && git -C "$d" checkout -q "$1"
  cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$d/build" -j "$(nproc)" --target pat-minibench >/dev/null
  echo "$d"
}
case ${1:-} in
  variants)
    for p in 48:49152 28:28672 24:24576 16:16384 12:12288; do
      d=$V-${p%%:*}k
      rm -rf "$d" && git clone -q . "$d" && git -C "$d" checkout -q $BASE_COMMIT
      sed -i "s/#define PAT_RELAY_MAX_PIECE 49152/#define PAT_RELAY_MAX_PIECE ${p#*:}/" "$d/algorithms/algorithms.h"
      cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
      cmake --build "$d/build" -j "$(nproc)" --target pat-minibench pat_mpi >/dev/null
    done ;;
  sizes) run $R/sizes.csv 6 "512K/equalv/0 512K/equalv/50 512K/equalv/100 2M/equalv/0 2M/equalv/50 2M/equalv/100" \
           "main:$V-48k/build 24k:$V-24k/build 12k:$V-12k/build" relay ;;
  onemeg) run $R/onemeg.csv 8 "1M/equalv/50 1M/equalv/0 1M/equalv/100" "main:$V-48k/build 12k:$V-12k/build" relay ;;
  count) run $R/count.csv 6 "1M/equalv/0 1M/equalv/50" \
           "main:$V-48k/build 28k:$V-28k/build 24k:$V-24k/build 16k:$V-16k/build 12k:$V-12k/build" relay ;;
  ab) run $R/ab.csv 4 "1M/equalv/0 1M/equalv/50 1M/equalv/100 2M/equalv/50 1M/onebig/50 1M/onebig/100+size 1M/ramp/50 \
         4M/ramp/50 4M/onebig/50+size" "old:$V-48k/build new:build" relay,auto ;;
  stage)
    d=$(build_at 37a5db8)
    run $R/stage.csv 3 "4M/onebig/50 4M/onebig/100 4M/ramp/50 4M/ramp/100 4M/onebig/100+size 1M/onebig/50 1M/equalv/0" \
      "old:$d/build new:build" native,auto,relay ;;
  nap)
    d=$(build_at 86b9af0)
    run $R/nap.csv 4 "4M/onebig/50 4M/ramp/50 4M/onebig/100+size 4M/ramp/0 1M/onebig/50 1M/ramp/50" \
      "old:$d/build new:build" relay,auto ;;
  osu)
    rm -rf /tmp/pieces-osu
    bash bench/balanced/osu.sh --osu /tmp/osu/osu_allgatherv --out /tmp/pieces-osu --configs cluster8 --rounds 3 \
      --osu-args "-m 1:1048576 -i 100" --old-lib $V-48k/build/libpat_mpi.so --model-cluster $MODEL >/dev/null
    mkdir -p $R/osu-allgatherv-cluster8 && cp /tmp/pieces-osu/osu.csv /tmp/pieces-osu/table.md $R/osu-allgatherv-cluster8/ ;;
  osushm)
    for b in allgatherv allgather; do
      rm -rf /tmp/pieces-osu-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/pieces-osu-$b --configs shm2 --rounds 31 \
        --osu-args "-m 1:1048576 -i 2000" --old-lib $V-48k/build/libpat_mpi.so >/dev/null
      mkdir -p $R/osu-$b-shm2 && cp /tmp/pieces-osu-$b/osu.csv /tmp/pieces-osu-$b/table.md $R/osu-$b-shm2/
    done ;;
  sweep) OUT=$R bash bench/runs/closing/run.sh sweep "${2:-sweep}" ;;
  *) sed -n "2,/^# Needs root/p" "$SELF"; exit 2 ;;
esac
