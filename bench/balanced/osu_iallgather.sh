#!/usr/bin/env bash
# bench/balanced/osu_iallgather.sh: OSU's osu_iallgather (the non-blocking
# all-gather, unmodified) through libpat's drop-in against the MPI library's
# own, interleaved: bench/balanced/osu.sh with the settings this benchmark needs.
#
#   bench/balanced/osu_iallgather.sh --osu PATH --out DIR [--alg ALG] [osu.sh options]
#
# Build it from OSU 5.x (mpi/collective of an unpacked release):
#   mpicc -O2 -I. osu_iallgather.c osu_coll.c -o osu_iallgather
#
# Under PAT_ALG=auto (the default) libpat leaves MPI_Iallgather to the MPI
# library's own (docs/usage.md, non-blocking all-gathers), so "preload" would
# time MPI's own call twice: the preloaded runs get PAT_ALG=ALG (default ring;
# any classic one: ring, nex, rdb, bruck, lnbc, direct), which libpat's
# background thread runs.  The table compares OSU's first column after the
# size, "Overall(us)" (post + OSU's compute, as long as the call's own
# latency, + MPI_Test calls + MPI_Wait); the raw files keep the compute, pure
# communication and overlap columns.  Every other option is osu.sh's
# (--configs, --rounds, --lib, --osu-args, --timeout, --env ...).
set -uo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
ALG=ring
EXTRA_ENV=""
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --alg) ALG=${2:?}; shift 2 ;;
    --env) EXTRA_ENV=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
exec "$HERE/osu.sh" "${args[@]}" --env "PAT_ALG=$ALG${EXTRA_ENV:+ $EXTRA_ENV}"
