#!/usr/bin/env bash
# libpat as a user meets it once installed: `cmake --install` of a built tree
# into a temporary prefix, then, against that prefix only,
#   1. the README's C example (app.c) built with pkg-config (pat),
#   2. the README's Fortran example (app.f90) with pkg-config (pat_fortran),
#      where libpat has its Fortran module,
#   3. a CMake project (cmake/) with find_package(PAT),
#   4. the tree moved to another directory: the C example again through
#      pkg-config, which must follow it,
#   5. where Lmod or Environment Modules is installed, `module load libpat`
#      from the moved tree: the C example built and run with what the module
#      sets, the installed pat_info on the PATH, and an unmodified MPI program
#      (plain.c) under the drop-in the module names (PAT_MPI_PRELOAD); under
#      Lmod the module's Tcl form too.
# Each program runs at P = 2, checks every element it gathers and prints
# "<label>, P=2: passed"; any failure stops the test with status 1.  bin/
# must hold libpat's tools only (pat_*, pat-*).  ctest runs it as
# install.prefix (tests/install/CMakeLists.txt): 4-10 s on the 2 shared cores.
#
# run_install_test.sh [--build DIR] [--cmake CMAKE] [--mpicc CC] [--mpif90 FC|none] [-- LAUNCHER...]
#   defaults: build, cmake, mpicc, mpif90, and `mpiexec -n 2` (with
#   --oversubscribe under Open MPI); LAUNCHER must start 2 ranks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=build cmake=cmake mpicc=mpicc mpif90=mpif90 launcher=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --cmake) cmake=$2; shift 2 ;;
    --mpicc) mpicc=$2; shift 2 ;;
    --mpif90) mpif90=$2; shift 2 ;;
    --) shift; launcher=("$@"); break ;;
    *) echo "usage: $0 [--build DIR] [--cmake CMAKE] [--mpicc CC] [--mpif90 FC|none] [-- LAUNCHER...]" >&2; exit 2 ;;
  esac
done
if [ ${#launcher[@]} -eq 0 ]; then
  launcher=(mpiexec -n 2)
  case $(mpiexec --version 2>&1) in *"Open MPI"*) launcher+=(--oversubscribe) ;; esac
fi
# mpirun refuses root (the CI container) without these
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=$(cd "$build" && pwd)
start=$SECONDS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pat-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" # compilers and launchers leave nothing in the source tree

fail() {
  echo "install test: FAILED: $*" >&2
  exit 1
}
say() { echo "install test: $*"; }

# No libpat but the prefix's: a PKG_CONFIG_PATH or CMAKE_PREFIX_PATH of the
# caller could name another.
unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH PAT_MPI_PRELOAD
ld_path_before=${LD_LIBRARY_PATH:-}

# run LABEL PROGRAM [ARG...]: PROGRAM at P = 2 must exit with 0 and print
# "LABEL, P=2: passed"
run() {
  local label=$1
  shift
  if ! "${launcher[@]}" "$@" >"$tmp/out" 2>&1; then
    cat "$tmp/out" >&2
    fail "$label: exited with an error"
  fi
  grep -qxF "$label, P=2: passed" "$tmp/out" || {
    cat "$tmp/out" >&2
    fail "$label: no \"$label, P=2: passed\""
  }
  say "$label, P=2: passed"
}

# loads PROGRAM LIBRARY DIR: PROGRAM loads LIBRARY from DIR, not from
# wherever else a libpat may be (the build tree, /usr/local)
loads() {
  local libs
  libs=$(ldd "$1") # not piped into grep -q: pipefail would take ldd's SIGPIPE for a failure
  grep -q "^[[:space:]]*$2[^ ]* => $3/" <<<"$libs" || {
    echo "$libs" >&2
    fail "${1##*/} does not load $2 from $3"
  }
}

# names_only FLAGS PREFIX: pkg-config's FLAGS name PREFIX and neither libpat's
# source nor its build tree
names_only() {
  case " $1 " in *" -I$2/"* | *" -L$2/"*) ;; *) fail "pkg-config gives \"$1\", nothing under $2" ;; esac
  case $1 in *"$build"* | *"$source_dir/"*) fail "pkg-config gives \"$1\", libpat's build or source tree" ;; esac
}

# --- the install -----------------------------------------------------------
prefix=$tmp/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log" >&2
  fail "cmake --install $build --prefix $prefix"
}
pc=$(find "$prefix" -name pat.pc -path "*/pkgconfig/*" -print -quit)
[ -n "$pc" ] || fail "no pat.pc under $prefix"
pcdir=${pc%/pat.pc}
pcdir=${pcdir#"$prefix"/} # lib/pkgconfig, or lib/<multiarch>/pkgconfig
libdir=${pcdir%/pkgconfig}
for f in "$prefix"/bin/*; do
  case ${f##*/} in
    pat_* | pat-*) ;;
    *) fail "bin/ holds ${f##*/}: only libpat's tools belong on the PATH" ;;
  esac
done
say "installed into $prefix (pkg-config files in $pcdir)"

# --- 1. C, pkg-config --------------------------------------------------------
export PKG_CONFIG_PATH=$prefix/$pcdir
export LD_LIBRARY_PATH=$prefix/$libdir${ld_path_before:+:$ld_path_before}
flags=$(pkg-config --cflags --libs pat) || fail "pkg-config pat"
names_only "$flags" "$prefix"
# shellcheck disable=SC2086 # pkg-config's flags are words
"$mpicc" "$here/app.c" -o app_c $flags || fail "mpicc app.c \$(pkg-config --cflags --libs pat)"
loads app_c libpat.so "$prefix/$libdir"
run "install app (C, pkg-config)" ./app_c "install app (C, pkg-config)"

# --- 2. Fortran, pkg-config -------------------------------------------------
if [ "$mpif90" = none ]; then
  say "Fortran: libpat was built without a Fortran compiler: skipped"
elif [ ! -f "$prefix/$pcdir/pat_fortran.pc" ]; then
  fail "no pat_fortran.pc under $prefix/$pcdir"
else
  flags=$(pkg-config --cflags --libs pat_fortran) || fail "pkg-config pat_fortran"
  names_only "$flags" "$prefix"
  # shellcheck disable=SC2086
  "$mpif90" "$here/app.f90" -o app_f $flags || fail "mpif90 app.f90 \$(pkg-config --cflags --libs pat_fortran)"
  loads app_f libpat_fortran.so "$prefix/$libdir"
  run "install app (Fortran)" ./app_f
fi

# --- 3. CMake, find_package(PAT) ------------------------------------------
# configured as a user would: the prefix on CMAKE_PREFIX_PATH, nothing else
if ! { "$cmake" -S "$here/cmake" -B cmake-build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release &&
  "$cmake" --build cmake-build; } >"$tmp/cmake.log" 2>&1; then
  cat "$tmp/cmake.log" >&2
  fail "the CMake project with find_package(PAT)"
fi
grep -q "^PAT_DIR:PATH=$prefix/" cmake-build/CMakeCache.txt || fail "find_package(PAT) found $(grep ^PAT_DIR cmake-build/CMakeCache.txt)"
# CMake's run path, not LD_LIBRARY_PATH, finds libpat for a CMake-built program
# shellcheck disable=SC2030,SC2031 # each part sets its own LD_LIBRARY_PATH
(
  export LD_LIBRARY_PATH=$ld_path_before
  loads cmake-build/app_cmake libpat.so "$prefix/$libdir"
  run "install app (CMake)" cmake-build/app_cmake "install app (CMake)"
)

# --- 4. the tree moved -------------------------------------------------------
moved=$tmp/moved
mv "$prefix" "$moved"
export PKG_CONFIG_PATH=$moved/$pcdir
# shellcheck disable=SC2031 # the CMake part's was its own
export LD_LIBRARY_PATH=$moved/$libdir${ld_path_before:+:$ld_path_before}
flags=$(pkg-config --cflags --libs pat) || fail "pkg-config pat, moved"
names_only "$flags" "$moved"
# shellcheck disable=SC2086
"$mpicc" "$here/app.c" -o app_moved $flags || fail "mpicc app.c \$(pkg-config --cflags --libs pat), moved"
loads app_moved libpat.so "$moved/$libdir"
run "install app (C, moved)" ./app_moved "install app (C, moved)"

# --- 5. the module file ------------------------------------------------------
# `module` is a shell function its package's init script defines; a
# non-interactive shell has not read it.
module_init=
if ! declare -F module >/dev/null; then
  for f in "${LMOD_PKG:+$LMOD_PKG/init/bash}" "${MODULESHOME:+$MODULESHOME/init/bash}" \
    /usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do
    if [ -n "$f" ] && [ -f "$f" ]; then
      module_init=$f
      break
    fi
  done
  if [ -z "$module_init" ]; then
    say "module: neither Lmod nor Environment Modules is installed (bench/setup.sh installs lmod): skipped"
    say "passed in $((SECONDS - start)) s"
    exit 0
  fi
fi
moduledir=$(find "$moved" -type d -path "*/modulefiles/libpat" -print -quit)
[ -n "$moduledir" ] || fail "no modulefiles/libpat under $moved"
(
  unset PKG_CONFIG_PATH
  export LD_LIBRARY_PATH=$ld_path_before
  set +u # the init scripts and the module function read unset variables
  # shellcheck disable=SC1090
  [ -z "$module_init" ] || source "$module_init" >/dev/null 2>&1
  module use "${moduledir%/libpat}"
  module load libpat || fail "module load libpat"
  set -u
  form="Environment Modules"
  [ -z "${LMOD_CMD:-}" ] || form=Lmod
  [ "${PKG_CONFIG_PATH:-}" = "$moved/$pcdir" ] || fail "module load libpat ($form): PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-}"
  [ "${CMAKE_PREFIX_PATH:-}" = "$moved" ] || fail "module load libpat ($form): CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-}"
  [ "${LD_LIBRARY_PATH%%:*}" = "$moved/$libdir" ] || fail "module load libpat ($form): LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  [ -f "${PAT_MPI_PRELOAD:-}" ] || fail "module load libpat ($form): PAT_MPI_PRELOAD=${PAT_MPI_PRELOAD:-}, no such file"
  [ "${PAT_MPI_PRELOAD%/*}" = "$moved/$libdir" ] || fail "module load libpat ($form): PAT_MPI_PRELOAD=$PAT_MPI_PRELOAD"
  [ "$(command -v pat_info)" = "$moved/bin/pat_info" ] || fail "module load libpat ($form): pat_info is $(command -v pat_info)"
  info=$(pat_info) || fail "pat_info from the module's PATH"
  grep -q "^libpat " <<<"$info" || fail "pat_info from the module's PATH: $info"
  say "module load libpat ($form): the moved tree's paths, pat_info on the PATH"

  flags=$(pkg-config --cflags --libs pat) || fail "pkg-config pat, module"
  names_only "$flags" "$moved"
  # shellcheck disable=SC2086
  "$mpicc" "$here/app.c" -o app_module $flags || fail "mpicc app.c \$(pkg-config --cflags --libs pat), module"
  loads app_module libpat.so "$moved/$libdir"
  run "install app (C, module)" ./app_module "install app (C, module)"

  # the drop-in as the module's help says: LD_PRELOAD=$PAT_MPI_PRELOAD
  "$mpicc" "$here/plain.c" -o plain || fail "mpicc plain.c"
  run "install plain MPI" env PAT_REPORT=1 LD_PRELOAD="$PAT_MPI_PRELOAD" ./plain
  grep -q "^libpat report: 1 call site, 2 processes" "$tmp/out" || {
    cat "$tmp/out" >&2
    fail "plain MPI under LD_PRELOAD=\$PAT_MPI_PRELOAD: libpat did not run its all-gathers (no report)"
  }
  say "plain MPI under LD_PRELOAD=\$PAT_MPI_PRELOAD: libpat ran its all-gathers"

  # Lmod takes the .lua form where both are; the Tcl one, alone in a folder
  # as deep in the tree, must set the same
  if [ "$form" = Lmod ]; then
    lua_env=$(env | grep -E "^(PATH|LD_LIBRARY_PATH|PKG_CONFIG_PATH|CMAKE_PREFIX_PATH|PAT_MPI_PRELOAD)=" | sort)
    set +u
    module unload libpat
    module unuse "${moduledir%/libpat}"
    mkdir -p "${moduledir%/libpat}-tcl/libpat"
    find "$moduledir" -type f ! -name "*.lua" -exec cp {} "${moduledir%/libpat}-tcl/libpat/" \;
    module use "${moduledir%/libpat}-tcl"
    module load libpat || fail "module load libpat (Lmod, Tcl form)"
    set -u
    tcl_env=$(env | grep -E "^(PATH|LD_LIBRARY_PATH|PKG_CONFIG_PATH|CMAKE_PREFIX_PATH|PAT_MPI_PRELOAD)=" | sort)
    [ "$lua_env" = "$tcl_env" ] || {
      diff <(echo "$lua_env") <(echo "$tcl_env") >&2
      fail "the Tcl module file sets other values than the Lua one"
    }
    say "module load libpat (Lmod, Tcl form): the same values"
  fi
)
say "passed in $((SECONDS - start)) s"
