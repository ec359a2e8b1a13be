#!/usr/bin/env bash
# bench/balanced/run.sh: the back-to-back balanced loop (pat-b2b) in the
# configurations of issue 14's target, results in one folder.
#
#   bench/balanced/run.sh --out DIR [--model-shm FILE] [--model-cluster FILE] [options] [-- pat-b2b options]
#
# Configurations (--configs, default all four):
#   shm            shared memory, P = 4 local ranks (mpirun --oversubscribe --bind-to none)
#   shm-model      the same with PAT_MODEL=--model-shm
#   cluster        the emulated cluster, P = 8 hosts (bench/cluster/pat-cluster up/run/down)
#   cluster-model  the same with PAT_MODEL=--model-cluster
# A model configuration without its model file is skipped with a message.
#
# Options:
#   --out DIR            results folder (created; required)
#   --model-shm FILE     model file for shm-model;  --model-cluster FILE  for cluster-model
#   --configs LIST       comma list of the configurations above
#   --lib [LABEL=]PATH   libpat_mpi.so to preload (repeatable; default $PAT_BUILD_DIR/libpat_mpi.so,
#                        label "new"); PATH "none" (label "none") runs without the preload (a sanity check:
#                        both columns are MPI's own, the ratio should be ~1)
#   --algs LIST          PAT_ALG values, each a run of its own (default auto; native = libpat's
#                        pass-through to MPI, a control)
#   --repeats N          repeat every (library, PAT_ALG) N times, interleaved: for each
#                        configuration, repeat 1 of every library and setting, then repeat 2...
#                        (old, new, old, new: both see the same minutes of machine load)
#   --np-shm P           ranks on shared memory (default 4); --np-cluster P  hosts (default 8)
#   --rate R             emulated link rate (default 500mbit)
#   --timeout S          limit of one pat-b2b run (default 1800 s); the cluster's up/down are
#                        bounded too
#   --wait-idle PCT[:S]  before each run wait (at most S s, default 600) until the CPU is PCT% idle
#   --b2b PATH           pat-b2b (default $PAT_BUILD_DIR/bench/balanced/pat-b2b)
#   (PAT_BUILD_DIR defaults to build/; PAT_CLUSTER_PREFIX/PAT_CLUSTER_NET choose the cluster's
#   names, as for pat-cluster.)
#
# Writes DIR/README.md (date, machine, libpat commit, every command, the
# tables, a summary against the target), DIR/raw/<run>.txt (pat-b2b's output)
# and DIR/raw/<run>.csv (its raw per-round numbers); prints the summary.
# Exit status: 0 if every run ended with status 0, else 1 (2: bad usage).
set -uo pipefail
ORIG_ARGS=("$@")
REPO=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
BUILD=${PAT_BUILD_DIR:-$REPO/build}
CLUSTER=$REPO/bench/cluster/pat-cluster
OUT="" MODEL_SHM="" MODEL_CLUSTER="" CONFIGS=shm,shm-model,cluster,cluster-model
LIBS=() ALGS=auto REPEATS=1 NP_SHM=4 NP_CLUSTER=8 RATE=500mbit TIMEOUT=1800 WAIT_IDLE=""
B2B=$BUILD/bench/balanced/pat-b2b
B2B_ARGS=()
TARGET_WORST=1.05 TARGET_GEO=1.03

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "run.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=${2:?}; shift 2 ;;
    --model-shm) MODEL_SHM=${2:?}; shift 2 ;;
    --model-cluster) MODEL_CLUSTER=${2:?}; shift 2 ;;
    --configs) CONFIGS=${2:?}; shift 2 ;;
    --lib) LIBS+=("${2:?}"); shift 2 ;;
    --algs) ALGS=${2:?}; shift 2 ;;
    --repeats) REPEATS=${2:?}; shift 2 ;;
    --np-shm) NP_SHM=${2:?}; shift 2 ;;
    --np-cluster) NP_CLUSTER=${2:?}; shift 2 ;;
    --rate) RATE=${2:?}; shift 2 ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    --wait-idle) WAIT_IDLE=${2:?}; shift 2 ;;
    --b2b) B2B=${2:?}; shift 2 ;;
    --) shift; B2B_ARGS=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[ -n "$OUT" ] || die "--out DIR is required (see --help)"
[ ${#LIBS[@]} -gt 0 ] || LIBS=("new=$BUILD/libpat_mpi.so")
for n in "$REPEATS" "$NP_SHM" "$NP_CLUSTER" "$TIMEOUT"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "'$n' is not a positive whole number"
done
[ -x "$B2B" ] || die "no pat-b2b at $B2B (build first, or --b2b PATH)"
for c in ${CONFIGS//,/ }; do
  case $c in shm|shm-model|cluster|cluster-model) ;; *) die "unknown configuration '$c'" ;; esac
done
for m in "$MODEL_SHM" "$MODEL_CLUSTER"; do
  [ -z "$m" ] || [ -r "$m" ] || die "cannot read the model file $m"
done
[ -z "$MODEL_SHM" ] || MODEL_SHM=$(readlink -f "$MODEL_SHM")
[ -z "$MODEL_CLUSTER" ] || MODEL_CLUSTER=$(readlink -f "$MODEL_CLUSTER")
B2B=$(readlink -f "$B2B")

# LABELS[i], PATHS[i] from --lib [LABEL=]PATH
LABELS=() PATHS=()
for spec in "${LIBS[@]}"; do
  label=new path=$spec
  [ "$spec" = none ] && label=none # the sanity check is labelled as what it is
  if [[ $spec == *=* ]]; then label=${spec%%=*} path=${spec#*=}; fi
  [[ $label =~ ^[A-Za-z0-9_.-]+$ ]] || die "library label '$label': letters, digits, . _ - only"
  for l in "${LABELS[@]}"; do
    [ "$l" != "$label" ] || die "two libraries labelled '$label' (their runs would share file names): --lib LABEL=PATH"
  done
  if [ "$path" != none ]; then
    [ -r "$path" ] || die "no library at $path"
    path=$(realpath -s "$path")
  fi
  LABELS+=("$label") PATHS+=("$path")
done

mkdir -p "$OUT/raw" || die "cannot create $OUT"
OUT=$(readlink -f "$OUT")
README=$OUT/README.md RUNS_MD=$OUT/raw/runs.md SUMMARY=()
: >"$RUNS_MD"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
STARTED=$(date -Is) LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$REPO" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
FAILED=0

# ------------------------------------------------------------------ helpers
# shellcheck source=../shell_quote.sh
source "$REPO/bench/shell_quote.sh"

machine_idle() { # idle share of all cores over one second, in percent ("?" if unknown)
  local a b
  a=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6}' /proc/stat)
  sleep 1
  b=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6}' /proc/stat)
  echo "$a $b" | awk '{ if ($3 > $1) printf "%.0f", 100 * ($4 - $2) / ($3 - $1); else print "?" }'
}

wait_idle() { # WAIT_IDLE=PCT[:S]; prints the idle share it measured last
  local pct=${WAIT_IDLE%%:*} max=600 waited=0 idle
  [[ $WAIT_IDLE == *:* ]] && max=${WAIT_IDLE#*:}
  while :; do
    idle=$(machine_idle)
    if [ "$idle" != "?" ] && [ "$idle" -ge "$pct" ]; then break; fi
    if [ "$waited" -ge "$max" ]; then echo "run.sh: still busy (idle $idle%) after ${waited}s; measuring anyway" >&2; break; fi
    sleep 9; waited=$((waited + 10))
  done
  echo "$idle"
}

# The launcher of a configuration, as words: mpirun or pat-cluster run.
launcher() {
  case $1 in
    shm*) echo "timeout --kill-after=15 $TIMEOUT mpirun -np $NP_SHM --oversubscribe --bind-to none" ;;
    cluster*) echo "$CLUSTER run --timeout $TIMEOUT -np $NP_CLUSTER" ;;
  esac
}

model_of() {
  case $1 in shm-model) echo "$MODEL_SHM" ;; cluster-model) echo "$MODEL_CLUSTER" ;; *) echo "" ;; esac
}

# summary fields of a pat-b2b output: geomean, its CI, worst, where, its CI
summary_fields() {
  sed -n 's/^summary: .* geometric mean of ratios \([0-9.]*\) \[95% CI \([0-9.]*\), \([0-9.]*\)\], worst \([0-9.]*\) at \([0-9]* [KMi]*B\) \[\([0-9.]*\), \([0-9.]*\)\].*/\1 \2 \3 \4 \5 \6 \7/p' "$1"
}

# One pat-b2b run: config, library index, PAT_ALG, repeat.
run_one() {
  local cfg=$1 li=$2 alg=$3 s=$4 model idle="" rc t0 t1 id words
  local label=${LABELS[$li]} lib=${PATHS[$li]}
  model=$(model_of "$cfg")
  id=$cfg.$label.$alg.s$s
  [ -z "$WAIT_IDLE" ] || idle=$(wait_idle)
  # shellcheck disable=SC2207
  words=($(launcher "$cfg"))
  [ "$lib" = none ] || words+=(-x "LD_PRELOAD=$lib" -x "PAT_ALG=$alg")
  [ -z "$model" ] || words+=(-x "PAT_MODEL=$model")
  words+=("$B2B" --csv "$OUT/raw/$id.csv")
  [ "$lib" = none ] || words+=(--require-libpat)
  words+=(${B2B_ARGS[@]+"${B2B_ARGS[@]}"})
  echo "run.sh: [$id] $(quote "${words[@]}")"
  t0=$(date +%s.%N)
  env -u PAT_MODEL -u PAT_ALG -u LD_PRELOAD "${words[@]}" >"$OUT/raw/$id.txt" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  [ $rc = 0 ] || FAILED=1
  record "$id" "$cfg" "$label" "$alg" "$s" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$idle" "$(quote "${words[@]}")"
}

# The run's section in runs.md and its row of the summary table.
record() {
  local id=$1 cfg=$2 label=$3 alg=$4 s=$5 rc=$6 secs=$7 idle=$8 cmd=$9 f g glo ghi w at wlo whi verdict pat
  f=$OUT/raw/$id.txt
  read -r g glo ghi w at wlo whi <<<"$(summary_fields "$f" | sed 's/ \([KMi]*B\)/_\1/')" || true
  at=${at/_/ }
  pat=$(sed -n 's/^libpat: \([a-z]*\).*/\1/p' "$f")
  verdict="-"
  if [ -n "${g:-}" ]; then
    verdict=$(awk -v w="$w" -v g="$g" -v tw=$TARGET_WORST -v tg=$TARGET_GEO \
      'BEGIN { print (w <= tw && g <= tg) ? "met" : "not met" }')
  fi
  [ "$label" != "none" ] || alg="-"
  SUMMARY+=("| $cfg | $label | $alg | $s | ${g:-–} [${glo:-}, ${ghi:-}] | ${w:-–} at ${at:-–} [${wlo:-}, ${whi:-}] | $verdict | ${pat:-?} | $(printf %.0f "$secs") | ${idle:-} | $rc |")
  {
    echo "### $id"
    echo
    echo "exit status $rc, $(printf %.0f "$secs") s${idle:+, CPU idle before it $idle%}; raw: \`raw/$id.csv\`"
    echo
    echo "    \$ $cmd"
    echo
    sed 's/^/    /' "$f"
    echo
  } >>"$RUNS_MD"
  echo "run.sh: [$id] exit $rc, $(printf %.0f "$secs") s: $(grep '^summary:' "$f" || echo 'no summary (see raw/'"$id"'.txt)')"
}

# Every library, setting and repeat of one configuration, interleaved.
run_config() {
  local cfg=$1 s li alg
  for s in $(seq 1 "$REPEATS"); do
    for li in "${!LABELS[@]}"; do
      for alg in ${ALGS//,/ }; do
        if [ "${PATHS[$li]}" = none ]; then
          [ "$alg" = "${ALGS%%,*}" ] || continue            # no preload: PAT_ALG means nothing, once
          [[ $cfg != *-model ]] || continue                 # nor does PAT_MODEL
        fi
        run_one "$cfg" "$li" "$alg" "$s"
      done
    done
  done
}

CLUSTER_UP=0
cluster_down() {
  if [ "$CLUSTER_UP" = 1 ]; then
    timeout 120 "$CLUSTER" down >/dev/null 2>&1 || timeout 120 "$CLUSTER" down >/dev/null 2>&1 ||
      echo "run.sh: pat-cluster down failed; run '$CLUSTER down' by hand" >&2
    CLUSTER_UP=0
  fi
}
trap cluster_down EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

cluster_up() {
  local rc=0
  echo "run.sh: $(quote "$CLUSTER" up -n "$NP_CLUSTER" --rate "$RATE")"
  timeout 300 "$CLUSTER" up -n "$NP_CLUSTER" --rate "$RATE" || rc=$?
  # a cluster that was up before is someone else's: never ours to take down
  [ $rc = 0 ] && CLUSTER_UP=1
  return $rc
}

# ------------------------------------------------------------------ runs
SKIPPED=()
for cfg in ${CONFIGS//,/ }; do
  if [[ $cfg == *-model ]] && [ -z "$(model_of "$cfg")" ]; then
    SKIPPED+=("$cfg: no model file given (--model-${cfg%-model})")
    echo "run.sh: skipping $cfg: no model file given (--model-${cfg%-model} FILE)"
    continue
  fi
  if [[ $cfg == cluster* ]] && [ "$CLUSTER_UP" = 0 ]; then
    if ! cluster_up; then
      SKIPPED+=("$cfg: the emulated cluster did not come up")
      echo "run.sh: skipping $cfg: the emulated cluster did not come up" >&2
      FAILED=1
      continue
    fi
  fi
  run_config "$cfg"
done
cluster_down

# ------------------------------------------------------------------ README
{
  echo "# Back-to-back balanced loop: libpat against MPI's own all-gather"
  echo
  echo "Made by \`bench/balanced/run.sh\` (see \`bench/README.md\`, *Back-to-back balanced loop*):"
  echo
  echo "    \$ $(quote bench/balanced/run.sh "${ORIG_ARGS[@]}")"
  echo
  echo "- started $STARTED, finished $(date -Is); load average at start $LOAD_START, at end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- machine: $(hostname), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r), $(mpirun --version 2>/dev/null | head -1)"
  echo "- repository commit $commit; pat-b2b \`$B2B\`"
  for li in "${!LABELS[@]}"; do echo "- library \`${LABELS[$li]}\`: \`${PATHS[$li]}\`"; done
  [ -z "$MODEL_SHM" ] || echo "- shm model: \`$MODEL_SHM\`"
  [ -z "$MODEL_CLUSTER" ] || echo "- cluster model: \`$MODEL_CLUSTER\`; rate $RATE"
  for s in ${SKIPPED[@]+"${SKIPPED[@]}"}; do echo "- skipped: $s"; done
  echo
  echo "Ratio = median per-call time of MPI_Allgather (libpat under LD_PRELOAD) / that of"
  echo "PMPI_Allgather (Open MPI's own), measured interleaved in one run; per call = a block's time / K"
  echo "on each rank, max over ranks; 95% CI by a paired bootstrap over rounds. Target (issue 14):"
  echo "at most $TARGET_WORST at every size and a geometric mean at most $TARGET_GEO (\"met\" compares the point"
  echo "estimates; read the intervals too)."
  echo
  echo "| configuration | library | PAT_ALG | repeat | geometric mean [95% CI] | worst [95% CI] | target | libpat | s | idle % | exit |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' ${SUMMARY[@]+"${SUMMARY[@]}"}
  echo
  echo "## Runs"
  echo
  cat "$RUNS_MD"
} >"$README"
rm -f "$RUNS_MD"
echo
echo "| configuration | library | PAT_ALG | repeat | geometric mean [95% CI] | worst [95% CI] | target | libpat | s | idle % | exit |"
printf '%s\n' ${SUMMARY[@]+"${SUMMARY[@]}"}
echo "run.sh: results in $OUT (README.md, raw/)"
exit $FAILED
