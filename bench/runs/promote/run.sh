#!/usr/bin/env bash
# bench/results/2026-11-25-promote: auto promotes a classic algorithm the exchange mode kept running, measured
# 10% cheaper than the static choice, to the site's static choice (decide/engine.h, Promotion). Before (OLD, default
# /tmp/oldlib/build/libpat_mpi.so: a68d942, `git worktree add /tmp/oldlib a68d942` and build pat pat_mpi)
# and after, on the emulated cluster (P = 8, 500 Mbit/s) without a model file.
#   bash bench/runs/promote/run.sh osu      # osu-cluster-allgather(v)/: OSU unmodified, 4-64 KiB,
#                                                        # -i 1000, 4 interleaved rounds (about 25 min)
#   bash bench/runs/promote/run.sh osufull  # osufull-cluster-allgather(v)/: the same, 1 B-1 MiB, -i 50,
#                                                        # 3 interleaved rounds (as 2026-11-25-nomodel)
#   bash bench/runs/promote/run.sh report   # report.txt: what auto ran per size (PAT_REPORT), old and new
#   bash bench/runs/promote/run.sh long     # long.csv, long.md: 1M floats, maxDelay 0 and 50 ms, 200 calls,
#                                                        # no model file, auto, old and new alternating, 3 rounds (about 20 min)
# Needs root, build/ (cmake --build build), OSU's binaries at /tmp/osu (bench/balanced/osu.sh) and a quiet machine.
set -uo pipefail
cd "$(dirname "$0")/../../.."
R=${OUT:-bench/results/2026-11-25-promote} # OUT: the output folder (default: the committed one)
OLD=${OLD:-/tmp/oldlib/build/libpat_mpi.so}
CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case ${1:-} in
  osu)
    for b in allgather allgatherv; do
      rm -rf /tmp/promote-osu-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/promote-osu-$b --configs cluster8 --rounds 4 \
        --old-lib "$OLD" --osu-args "-m 4096:65536 -i 1000" >/dev/null
      mkdir -p $R/osu-cluster-$b && cp /tmp/promote-osu-$b/osu.csv /tmp/promote-osu-$b/table.md $R/osu-cluster-$b/
    done ;;
  osufull)
    for b in allgather allgatherv; do
      rm -rf /tmp/promote-osufull-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/promote-osufull-$b --configs cluster8 --rounds 3 \
        --old-lib "$OLD" --osu-args "-m 1:1048576 -i 50" >/dev/null
      mkdir -p $R/osufull-cluster-$b && cp /tmp/promote-osufull-$b/osu.csv /tmp/promote-osufull-$b/table.md $R/osufull-cluster-$b/
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
      for d in 0 50; do
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
    python3 - $R/long.csv <<'PY' | tee $R/long.md
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
print("| library | round | maxDelay | auto ē ms | ē/ē_lb | ran |")
print("|---|---|---|---|---|---|")
for r in rows:
    v, k, d = r["label"].split("/")
    print(f"| {v} | {k} | {d} | {float(r['ebar_us']) / 1000:.1f} | {float(r['ebar_over_elb']):.3f} | {r['chosen']} |")
for d in ("0", "50"):
    for v in ("old", "new"):
        e = [float(r["ebar_us"]) / 1000 for r in rows if r["label"].startswith(v + "/") and r["label"].endswith("/" + d)]
        print(f"\nmaxDelay {d} ms, {v}: median ē {statistics.median(e):.1f} ms over {len(e)} launches")
PY
    ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
