#!/usr/bin/env bash
# Peer run: PETSc's own tutorials (Debian's libpetsc3.18-dev-examples, built here unmodified
# against libpetsc-real3.18-dev) under the drop-in, against the same program without it.
# PETSc calls MPI_Allreduce for every dot product and norm (8 bytes to a few hundred: CG,
# GMRES's VecMDot, Newton's line search), MPI_Iallreduce in pipelined CG, and
# MPI_Allgather(v) while it sets up scatters and multigrid levels.  Cases: KSP ex2 (2D
# Laplacian; CG, pipelined CG, GMRES), ex23 (1D), ex32 and ex50 (DMDA, multigrid), ex45
# (3D, multigrid), SNES ex5 (Bratu) and ex19 (driven cavity), TS ex2; at P = 2, 3, 4, 5
# (PAT_PEER_NPS) under fixed all-gather and all-reduce settings together, hierarchical ones
# on nodes of 2, and auto on a node a rank (PAT_NODE_SIZE=1: the path of a cluster).
# A launch passes when it exits as the native one did and its output matches the native
# output word for word, numbers within 1e-3 relative or 1e-9 absolute: another order of
# summation moves the last digits of a residual (3.29e-13 against 4.10e-13 is the same
# converged error), never an iteration count, a converged reason or a printed solution.
# Then PAT_REPRODUCIBLE=1: three launches of CG with RELAY's all-reduce print the same
# residuals to the last of 13 digits (the arrivals differ from launch to launch).
#   bash tests/peer/run_petsc_tutorials.sh
# Needs build/ (bench/setup.sh; PAT_PEER_LIB names another libpat_mpi.so) and the two
# Debian packages (apt-get install libpetsc-real3.18-dev libpetsc3.18-dev-examples).  Each
# launch is bounded (PEER_TIMEOUT, 180 s); prints one line per failure and "N passed, N failed".
set -u
. "$(dirname "$0")/peer_lib.sh"
peer_lib run_petsc_tutorials.sh
examples=${PETSC_EXAMPLES:-$(ls -d /usr/share/petsc/*/share/petsc/examples/src 2>/dev/null | tail -1)}
missing() { echo "run_petsc_tutorials.sh: no $1 (apt-get install $2)" >&2; exit 2; }
[ -d "$examples" ] || missing "PETSc examples" libpetsc3.18-dev-examples
pkg-config --exists PETSc || missing PETSc libpetsc-real3.18-dev
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in ksp/ksp/tutorials/ex2 ksp/ksp/tutorials/ex23 ksp/ksp/tutorials/ex32 ksp/ksp/tutorials/ex45 \
         ksp/ksp/tutorials/ex50 snes/tutorials/ex5 snes/tutorials/ex19 ts/tutorials/ex2; do
  name=$(tr / _ <<<"$t")
  mpicc -O2 "$examples/$t.c" $(pkg-config --cflags --libs PETSc) -lm -o "$work/$name" || exit 2
done

cases=(
  "ksp_ksp_tutorials_ex2 -m 60 -n 60 -ksp_type cg -pc_type jacobi"
  "ksp_ksp_tutorials_ex2 -m 60 -n 60 -ksp_type pipecg -pc_type jacobi -ksp_converged_reason"
  "ksp_ksp_tutorials_ex2 -m 60 -n 60 -ksp_type gmres -pc_type bjacobi -ksp_converged_reason"
  "ksp_ksp_tutorials_ex23 -n 500 -ksp_type cg -pc_type jacobi -ksp_converged_reason"
  "ksp_ksp_tutorials_ex32 -da_grid_x 32 -da_grid_y 32 -ksp_converged_reason"
  "ksp_ksp_tutorials_ex45 -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -pc_type mg -pc_mg_levels 2 -ksp_converged_reason"
  "ksp_ksp_tutorials_ex50 -da_grid_x 65 -da_grid_y 65 -pc_type mg -pc_mg_levels 3 -ksp_converged_reason"
  "snes_tutorials_ex5 -da_grid_x 40 -da_grid_y 40 -snes_converged_reason -ksp_converged_reason"
  "snes_tutorials_ex19 -da_grid_x 16 -da_grid_y 16 -snes_converged_reason -snes_monitor_short"
  "ts_tutorials_ex2 -ts_max_steps 20 -ts_monitor"
)
settings=(
  "PAT_ALG=ring PAT_ALLREDUCE=ring"
  "PAT_ALG=relay PAT_ALLREDUCE=relay"
  "PAT_ALG=direct PAT_ALLREDUCE=rabenseifner"
  "PAT_ALG=bruck PAT_ALLREDUCE=rdb"
  "PAT_ALG=ard PAT_ALLREDUCE=slt"
  "PAT_ALG=hring PAT_ALLREDUCE=hring PAT_NODE_SIZE=2"
  "PAT_ALG=hrelay PAT_ALLREDUCE=hrelay PAT_NODE_SIZE=2"
  "PAT_ALG=auto PAT_ALLREDUCE=auto PAT_NODE_SIZE=1"
)
pass=0 fail=0

# same_output A B: word for word, numbers within the tolerance above
same_output() {
  python3 - "$1" "$2" <<'PY'
import re, sys
def words(path):
    return [w for line in open(path, errors="replace") for w in re.split(r"[\s,=:()]+", line) if w]
def number(w):
    try:
        return float(w)
    except ValueError:
        return None
a, b = words(sys.argv[1]), words(sys.argv[2])
ok = len(a) == len(b)
for x, y in zip(a, b):
    if not ok:
        break
    u, v = number(x), number(y)
    if u is None or v is None or x.lstrip("-").isdigit():
        ok = x == y
    else:
        ok = abs(u - v) <= max(1e-3 * max(abs(u), abs(v)), 1e-9)
sys.exit(0 if ok else 1)
PY
}

launch() { # OUT NP [ENV...] -- PROGRAM ARGS...: rc of the launch, stdout into OUT
  local out=$1 np=$2 env_args=()
  shift 2
  while [ "$1" != -- ]; do env_args+=("$1"); shift; done
  shift
  timeout "${PEER_TIMEOUT:-180}" mpirun -np "$np" --oversubscribe env "${env_args[@]}" "$work/$1" "${@:2}" \
    >"$out" 2>"$out.err"
}

for np in ${PAT_PEER_NPS:-2 3 4 5}; do
  for c in "${cases[@]}"; do
    read -r -a words <<<"$c"
    launch "$work/native" "$np" -- "${words[@]}"
    native_rc=$?
    for setting in "${settings[@]}"; do
      launch "$work/pat" "$np" LD_PRELOAD="$lib" $setting -- "${words[@]}"
      rc=$?
      if [ $rc = $native_rc ] && same_output "$work/native" "$work/pat"; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1))
        echo "FAIL np $np [$c] $setting (rc $rc, native $native_rc): $(diff "$work/native" "$work/pat" | head -4 |
          tr '\n' ' ') $(head -c 300 "$work/pat.err")"
      fi
    done
  done
  echo "P = $np: done"
done

# PAT_REPRODUCIBLE=1: the same bits in every launch
for np in 3 4; do
  for i in 1 2 3; do
    launch "$work/repro$i" "$np" LD_PRELOAD="$lib" PAT_ALLREDUCE=relay PAT_REPRODUCIBLE=1 -- \
      ksp_ksp_tutorials_ex2 -m 60 -n 60 -ksp_type cg -pc_type jacobi -ksp_monitor -ksp_max_it 60
  done
  if [ -s "$work/repro1" ] && cmp -s "$work/repro1" "$work/repro2" && cmp -s "$work/repro1" "$work/repro3"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL np $np PAT_REPRODUCIBLE=1: the launches' residuals differ:" \
      "$(diff "$work/repro1" "$work/repro2" | head -3 | tr '\n' ' ')"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
