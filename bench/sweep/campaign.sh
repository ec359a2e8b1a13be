#!/usr/bin/env bash
# The measurements behind BENCHMARKS.md, in one place.
#
#   bench/sweep/campaign.sh shm        shared memory, P=4 (local ranks)
#   bench/sweep/campaign.sh cluster    emulated cluster, P=8 hosts (root; bench/cluster/pat-cluster)
#
# Each stage calibrates the cost model on the platform (pat-calibrate ->
# pat-fit -> a model file v2, with every algorithm's measured times and its
# fitted line, that PAT_MODEL then points at, so `auto` selects with it), runs the mini-benchmark sweep over N x maxDelay x every
# algorithm with traces, and compares the model with the measurements
# (compare_model.py).  Results: bench/results/<date>-<stage>-p<P>/, with a
# README.md that logs every command.
# Settings can be overridden from the environment (see below).  Needs an
# otherwise idle machine: the numbers mean little when other jobs share the
# cores (pat-minibench warns when compute phases end late).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${PAT_BUILD_DIR:-build}
STAGE=${1:?usage: bench/sweep/campaign.sh shm|cluster}
SIZES=${PAT_CAMPAIGN_SIZES:-128K,256K,512K,1M,2M}
DELAYS=${PAT_CAMPAIGN_DELAYS:-0,1,5,10,50,100}
ITERS=${PAT_CAMPAIGN_ITERS:-64}
BASE_MS=${PAT_CAMPAIGN_BASE_MS:-20}
# PAT_CAMPAIGN_CALIBRATE: pat-calibrate's options (default: every algorithm,
# native included, at 11 sizes from 2 B to 2 MiB, a factor of 4 apart: the
# sweep's blocks go up to 2 MiB at P=4 (N=2M floats), so the measured times
# need no extrapolation; at most 100 repetitions per point).
# PAT_CAMPAIGN_FIT_MIN_BYTES: fit only calibration sizes from this many bytes
# up (default 0: all; the model file's measured times keep every size).  One Hockney line does not fit 64 B and 2 MiB alike
# on the emulated network: the full fit made auto pick NEX on balanced
# arrivals (measured slower than RING/BRUCK); a fit from 32 KiB up picks RING
# there, but with its near-zero alpha (11 us) ARD, whose piece count q comes
# from alpha/tau, stalled 100-400 ms per call on the emulated network (cause
# not confirmed; TCP retransmissions were seen; BENCHMARKS.md).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

case "$STAGE" in
  shm) P=${PAT_CAMPAIGN_P:-4}; LAUNCH="mpirun -np {P} --oversubscribe --bind-to none -x PAT_MODEL" ;;
  cluster) P=${PAT_CAMPAIGN_P:-8}; LAUNCH="bench/cluster/pat-cluster run --timeout 3600 -x PAT_MODEL -np {P}" ;;
  *) echo "usage: bench/sweep/campaign.sh shm|cluster" >&2; exit 2 ;;
esac
OUT=${PAT_CAMPAIGN_OUT:-bench/results/$(date +%F)-$STAGE-p$P}
mkdir -p "$OUT"
# The folder's README.md logs every step as an indented (code) block: one
# "$ command" line per step, quoted so that it can be pasted into a shell,
# and "#" notes.
LOG="$OUT/README.md"
# shellcheck source=../shell_quote.sh
source bench/shell_quote.sh
note() { echo "    # $*" >>"$LOG"; }
run() { echo "    \$ $(quote "$@")" >>"$LOG"; echo "\$ $(quote "$@")"; "$@"; }

if [ ! -s "$LOG" ]; then
  cat >"$LOG" <<END
# Campaign $STAGE, P = $P

Made by \`bench/sweep/campaign.sh $STAGE\`: calibration (\`calibration.csv\`), fit
(\`fit.txt\`, the model \`$STAGE-p$P.model\`), the sweep (\`sweep/\`, with its own
README) and the model against the measurements (\`sweep/model-vs-measured.md\`).
The commands ran from the repository root, in this order (\`#\`: notes). The
sweep's \`raw/\` (per-launch logs and traces) is not committed
(\`bench/results/README.md\` says how to get it back).

END
fi
note "campaign $STAGE, started $(date -Is)"
note "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(mpirun --version | head -1)"

if [ "$STAGE" = cluster ]; then
  run bench/cluster/pat-cluster up -n "$P"
  trap 'bench/cluster/pat-cluster down >/dev/null 2>&1 || true' EXIT
fi

MODEL="$OUT/$STAGE-p$P.model"
if [ ! -s "$MODEL" ]; then
  # shellcheck disable=SC2086
  run env PAT_MODEL= ${LAUNCH//\{P\}/$P} "$BUILD/bench/calibrate/pat-calibrate" --out "$OUT/calibration.csv" \
    ${PAT_CAMPAIGN_CALIBRATE:---min-bytes 2 --max-bytes 2m --points 11 --max-reps 100}
  run "$BUILD/pat-fit" --in "$OUT/calibration.csv" --P "$P" --min-bytes "${PAT_CAMPAIGN_FIT_MIN_BYTES:-0}" \
    --out "$MODEL" | tee "$OUT/fit.txt"
fi

export PAT_MODEL=$(realpath "$MODEL")
note "PAT_MODEL=$PAT_MODEL is exported from here on"
run python3 bench/sweep/sweep.py --label "$STAGE-p$P" --P "$P" --N "$SIZES" --delays "$DELAYS" --algs all \
  --iters "$ITERS" --warmup 2 --base-ms "$BASE_MS" --compute sleep --trace --launcher "$LAUNCH" \
  --out "$OUT/sweep" --bench "$BUILD/bench/minibench/pat-minibench" --quiet
run python3 bench/sweep/compare_model.py --model "$MODEL" --results "$OUT/sweep" --pat-model "$BUILD/pat-model" \
  >/dev/null
note "finished $(date -Is)"
echo "campaign $STAGE: results in $OUT"
