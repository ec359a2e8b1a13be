# What the peer runs (run_*.sh) share, sourced by them: the drop-in they preload and Open MPI's
# launch as root.  peer_lib SCRIPT sets lib to the absolute path of PAT_PEER_LIB (relative to the
# current directory) or of this checkout's build/libpat_mpi.so, or says SCRIPT has none and exits 2.
# The MPI library: Open MPI's mpicc and mpirun (--oversubscribe), or PEER_MPICC and PEER_MPIRUN
# (for MPICH: PEER_MPICC=mpicc.mpich PEER_MPIRUN=mpiexec.mpich
# PAT_PEER_LIB=build-mpich/libpat_mpi.so) where peer_build and peer_run are used.
peer_lib() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  lib=${PAT_PEER_LIB:-$root/build/libpat_mpi.so}
  [ -f "$lib" ] || { echo "$1: no $lib (bash bench/setup.sh)" >&2; exit 2; }
  lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

# peer_start SCRIPT SRC [LAUNCHES]: what a script that builds MPICH's tests starts with: src, launches
# (1), lib (peer_lib), and work, a folder removed at exit.
peer_start() {
  src=${2:?usage: $1 MPICH_SOURCE_DIR [LAUNCHES]}
  launches=${3:-1}
  peer_lib "$1"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# peer_build SCRIPT SRC WORK: each of $cases (name[:arguments]; the program is
# SRC/test/mpi/coll/NAME.c) built into WORK against this folder's stand-ins for MPICH's
# test harness; a test that defines run() instead of main() takes MPICH's driver's
# place with mtest_main.c.  Exits 2 where a program is missing or does not build.
peer_build() {
  local script=$1 src=$2 work=$3 here c t driver
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  for c in $cases; do
    t=${c%%:*}
    [ -x "$work/$t" ] && continue
    [ -f "$src/test/mpi/coll/$t.c" ] || { echo "$script: no $src/test/mpi/coll/$t.c" >&2; exit 2; }
    driver=
    grep -q '^int run(const char' "$src/test/mpi/coll/$t.c" && driver=$here/mtest_main.c
    ${PEER_MPICC:-mpicc} -O1 -I"$here" -o "$work/$t" "$src/test/mpi/coll/$t.c" $driver -lm || exit 2
  done
}

# peer_run WORK: every case of $cases at every P of $nps that `fits NAME P` allows, under
# every setting of the array settings ("none": without the drop-in, else the environment
# the preloaded drop-in runs with), $launches times, each launch bounded by $PEER_TIMEOUT
# seconds (60: a hang counts as a failure) and passed when it exits 0 and says "No
# Errors".  Prints a line per failure, a passed/failed table per setting and P, and "N
# passed, N failed"; returns 1 if any failed.
peer_run() {
  local work=$1 setting np c t args out rc pass=0 fail=0 env_args launcher
  local -A cell_pass cell_fail
  read -r -a launcher <<<"${PEER_MPIRUN:-mpirun --oversubscribe}"
  for setting in "${settings[@]}"; do
    for np in $nps; do
      for c in $cases; do
        t=${c%%:*} args=
        [ "$c" != "$t" ] && args=${c#*:}
        fits "$t" "$np" || continue
        if [ "$setting" = none ]; then env_args=(env); else env_args=(env LD_PRELOAD="$lib" $setting); fi
        for _ in $(seq "$launches"); do
          out=$(timeout "${PEER_TIMEOUT:-60}" "${launcher[@]}" -np "$np" "${env_args[@]}" "$work/$t" $args 2>&1)
          rc=$?
          if [ $rc = 0 ] && grep -q "No Errors" <<<"$out"; then
            pass=$((pass + 1))
            cell_pass[$setting,$np]=$((${cell_pass[$setting,$np]:-0} + 1))
          else
            fail=$((fail + 1))
            cell_fail[$setting,$np]=$((${cell_fail[$setting,$np]:-0} + 1))
            echo "FAIL $t $args np $np $setting (rc $rc): $(grep -v '^\s*$' <<<"$out" | head -3 | tr '\n' ' ')"
          fi
        done
      done
    done
    echo "$setting: done"
  done
  printf '%-40s' "setting \\ P (passed/failed)"
  for np in $nps; do printf ' %7s' "$np"; done
  echo
  for setting in "${settings[@]}"; do
    printf '%-40s' "$setting"
    for np in $nps; do printf ' %7s' "${cell_pass[$setting,$np]:-0}/${cell_fail[$setting,$np]:-0}"; done
    echo
  done
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
