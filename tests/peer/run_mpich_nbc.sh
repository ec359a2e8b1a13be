#!/usr/bin/env bash
# Peer run: MPICH's own tests of non-blocking collectives (test/mpi/coll/nonblocking.c,
# nonblocking2.c, nonblocking3.c, from a checkout of MPICH's sources, which this
# repository does not carry) as unmodified programs under the drop-in, every setting
# that runs libpat's schedules, native and auto with nodes, P = 2, 3, 4, 5, 8.
#   bash tests/peer/run_mpich_nbc.sh MPICH_SOURCE_DIR [LAUNCHES]
# Needs build/ (bench/setup.sh; PAT_PEER_LIB names another libpat_mpi.so).  Each launch
# is bounded (60 s: a hang counts as a failure); prints a line per failure, a pass/fail
# table per setting and P, and "N passed, N failed".
set -u
. "$(dirname "$0")/peer_lib.sh"
peer_start run_mpich_nbc.sh "$@"
cases=${PAT_PEER_TESTS:-"nonblocking nonblocking2 nonblocking3"}
nps=${PAT_PEER_NPS:-"2 3 4 5 8"}
settings=("PAT_ALG=native" "PAT_ALG=ring" "PAT_ALG=relay" "PAT_ALG=direct" "PAT_ALG=hrelay PAT_NODE_SIZE=2"
          "PAT_ALG=auto PAT_ONE_NODE=auto PAT_NODE_SIZE=2")
peer_build run_mpich_nbc.sh "$src" "$work"
fits() { true; }
peer_run "$work"
