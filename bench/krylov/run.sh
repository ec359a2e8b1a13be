#!/usr/bin/env bash
# An unmodified third-party Krylov solver under the drop-in: PETSc's KSP tutorial ex2 (a 2D Laplacian
# on an M x M grid, solved for a fixed number of iterations; Debian's libpetsc3.18-dev-examples) on
# the emulated cluster, native against LD_PRELOAD=libpat_mpi.so, default settings (no model file),
# interleaved pairs whose order alternates.  Its time goes to MPI_Allreduce: CG takes 3 of 8 bytes an
# iteration (two dot products and a norm), pipelined CG (pipecg) 1 MPI_Iallreduce of 24 bytes,
# beside a halo exchange of M doubles with each neighbour.  One CSV row per run: pair, variant, ksp,
# P, KSPSolve's time (-log_view, slowest rank).
#
#   OUT=DIR PAIRS=5 H=8 K=1 RATE=200mbit M=200 ITS=1000 KSPS="cg pipecg" bash bench/krylov/run.sh
#
# Needs libpetsc-real3.18-dev and libpetsc3.18-dev-examples (apt-get install), root and build/;
# the program is built here from the installed example, unmodified, into OUT/ex2 (not committed).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=folder}
PAIRS=${PAIRS:-5} H=${H:-8} K=${K:-1} RATE=${RATE:-200mbit} M=${M:-200} ITS=${ITS:-1000} KSPS=${KSPS:-cg pipecg}
TIMEOUT=${TIMEOUT:-300} MAP=${MAP:-}
SRC=${SRC:-/usr/share/petsc/3.18/share/petsc/examples/src/ksp/ksp/tutorials/ex2.c}
CL=bench/cluster/pat-cluster
LIB=${LIB:-$PWD/build/libpat_mpi.so}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patc}
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "krylov: $SRC not found (apt-get install libpetsc3.18-dev-examples)" >&2; exit 2; }
mpicc -O2 "$SRC" $(pkg-config --cflags --libs PETSc) -o "$OUT/ex2" || exit 2
csv=$OUT/krylov.csv
[ -s "$csv" ] || echo "pair,variant,ksp,P,M,its,solve_s" >"$csv"
$CL down >/dev/null 2>&1
$CL up -n "$H" --ranks-per-host "$K" --rate "$RATE" >/dev/null || exit 1
trap '$CL down >/dev/null 2>&1' EXIT

run() { # variant pair ksp
  local variant=$1 pair=$2 ksp=$3 log env=()
  log=$OUT/run-$pair-$variant-$ksp.log
  [ "$variant" = preload ] && env+=(-x "LD_PRELOAD=$LIB")
  env -u LD_PRELOAD -u PAT_MODEL -u PAT_ALG $CL run --timeout "$TIMEOUT" ${MAP:+--map-by "$MAP"} --np-all "${env[@]}" \
    "$OUT/ex2" -m "$M" -n "$M" -ksp_type "$ksp" -pc_type jacobi -ksp_max_it "$ITS" -ksp_rtol 1e-30 -ksp_atol 1e-50 \
    -log_view >"$log" 2>&1
  local rc=$? t its
  t=$(awk '$1 == "KSPSolve" {print $4}' "$log")
  its=$(awk '/^Norm of error/ {print $NF}' "$log")
  [ $rc -eq 0 ] && [ -n "$t" ] || { echo "run failed ($rc): $log"; return; }
  echo "$pair,$variant,$ksp,$((H * K)),$M,$its,$t" >>"$csv"
  echo "pair $pair $ksp $variant: KSPSolve $t s ($its iterations)"
  rm -f "$log"
}

for pair in $(seq 1 "$PAIRS"); do
  for ksp in $KSPS; do
    if [ $((pair % 2)) = 1 ]; then run native "$pair" "$ksp"; run preload "$pair" "$ksp"
    else run preload "$pair" "$ksp"; run native "$pair" "$ksp"; fi
  done
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for ksp in sorted({r["ksp"] for r in rows}):
    by = {}
    for r in rows:
        if r["ksp"] == ksp:
            by.setdefault(r["pair"], {})[r["variant"]] = float(r["solve_s"])
    ratios = sorted(v["preload"] / v["native"] for v in by.values() if len(v) == 2)
    nat = statistics.median(v["native"] for v in by.values() if "native" in v)
    pre = statistics.median(v["preload"] for v in by.values() if "preload" in v)
    print(f"{ksp}: KSPSolve median native {nat:.4f} s, drop-in {pre:.4f} s; drop-in / native per pair "
          f"median {statistics.median(ratios):.3f} (min {ratios[0]:.3f}, max {ratios[-1]:.3f}, {len(ratios)} pairs)")
PY
