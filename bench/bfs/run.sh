#!/usr/bin/env bash
# An unmodified third-party code under the drop-in: graph500's replicated BFS (mpi/bfs_replicated.c,
# two MPI_Allgather per level, sizes and arrivals set by the graph) on the emulated cluster, native
# against LD_PRELOAD=libpat_mpi.so, default settings (no model file), interleaved pairs whose order
# alternates. One CSV row per run: pair, variant, BFS mean and median time over the 64 roots.
#
#   G500=/path/graph500_mpi_replicated OUT=bench/results/DATE-bfs SCALE=20 PAIRS=5 H=8 RATE=500mbit \
#     bash bench/bfs/run.sh
#
# The binary is built outside the repository from graph500's release (git archive of
# github.com/graph500/graph500 master; `make graph500_mpi_replicated` in mpi/), never committed.
# Validation is skipped in the timed runs (SKIP_VALIDATION=1); VALIDATE=1 adds one validated run
# under the drop-in first, whose "Validation failed" would stop the script. Needs root and build/.
set -uo pipefail
cd "$(dirname "$0")/../.."
G500=${G500:?G500=path of graph500_mpi_replicated}
OUT=${OUT:?OUT=folder}
SCALE=${SCALE:-20} PAIRS=${PAIRS:-5} H=${H:-8} K=${K:-1} RATE=${RATE:-500mbit} TIMEOUT=${TIMEOUT:-900}
CL=bench/cluster/pat-cluster
LIB=${LIB:-$PWD/build/libpat_mpi.so} # LIB=another libpat_mpi.so (e.g. the landed one) for a before/after
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
csv=$OUT/bfs.csv
[ -s "$csv" ] || echo "pair,variant,scale,P,mean_time_s,median_time_s,harmonic_mean_teps" >"$csv"
$CL down >/dev/null 2>&1
$CL up -n "$H" --ranks-per-host "$K" --rate "$RATE" || exit 1
trap '$CL down >/dev/null 2>&1' EXIT

run() { # variant pair [extra env words]
  local variant=$1 pair=$2 log
  shift 2
  log=$OUT/run-$pair-$variant.log
  local env=(-x OMP_NUM_THREADS=1 "$@")
  [ "$variant" = preload ] && env+=(-x "LD_PRELOAD=$LIB")
  echo "== pair $pair $variant $(date +%T)"
  env -u LD_PRELOAD -u PAT_MODEL -u PAT_ALG $CL run --timeout "$TIMEOUT" --np-all "${env[@]}" "$G500" "$SCALE" >"$log" 2>&1
  local rc=$?
  grep -q "Validation failed" "$log" && { echo "validation failed: $log"; exit 1; }
  [ $rc -eq 0 ] || { echo "run failed ($rc): $log"; return; }
  local mean median teps
  mean=$(awk '/^mean_time:/ {print $2}' "$log")
  median=$(awk '/^median_time:/ {print $2}' "$log")
  teps=$(awk '/^harmonic_mean_TEPS:/ {print $2}' "$log")
  echo "$pair,$variant,$SCALE,$((H * K)),$mean,$median,${teps:-}" >>"$csv"
  echo "   mean BFS time $mean s"
}

[ "${VALIDATE:-0}" = 1 ] && run preload 0
for pair in $(seq 1 "$PAIRS"); do
  if [ $((pair % 2)) = 1 ]; then run native "$pair" -x SKIP_VALIDATION=1; run preload "$pair" -x SKIP_VALIDATION=1
  else run preload "$pair" -x SKIP_VALIDATION=1; run native "$pair" -x SKIP_VALIDATION=1; fi
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    if r["pair"] != "0" and r["mean_time_s"]:
        by.setdefault(r["pair"], {})[r["variant"]] = float(r["mean_time_s"])
ratios = [v["preload"] / v["native"] for v in by.values() if "preload" in v and "native" in v]
if ratios:
    print("preload/native mean BFS time per pair:", " ".join("%.3f" % x for x in ratios))
    print("median %.3f over %d pairs" % (statistics.median(ratios), len(ratios)))
PY
