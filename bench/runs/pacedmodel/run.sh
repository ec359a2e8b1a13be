#!/usr/bin/env bash
# bench/results/2026-11-25-pacedmodel: the replay that paces forwards as the executor does (df215cb)
# against the commit before (e740009), in alternating launches on the emulated cluster (P = 8,
# 500 Mbit/s) with one minibench binary and the library swapped with LD_LIBRARY_PATH; the
# 2026-11-25-paced cluster model (link line: pacing on, in the executor both times and in the replay
# after). N in {1M, 4M} floats x counts in {equalv, onebig, ramp} x maxDelay in {0, 50, 100} ms,
# blocked order, 12 calls, NATIVE, auto and RELAY in each launch.
#   bash bench/runs/pacedmodel/run.sh sweep   # sweep.csv, sweep.md (about 20 min)
#   bash bench/runs/pacedmodel/run.sh osu     # osu-allgatherv/, osu-allgather/: OSU unmodified at P = 2 on
#                                                            # shared memory, native, OLD's libpat_mpi.so and build/'s, 7 rounds
#                                                            # (OSU binaries at /tmp/osu: bench/balanced/osu.sh says how)
#   bash bench/runs/pacedmodel/run.sh random  # random.md: arrivals no one can predict (random per call, no
#                                                            # instrumentation), 1M, equal and one-4x blocks, with and without
#                                                            # the model file, auto against native, OLD and build/
#   bash bench/runs/pacedmodel/run.sh keep    # kept calls decide without replays: keep.csv (about 5 min;
#                                                            # OLD: e740009 as for sweep, so both changes are in it)
# Needs root, build/ (cmake --build build), a quiet machine, and the library of the commit before
# (OLD=its build dir, default /tmp/head/build:
#   git worktree add /tmp/head e740009 && cmake -S /tmp/head -B /tmp/head/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/head/build --target pat).
# Tears the emulated cluster down at the end.
source "$(dirname "$0")/../common.sh" # bench/runs/common.sh: set -uo pipefail, the repository root, mpirun as root, CL, MB, quiet
R=${OUT:-bench/results/2026-11-25-pacedmodel} # OUT: the output folder (default: the committed one)
H=bench/runs/pacedmodel # this script's helpers
MODEL=bench/results/2026-11-25-paced/model/cluster-p8.model
OLD=${OLD:-/tmp/head/build}
cell() { # lib which N counts delay
  $CL run --timeout 900 -np 8 -x PAT_MODEL=$MODEL -x LD_LIBRARY_PATH=$1 $MB -N $3 --iters 12 --warmup 3 \
    --base-ms 20 --quiet --max-delay $5 --order blocked --counts $4 --alg native,auto,relay --csv $R/sweep.csv \
    --label "$2/$4/$5" 2>&1 | quiet
}
case ${1:-} in
  sweep)
    rm -f $R/sweep.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    i=0
    for N in 1M 4M; do
      for counts in equalv onebig ramp; do
        for d in 0 50 100; do
          echo "== N=$N counts=$counts delay=$d"
          if [ $((i++ % 2)) = 0 ]; then # alternate which library goes first
            cell $OLD old $N $counts $d
            cell build new $N $counts $d
          else
            cell build new $N $counts $d
            cell $OLD old $N $counts $d
          fi
        done
      done
    done > /tmp/pacedmodel-sweep.log
    $CL down
    python3 $H/table.py $R/sweep.csv > $R/sweep.md
    ;;
  osu)
    for b in allgatherv allgather; do
      rm -rf /tmp/pacedmodel-osu-$b
      bash bench/balanced/osu.sh --osu /tmp/osu/osu_$b --out /tmp/pacedmodel-osu-$b --configs shm2 --rounds 7 \
        --osu-args "-m 1:1048576 -i 1000" --old-lib $OLD/libpat_mpi.so >/dev/null
      mkdir -p $R/osu-$b && cp /tmp/pacedmodel-osu-$b/osu.csv /tmp/pacedmodel-osu-$b/table.md $R/osu-$b/
    done ;;
  random)
    rm -f /tmp/pacedmodel-random-*.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for counts in equalv onebig; do
      for model in none $MODEL; do
        for lib in $OLD build; do
          tag=$([ $lib = build ] && echo new || echo old)-$([ $model = none ] && echo nomodel || echo model)
          mx=()
          [ $model != none ] && mx=(-x PAT_MODEL=$model)
          $CL run --timeout 900 -np 8 "${mx[@]}" -x LD_LIBRARY_PATH=$lib $MB --instrument none --alg native,auto \
            --iters 60 --warmup 4 --base-ms 10 --max-delay 20 -N 1M --counts $counts --order blocked --quiet \
            --csv /tmp/pacedmodel-random-$tag.csv --label $counts 2>&1 | quiet
        done
      done
    done > /tmp/pacedmodel-random.log
    $CL down
    python3 - > $R/random.md <<'PY'
import csv, glob
print("| library | model file | blocks | native ē ms | auto ē ms (ran) | auto / native |")
print("|---|---|---|---|---|---|")
for f in sorted(glob.glob("/tmp/pacedmodel-random-*.csv")):
    lib, model = f[len("/tmp/pacedmodel-random-"):-4].split("-")
    rows = {}
    for r in csv.DictReader(open(f)):
        rows[(r["label"], r["alg"])] = r
    for counts in ("equalv", "onebig"):
        n, a = rows.get((counts, "native")), rows.get((counts, "auto"))
        if not n or not a:
            continue
        en, ea = float(n["ebar_us"]) / 1e3, float(a["ebar_us"]) / 1e3
        print(f"| {lib} | {model} | {counts} | {en:.1f} | {ea:.1f} ({a['chosen']}) | {ea / en:.3f} |")
PY
    ;;
  keep)
    rm -f $R/keep.csv
    $CL down >/dev/null 2>&1
    $CL up -n 8 --rate 500mbit
    for N in 1M 4M; do
      for round in 1 2; do
        for lib in $OLD build; do
          which=new
          [ $lib = $OLD ] && which=old
          $CL run --timeout 300 -np 8 -x PAT_REPORT=1 -x LD_LIBRARY_PATH=$lib -x PAT_MODEL=$MODEL $MB -N $N --iters 20 \
            --warmup 3 --base-ms 20 --quiet --max-delay 100 --order blocked --counts onebig --alg auto --csv $R/keep.csv \
            --label "$which/$N/$round" 2>&1 | grep -E "^auto |guard:"
        done
      done
    done
    $CL down
    ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
