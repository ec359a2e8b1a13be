#!/usr/bin/env bash
# Install what is missing (Debian packages), then configure and build libpat
# into build/.  Safe to run again: installs nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# iproute2 (ip netns, tc with tbf) and util-linux (unshare, flock): the emulated
# cluster of bench/demo.sh and bench/cluster/; procps (ps): demo.sh's cleanup.
# gfortran: the Fortran module and Fortran tests; mpich, libmpich-dev: the
# second MPI tests/run.sh builds against (build-mpich/).  Open MPI stays the
# system's default MPI (Debian ranks it above MPICH; checked below).
packages=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libhwloc-dev hwloc
          gnuplot-nox python3 python3-mpi4py python3-numpy iproute2 util-linux procps valgrind
          gfortran mpich libmpich-dev)
# lmod: `module load libpat` from an installed tree (tests/install), unless
# Environment Modules is there: it serves as well (the Tcl module file), and
# the two packages conflict, so apt would remove it to install lmod.
dpkg-query -W -f='${Status}' environment-modules 2>/dev/null | grep -q "install ok installed" || packages+=(lmod)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
fi

# build/ is the default MPI's; it must be Open MPI (the settings, benchmarks
# and results are Open MPI's).  Never switched here: other users share it.
if mpicc -showme:version 2>/dev/null | grep -q "Open MPI"; then :; else
  echo "setup: the default mpicc is not Open MPI's (update-alternatives --query mpi); build/ needs it" >&2
  exit 1
fi

BUILD_DIR=${PAT_BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "setup: built libpat in $BUILD_DIR"
