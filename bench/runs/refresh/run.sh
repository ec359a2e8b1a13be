#!/usr/bin/env bash
# bench/results/2026-11-25-refresh: the guardrail refreshes a kept alternative (decide/guardrail.h): back to
# the static choice after 64, 128, ... 1024 calls, S measured anew, a new trial. Before (OLD, default
# /tmp/oldlib/build/libpat_mpi.so: aa2593f, `git worktree add /tmp/oldlib aa2593f` and build pat pat_mpi)
# and after, on the emulated cluster (P = 8, 500 Mbit/s) without a model file.
#   bash bench/runs/refresh/run.sh osu      # osu-cluster-allgather(v)/: OSU unmodified, 4-64 KiB,
#                                                        # -i 1000, 4 interleaved rounds (about 25 min)
#   bash bench/runs/refresh/run.sh report   # report.txt: what auto ran per size (PAT_REPORT), old and new
#   bash bench/runs/refresh/run.sh long     # long.csv, long.md: what the refreshes cost where the alternative
#                                                        # wins: 1M, maxDelay 50 ms, 200 calls, no model file, auto,
#                                                        # old and new alternating, 3 rounds (about 10 min)
# Needs root, build/ (cmake --build build), OSU's binaries at /tmp/osu (bench/balanced/osu.sh) and a quiet machine.
set -uo pipefail
cd "$(dirname "$0")/../../.."
R=${OUT:-bench/results/2026-11-25-refresh} # OUT: the output folder (default: the committed one)
OLD=${OLD:-/tmp/oldlib/build/libpat_mpi.so}
CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case ${1:-} in
  osu)
    for b in allgather allgatherv; do
      rm -rf /tmp/refresh-osu-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/refresh-osu-$b --configs cluster8 --rounds 4 \
        --old-lib "$OLD" --osu-args "-m 4096:65536 -i 1000" >/dev/null
      mkdir -p $R/osu-cluster-$b && cp /tmp/refresh-osu-$b/osu.csv /tmp/refresh-osu-$b/table.md $R/osu-cluster-$b/
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
      for v in old new; do
        [ $round = 2 ] && v=$([ $v = old ] && echo new || echo old) # alternate who goes first
        lib=$(dirname "$OLD")
        [ $v = new ] && lib=$PWD/build
        $CL run --timeout 900 -np 8 -x LD_LIBRARY_PATH=$lib build/bench/minibench/pat-minibench -N 1M --iters 200 \
          --warmup 3 --base-ms 20 --quiet --max-delay 50 --alg auto --csv $R/long.csv --label "$v/$round" 2>&1 |
          grep -v "^(\|^ r'\|libpat stats\|setpgid\|^$"
      done
    done
    $CL down
    python3 - $R/long.csv <<'PY' | tee $R/long.md
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
print("| library | round | auto ē ms | ē/ē_lb | ran |")
print("|---|---|---|---|---|")
for r in rows:
    v, k = r["label"].split("/")
    print(f"| {v} | {k} | {float(r['ebar_us']) / 1000:.1f} | {float(r['ebar_over_elb']):.3f} | {r['chosen']} |")
for v in ("old", "new"):
    e = [float(r["ebar_us"]) / 1000 for r in rows if r["label"].startswith(v + "/")]
    print(f"\n{v}: median ē {statistics.median(e):.1f} ms over {len(e)} launches")
PY
    ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
