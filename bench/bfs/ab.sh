#!/usr/bin/env bash
# graph500's BFS before and after a change: native, OLD_LIB and NEW_LIB (two libpat_mpi.so) under
# LD_PRELOAD, default settings (no model file), in interleaved rounds whose order rotates. One CSV row
# per run: round, variant (native, old, new), BFS mean and median time over the 64 roots.
#
#   G500=/path/graph500_mpi_replicated OLD_LIB=/tmp/oldlib/build/libpat_mpi.so OUT=DIR ROUNDS=8 \
#     bash bench/bfs/ab.sh
#
# The binary as bench/bfs/run.sh says; the emulated cluster of H hosts x K ranks at RATE. Needs root.
set -uo pipefail
cd "$(dirname "$0")/../.."
G500=${G500:?G500=path of graph500_mpi_replicated} OLD_LIB=${OLD_LIB:?OLD_LIB=another libpat_mpi.so}
OUT=${OUT:?OUT=folder}
NEW_LIB=${NEW_LIB:-$PWD/build/libpat_mpi.so}
SCALE=${SCALE:-20} ROUNDS=${ROUNDS:-8} H=${H:-8} K=${K:-1} RATE=${RATE:-500mbit} TIMEOUT=${TIMEOUT:-900}
CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
csv=$OUT/bfs-ab.csv
[ -s "$csv" ] || echo "round,variant,mean_time_s,median_time_s" >"$csv"
$CL down >/dev/null 2>&1
$CL up -n "$H" --ranks-per-host "$K" --rate "$RATE" >/dev/null || exit 1
trap '$CL down >/dev/null 2>&1' EXIT
variants=(native old new)
for round in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2; do
    v=${variants[$(((i + round) % 3))]}
    env=(-x OMP_NUM_THREADS=1 -x SKIP_VALIDATION=1)
    [ "$v" = old ] && env+=(-x "LD_PRELOAD=$OLD_LIB")
    [ "$v" = new ] && env+=(-x "LD_PRELOAD=$NEW_LIB")
    log=$OUT/run.log
    env -u LD_PRELOAD -u PAT_MODEL -u PAT_ALG $CL run --timeout "$TIMEOUT" --np-all "${env[@]}" "$G500" "$SCALE" \
      >"$log" 2>&1 || { echo "run failed: $log"; continue; }
    grep -q "Validation failed" "$log" && { echo "validation failed: $log"; exit 1; }
    echo "$round,$v,$(awk '/^mean_time:/ {print $2}' "$log"),$(awk '/^median_time:/ {print $2}' "$log")" >>"$csv"
  done
done
rm -f "$OUT/run.log"
python3 - "$csv" <<'PY'
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    by.setdefault(r["round"], {})[r["variant"]] = float(r["mean_time_s"])
for v in ("old", "new"):
    ratios = [b[v] / b["native"] for _, b in sorted(by.items()) if v in b and "native" in b]
    if ratios:
        print(f"{v}/native per round:", " ".join("%.3f" % x for x in ratios),
              "median %.3f over %d rounds" % (statistics.median(ratios), len(ratios)))
PY
