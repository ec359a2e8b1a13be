#!/usr/bin/env bash
# The measurements behind the choices in ../README.md ("What the settings are
# and why"): each setting changed alone from the defaults, at the rates where
# it matters.  Writes one log per variant next to this script.
#   bench/cluster/validation/ablations.sh [DATE-TAG [VARIANT...]]
# Before each repeat it waits for an idle machine (WAIT_IDLE, default 85:300,
# see validate --wait-idle).
# Variants: defaults no-yield nice10 gso64k gso8k gso1514 burst1pkt nicq2ms switchq5ms
set -uo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
V=$HERE/../validate
TAG=${1:-$(date +%F)}
shift || true
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(defaults no-yield nice10 gso64k gso8k gso1514 burst1pkt nicq2ms switchq5ms)

# run NAME [ENV=VALUE...] -- validate options [-- pat-cluster up options]
run() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "--- $name: ${envs[*]} validate --log $TAG-ablation-$name.txt $*"
  env "${envs[@]}" "$V" --wait-idle "${WAIT_IDLE:-85:300}" --log "$HERE/$TAG-ablation-$name.txt" "$@" | sed -n "/=== summary/,\$p"
}

for v in "${variants[@]}"; do
  case $v in
    defaults)   run defaults -- --rates "1gbit 500mbit 100mbit" --repeat 2 ;;
    no-yield)   run no-yield OMPI_MCA_mpi_yield_when_idle=0 -- --rates "1gbit 500mbit" --repeat 2 ;;
    nice10)     run nice10 PAT_CLUSTER_NICE=10 -- --rates "1gbit 500mbit" --repeat 2 ;;
    gso64k)     run gso64k -- --rates "1gbit 500mbit" --repeat 2 -- --gso-max 65536 ;;
    gso8k)      run gso8k -- --rates "1gbit 500mbit" --repeat 2 -- --gso-max 8192 ;;
    gso1514)    run gso1514 -- --rates "500mbit" --repeat 1 -- --gso-max 1514 ;;
    burst1pkt)  run burst1pkt -- --rates "1gbit 500mbit 100mbit" --repeat 2 -- --burst 16600 ;;
    nicq2ms)    run nicq2ms -- --rates "500mbit 100mbit" --repeat 2 -- --nic-queue 2ms ;;
    switchq5ms) run switchq5ms -- --rates "500mbit 100mbit" --repeat 2 -- --switch-queue 5ms ;;
    *) echo "ablations: unknown variant '$v'" >&2; exit 2 ;;
  esac
done
