#!/usr/bin/env bash
# Two builds of libpat, before (OLD) and after (build/), on the emulated cluster (P = 8, 500 Mbit/s)
# without a model file, into the folder OUT (required). From the repository root:
#   OUT=DIR bash bench/ab/cluster.sh osu      # DIR/osu-cluster-allgather(v)/: OSU unmodified, 4-64 KiB,
#                                             # -i 1000, 4 interleaved rounds (about 25 min)
#   OUT=DIR bash bench/ab/cluster.sh osufull  # DIR/osufull-cluster-allgather(v)/: the same, 1 B-1 MiB, -i 50,
#                                             # 3 interleaved rounds
#   OUT=DIR bash bench/ab/cluster.sh report   # DIR/report.txt: what auto ran per size (PAT_REPORT), old and new
#   OUT=DIR bash bench/ab/cluster.sh long     # DIR/long.csv, DIR/long.md: 1M floats, maxDelay in DELAYS
#                                             # (default "0 50"), 200 calls, no model file, auto, old and new
#                                             # alternating, 3 rounds (about 10 min per delay)
# OLD: the library before (default /tmp/oldlib/build/libpat_mpi.so: `git worktree add /tmp/oldlib COMMIT`,
# then build pat pat_mpi there). Needs root, build/ (cmake --build build), OSU's binaries at /tmp/osu
# (bench/balanced/osu.sh) and a quiet machine. It made 2026-11-25-promote (OLD at a68d942) and
# 2026-11-25-refresh (OLD at aa2593f, DELAYS=50; osu and report only, not osufull), both in git
# history (git show fd17eab:bench/results/2026-11-25-promote/).
set -uo pipefail
cd "$(dirname "$0")/../.."
[ -n "${OUT:-}" ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
R=$OUT
T=/tmp/ab-$(basename "$R")
OLD=${OLD:-/tmp/oldlib/build/libpat_mpi.so}
DELAYS=${DELAYS:-0 50}
CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$R"
case ${1:-} in
  osu | osufull)
    pre=osu rounds=4 args="-m 4096:65536 -i 1000"
    [ $1 = osufull ] && pre=osufull rounds=3 args="-m 1:1048576 -i 50"
    for b in allgather allgatherv; do
      rm -rf $T-$pre-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out $T-$pre-$b --configs cluster8 --rounds $rounds \
        --old-lib "$OLD" --osu-args "$args" >/dev/null
      mkdir -p $R/$pre-cluster-$b && cp $T-$pre-$b/osu.csv $T-$pre-$b/table.md $R/$pre-cluster-$b/
    done ;;
  report)
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit >/dev/null
    for v in old new; do
      lib=$OLD
      [ $v = new ] && lib=$PWD/build/libpat_mpi.so
      echo "== $v"
      $CL run --timeout 900 -np 8 -x LD_PRELOAD=$lib -x PAT_REPORT=1 /tmp/osu/osu_allgather -m 4096:65536 -i 1000 2>&1 |
        grep -E "^[0-9]|MPI_COMM_WORLD" | sed 's/   */  /g'
    done | tee $R/report.txt
    $CL down ;;
  long)
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit >/dev/null
    rm -f $R/long.csv
    for round in 1 2 3; do
      for d in $DELAYS; do
        for v in old new; do
          [ $round = 2 ] && v=$([ $v = old ] && echo new || echo old) # alternate who goes first
          lib=$(dirname "$OLD")
          [ $v = new ] && lib=$PWD/build
          $CL run --timeout 900 -np 8 -x LD_LIBRARY_PATH=$lib build/bench/minibench/pat-minibench -N 1M --iters 200 \
            --warmup 3 --base-ms 20 --quiet --max-delay $d --alg auto --csv $R/long.csv --label "$v/$round/$d" 2>&1 |
            grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
        done
      done
    done
    $CL down
    python3 bench/ab/long_table.py $R/long.csv | tee $R/long.md ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
