#!/usr/bin/env bash
# Persistent all-gathers on the emulated cluster (P = 8, 500 Mbit/s): per cell (N x maxDelay, no
# compute after the start) one launch each of MPI's own non-blocking all-gather per start (native,
# the baseline) and libpat's persistent RELAY (PAT_ALG=relay) from this build and, with
# OLD_MB=another pat-minibench, from that one, and with AUTO=1 auto (PAT_ALG=auto; with OLD_MB too,
# that build's auto as old-auto); the
# launches of a cell rotated from round to round.
# Rows to OUT/persistent.csv (label round/N/delay/variant), then OUT/persistent.md: the median e-bar
# per cell and variant, e/e_lb (the persistent bound), and each variant over native paired by round
# (FORM=overlap: overlap.csv and overlap.md).
#   OUT=bench/results/DATE/persistent ROUNDS=3 SIZES="1M 4M" DELAYS="0 10 50 100" \
#     OLD_MB=/tmp/old/build/bench/minibench/pat-minibench bash bench/nbc/persistent_ab.sh
# FORM=overlap runs the same variants as non-blocking calls instead (post, wait: --overlap 0), relay and
# auto being PAT_Iallgather's: what a change to the queue costs the non-blocking form, before and after.
# Needs root and build/ (cmake --build build); tears its cluster down at the end.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?OUT=folder}
ROUNDS=${ROUNDS:-3} SIZES=${SIZES:-1M 4M} DELAYS=${DELAYS:-0 10 50 100} ITERS=${ITERS:-10}
MB=${MB:-build/bench/minibench/pat-minibench} OLD_MB=${OLD_MB:-}
case ${FORM:=persistent} in
  persistent) form=--persistent ;;
  overlap) form= ;;
  *) echo "FORM: persistent or overlap"; exit 2 ;;
esac
CL=bench/cluster/pat-cluster
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAT_CLUSTER_PREFIX=${PAT_CLUSTER_PREFIX:-patp}
mkdir -p "$OUT"
csv=$OUT/$FORM.csv
$CL down >/dev/null 2>&1
$CL up -n 8 --rate 500mbit >/dev/null || exit 1
trap '$CL down >/dev/null 2>&1' EXIT
variants=(native new)
[ -n "$OLD_MB" ] && variants+=(old)
[ "${AUTO:-0}" = 1 ] && variants+=(auto)
[ "${AUTO:-0}" = 1 ] && [ -n "$OLD_MB" ] && variants+=(old-auto)
for round in $(seq 1 "$ROUNDS"); do
  for n in $SIZES; do
    for d in $DELAYS; do
      for i in $(seq 0 $((${#variants[@]} - 1))); do
        v=${variants[$(((i + round) % ${#variants[@]}))]}
        mb=$MB alg=relay setting=ring
        [ "$v" = native ] && alg=native
        [ "$v" = old ] && mb=$OLD_MB
        [ "$v" = auto ] && alg=auto setting=auto
        [ "$v" = old-auto ] && mb=$OLD_MB alg=auto setting=auto
        # PAT_ALG=ring at the launch starts the background thread (so does auto, off one node); the
        # call's own setting is --alg
        $CL run --timeout 300 -np 8 -x PAT_ALG=$setting "$mb" -N "$n" --iters "$ITERS" --warmup 2 --base-ms 20 \
          --max-delay "$d" --order blocked $form --overlap 0 --alg "$alg" --quiet --flat-iters 0 \
          --csv "$csv" --label "$round/$n/$d/$v" >/dev/null 2>&1 || echo "launch failed: $round/$n/$d/$v"
      done
    done
  done
  echo "round $round done $(date -u +%T)"
done
python3 bench/nbc/persistent_summary.py "$csv" --dat "$OUT/ratios.dat" >"$OUT/$FORM.md"
cat "$OUT/$FORM.md"
