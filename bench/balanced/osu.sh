#!/usr/bin/env bash
# bench/balanced/osu.sh: a standard, unmodified micro-benchmark (OSU's
# osu_allgather or osu_allgatherv; osu_iallgather: osu_iallgather.sh) through libpat's drop-in against the MPI
# library's own, interleaved, in the configurations of the never-slower target.
#
#   bench/balanced/osu.sh --osu PATH --out DIR [options]
#
# OSU's micro-benchmarks are not a Debian package and are not part of libpat:
# build them yourself from their release (for example
#   mpicc -O2 -I mpi/collective mpi/collective/osu_allgather.c mpi/collective/osu_coll.c -o osu_allgather
# in an unpacked osu-micro-benchmarks 5.x tree) and pass the binary.  Nothing in
# it is changed: each run is the same binary, once plain and once with
# LD_PRELOAD=libpat_mpi.so (and once more with PAT_MODEL=FILE when a model is given).
#
# Configurations (--configs, default shm2,shm4):
#   shm2      shared memory, P = 2 (one rank per core, nothing oversubscribed; OSU_BIND=none
#             where the launcher may not bind, as on the 16-core machine)
#   shm4      shared memory, P = 4 (--oversubscribe)
#   cluster8  the emulated cluster, P = 8 hosts (bench/cluster/pat-cluster up/run/down)
# Options:
#   --out DIR          results folder (created; required)
#   --rounds R         interleaved rounds (default 3): per round native, preload, preload+model
#   --lib PATH         libpat_mpi.so (default $PAT_BUILD_DIR/libpat_mpi.so)
#   --old-lib PATH     another libpat_mpi.so (e.g. the landed one) run as variant "old",
#                      interleaved with the others: before and after in one run; with a
#                      model file also as "oldlibmodel" (that library with the model)
#   --model-shm F      model file for the shared-memory configurations (adds the +model column)
#   --model-cluster F  model file for cluster8
#   --old-model F      another model file, run as variant "oldmodel" with --lib (e.g.
#                      the model before a recalibration): before and after in one run
#   --osu-args "..."   passed to OSU (default "-m 1:1048576 -i 1000"; OSU lowers the
#                      iterations above 8 KiB to 100 unless -i is given... it uses -i for all)
#   --env "K=V ..."    extra environment for the preloaded runs (e.g. PAT_THREAD=0)
#   --timeout S        limit of one run (default 900 s)
# Writes DIR/raw/<config>-<variant>-<round>.txt, DIR/osu.csv (one row per
# config, variant, round and size) and DIR/table.md (osu_table.py: medians,
# ratio libpat/native per size, geometric mean and worst size).
set -uo pipefail
REPO=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
BUILD=${PAT_BUILD_DIR:-$REPO/build}
CLUSTER=$REPO/bench/cluster/pat-cluster
OSU="" OUT="" ROUNDS=3 LIB=$BUILD/libpat_mpi.so OLD_LIB="" MODEL_SHM="" MODEL_CLUSTER="" OLD_MODEL=""
CONFIGS=shm2,shm4 OSU_ARGS="-m 1:1048576 -i 1000" EXTRA_ENV="" TIMEOUT=900

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "osu.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --osu) OSU=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    --rounds) ROUNDS=${2:?}; shift 2 ;;
    --lib) LIB=${2:?}; shift 2 ;;
    --old-lib) OLD_LIB=${2:?}; shift 2 ;;
    --model-shm) MODEL_SHM=${2:?}; shift 2 ;;
    --model-cluster) MODEL_CLUSTER=${2:?}; shift 2 ;;
    --old-model) OLD_MODEL=${2:?}; shift 2 ;;
    --configs) CONFIGS=${2:?}; shift 2 ;;
    --osu-args) OSU_ARGS=${2:?}; shift 2 ;;
    --env) EXTRA_ENV=${2:?}; shift 2 ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
[ -n "$OSU" ] && [ -x "$OSU" ] || die "--osu PATH: an OSU binary (osu_allgather, osu_allgatherv; osu_iallgather through osu_iallgather.sh) is required"
[ -n "$OUT" ] || die "--out DIR is required"
[ -r "$LIB" ] || die "no library $LIB (build first, or --lib)"
OSU=$(readlink -f "$OSU") LIB=$(readlink -f "$LIB")
[ -n "$OLD_LIB" ] && OLD_LIB=$(readlink -f "$OLD_LIB")
mkdir -p "$OUT/raw" || die "cannot create $OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cluster_up=0
cleanup() { [ $cluster_up = 1 ] && "$CLUSTER" down >/dev/null 2>&1; cluster_up=0; }
trap cleanup EXIT INT TERM HUP

# launcher words of a configuration
launcher() {
  case $1 in
    shm2) echo "mpirun -np 2 --bind-to ${OSU_BIND:-core}" ;;
    shm4) echo "mpirun -np 4 --oversubscribe --bind-to none" ;;
    cluster8) echo "$CLUSTER run --timeout $TIMEOUT" ;;
  esac
}
model_of() { case $1 in cluster8) echo "$MODEL_CLUSTER" ;; *) echo "$MODEL_SHM" ;; esac; }

run_one() { # config variant round
  local cfg=$1 var=$2 round=$3 words=() model
  read -r -a words <<<"$(launcher "$cfg")"
  case $var in
    native) ;;
    preload) words+=(-x "LD_PRELOAD=$LIB") ;;
    old) words+=(-x "LD_PRELOAD=$OLD_LIB") ;;
    model) model=$(model_of "$cfg"); words+=(-x "LD_PRELOAD=$LIB" -x "PAT_MODEL=$model") ;;
    oldmodel) words+=(-x "LD_PRELOAD=$LIB" -x "PAT_MODEL=$OLD_MODEL") ;;
    oldlibmodel) model=$(model_of "$cfg"); words+=(-x "LD_PRELOAD=$OLD_LIB" -x "PAT_MODEL=$model") ;;
  esac
  if [ "$var" != native ]; then for kv in $EXTRA_ENV; do words+=(-x "$kv"); done; fi
  local f="$OUT/raw/$cfg-$var-$round.txt"
  echo "# $(date -u +%FT%TZ) ${words[*]} $OSU $OSU_ARGS" >"$f"
  # shellcheck disable=SC2086
  env -u LD_PRELOAD -u PAT_MODEL -u PAT_ALG timeout "$TIMEOUT" "${words[@]}" "$OSU" $OSU_ARGS >>"$f" 2>&1
  local rc=$?
  echo "osu.sh: $cfg $var round $round: exit $rc"
  return $rc
}

status=0
IFS=, read -r -a cfgs <<<"$CONFIGS"
for cfg in "${cfgs[@]}"; do
  case $cfg in shm2|shm4|cluster8) ;; *) die "unknown configuration $cfg" ;; esac
  variants=(native preload)
  [ -n "$(model_of "$cfg")" ] && variants+=(model)
  [ -n "$OLD_LIB" ] && variants+=(old)
  [ -n "$OLD_LIB" ] && [ -n "$(model_of "$cfg")" ] && variants+=(oldlibmodel)
  [ -n "$OLD_MODEL" ] && variants+=(oldmodel)
  if [ "$cfg" = cluster8 ]; then
    "$CLUSTER" up -n 8 >/dev/null || { echo "osu.sh: cluster unavailable, $cfg skipped"; continue; }
    cluster_up=1
  fi
  for round in $(seq 1 "$ROUNDS"); do
    # rotate the order each round so no variant always runs first
    for ((k = 0; k < ${#variants[@]}; k++)); do
      v=${variants[$(((k + round - 1) % ${#variants[@]}))]}
      run_one "$cfg" "$v" "$round" || status=1
    done
  done
  [ "$cfg" = cluster8 ] && cleanup
done
python3 "$REPO/bench/balanced/osu_table.py" "$OUT" | tee "$OUT/table.md"
exit $status
