#!/usr/bin/env bash
# Peer run: MPICH's own all-gather tests as unmodified programs under the drop-in
# (LD_PRELOAD=libpat_mpi.so), with every PAT_ALG setting, P = 2, 3, 4, 5, 8.
#   bash tests/peer/run_mpich_allgather.sh MPICH_SOURCE_DIR [LAUNCHES]
# MPICH_SOURCE_DIR: a checkout of MPICH's sources (this repository does not carry them; from a
# bare mirror, for one:
#   mkdir /tmp/mpich && git --git-dir=MIRROR archive HEAD test/mpi/coll | tar x -C /tmp/mpich).
# The programs are MPICH's test/mpi/coll tests whose subject is MPI_Allgather(v), blocking,
# non-blocking (icallgather, icallgatherv -nonblocking: inter-communicators, which are MPI's own
# under libpat) and persistent (p_allgather, p_allgatherv: MPIX_ in Open MPI 4.1), built against
# tests/peer/mpitest.h and its neighbours.  They gather on MPICH's communicators (world,
# its halves, reversed, odd and even ranks, dups: MTestGetIntracommGeneral), zero counts,
# a struct type, and allgatherv4's six patterns of unequal counts up to 256 KiB a rank
# (random ones: srand(time)).  allgatherv4 needs three ranks or more.
# Settings: every algorithm of PAT_ALG (the hierarchical ones on nodes of 2, PAT_NODE_SIZE=2:
# two levels at even P, unequal nodes at odd), auto with a node a rank and on nodes of 2
# (PAT_ONE_NODE=auto: on one node auto would pass every call to MPI's own), plus a row
# without the drop-in, which says what the MPI library alone gets.
# Environment:
#   PAT_PEER_LIB   the drop-in (default build/libpat_mpi.so)
#   PAT_PEER_TESTS, PAT_PEER_NPS, PAT_PEER_SETTINGS (';'-separated)  narrow the run
#   PEER_TIMEOUT   seconds a launch may take (60; a hang counts as a failure)
# Prints a line per failure, a pass/fail table per setting and P, and "N passed, N failed"
# (exit status 1 if any failed).
set -u
. "$(dirname "$0")/peer_lib.sh"
peer_start run_mpich_allgather.sh "$@"

cases=${PAT_PEER_TESTS:-"allgather2 allgather3 allgatherv2 allgatherv3 allgatherv4 allgather_struct icallgather
  icallgather:-nonblocking icallgatherv icallgatherv:-nonblocking p_allgather p_allgatherv"}
nps=${PAT_PEER_NPS:-"2 3 4 5 8"}
all_settings="none;PAT_ALG=native"
for alg in ring nex rdb bruck lnbc bdr bslb ard direct relay; do all_settings+=";PAT_ALG=$alg PAT_NODE_SIZE=1"; done
all_settings+=";PAT_ALG=hring PAT_NODE_SIZE=2;PAT_ALG=hrelay PAT_NODE_SIZE=2"
all_settings+=";PAT_ALG=auto PAT_NODE_SIZE=1;PAT_ALG=auto PAT_ONE_NODE=auto PAT_NODE_SIZE=2"
IFS=';' read -r -a settings <<<"${PAT_PEER_SETTINGS:-$all_settings}"
peer_build run_mpich_allgather.sh "$src" "$work"
# What a test asks of P (MPICH's testlist runs it only so): allgatherv4 three ranks or more.
fits() { [ "$1" != allgatherv4 ] || [ "$2" -ge 3 ]; }

peer_run "$work"
