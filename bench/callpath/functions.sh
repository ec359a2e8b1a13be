#!/usr/bin/env bash
# How much of libpat a blocking all-gather runs: 40 MPI_Allgathers of
# 64 KiB at P = 2 through the linked drop-in (libpat_mpi), under callgrind.
# Prints, for rank 0: the distinct libpat functions the whole run executed
# (every thread; those of the decision engine, pat_engine_*, apart), and the
# walk of the calls: the distinct libpat functions and source files run
# inside its 20th MPI_Allgather by the application's thread (callgrind's
# --toggle-collect and --dump-after; the background thread's work is not in it).
#
#   bash bench/callpath/functions.sh [BUILD_DIR] [PAT_ALG]     (default build, relay)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}") alg=${2:-relay}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpicc -O2 -g bench/callpath/allgather_loop.c -o "$out/loop" -L"$build" -Wl,-rpath,"$build" -lpat_mpi -lpat
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_ALG=$alg
src=$(pwd)
# libpat's functions: those whose file lies in the source tree
count() { # callgrind file, [thread filter] -> "functions files engine"
  callgrind_annotate --threshold=100 --inclusive=no "$1" 2>/dev/null |
    awk -v src="$src/" '/^ *[0-9,]+ .*:/ && !/ (=>|<) / && index($0, src) {sub(/^ *[0-9,]+ +(\([^)]*\) +)?/, ""); print}' |
    sed -E 's/ \[[^]]*\]$//' | sort -u > "$1.fns"
  local fns files engine
  fns=$(wc -l < "$1.fns")
  files=$(sed -E 's/:.*//' "$1.fns" | sort -u | wc -l)
  engine=$(grep -c ':pat_engine_' "$1.fns" || true)
  echo "$fns $files $engine"
}
mpirun --oversubscribe -np 2 valgrind --tool=callgrind --callgrind-out-file="$out/all.%q{OMPI_COMM_WORLD_RANK}" \
  "$out/loop" 40 65536 2> "$out/all.log" >/dev/null
# one dump per call (callgrind numbers them from 1): the walk of call 20
mpirun --oversubscribe -np 2 valgrind --tool=callgrind --toggle-collect='MPI_Allgather' --dump-after='MPI_Allgather' \
  --callgrind-out-file="$out/walk.%q{OMPI_COMM_WORLD_RANK}" "$out/loop" 40 65536 2> "$out/walk.log" >/dev/null
walk=$(ls "$out"/walk.0.20* 2>/dev/null | head -1)
read -r fns files engine < <(count "$out/all.0")
echo "PAT_ALG=$alg build=$build: whole run, rank 0: $fns libpat functions in $files files, $engine of them pat_engine_*"
read -r fns files engine < <(count "$walk")
echo "PAT_ALG=$alg build=$build: the 20th MPI_Allgather, rank 0's thread: $fns libpat functions in $files files, $engine of them pat_engine_*"
[ -n "${KEEP:-}" ] && cp "$out"/*.fns "$KEEP"/ || true
