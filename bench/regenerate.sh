#!/usr/bin/env bash
# What a results folder does not commit, and how to get it back
# (bench/results/README.md).
#
#   bench/regenerate.sh plots [FOLDER...]    redraw plots/ (PNG, .dat, .gp) from results.csv
#   bench/regenerate.sh restore [PATH...]    the raw files as measured, from git history
#   bench/regenerate.sh commands FOLDER...   print the commands that made FOLDER, to rerun them
#
# plots: every folder under FOLDER (default: bench/results) that holds a
#   sweep's results.csv and table.txt gets its plots/ redrawn with
#   bench/sweep/pat_results.py (needs gnuplot); nothing else is touched.
# restore: every file that a commit removed under PATH (default:
#   bench/results) and that .gitignore now keeps out (raw/, plots/, logs,
#   traces) is written back from the commit before its removal, into a folder
#   that is still in the work tree (a folder removed from bench/results as
#   superseded stays in git history: BENCHMARKS.md, History).  Nothing is
#   staged; files that exist are left alone.
# commands: the "$ command" lines of FOLDER/README.md (or the "Command" of a
#   sweep's README).  A rerun measures anew: give it a new output folder
#   (--out, PAT_CAMPAIGN_OUT) rather than the committed one.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$REPO/bench/results
usage() { sed -n '5,7s/^# *//p' "$0" >&2; exit 2; }
[ $# -ge 1 ] || usage
what=$1
shift

case $what in
  plots)
    [ $# -gt 0 ] || set -- "$RESULTS"
    command -v gnuplot >/dev/null || { echo "regenerate: gnuplot not found (Debian: gnuplot-nox)" >&2; exit 3; }
    n=0
    while IFS= read -r -d '' csv; do
      d=$(dirname "$csv")
      [ -f "$d/table.txt" ] || continue # a sweep's folder (guidelines.py writes report.md instead)
      PAT_RESULTS_DIR=$d python3 - "$REPO/bench/sweep" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import pat_results
d = os.environ["PAT_RESULTS_DIR"]
made, reason = pat_results.plots(pat_results.read_rows(os.path.join(d, "results.csv")), os.path.join(d, "plots"))
print("%s: %d plots%s" % (d, len(made), "; " + reason if reason else ""))
EOF
      n=$((n + 1))
    done < <(find "$@" -name results.csv -print0 | sort -z)
    [ "$n" -gt 0 ] || { echo "regenerate: no sweep folder (results.csv + table.txt) under $*" >&2; exit 1; }
    ;;
  restore)
    [ $# -gt 0 ] || set -- "$RESULTS"
    paths=()
    for p in "$@"; do
      p=$(realpath -m -- "$p")
      case $p in "$REPO" | "$REPO"/*) paths+=(".${p#"$REPO"}") ;; *) echo "regenerate: $p is not in $REPO" >&2; exit 2 ;; esac
    done
    set -- "${paths[@]}" # ./bench/results...: relative to the repository root
    cd "$REPO"
    n=0
    for c in $(git log --format=%H --diff-filter=D -- "$@"); do
      while IFS= read -r -d '' f; do
        [ -e "$f" ] && continue
        git check-ignore -q --no-index -- "$f" || continue # only what .gitignore keeps out
        d=$(dirname "$f")
        while case ${d##*/} in raw | plots | logs) true ;; *) false ;; esac; do d=$(dirname "$d"); done
        [ -d "$d" ] || continue # its folder left the work tree: not brought back piecemeal
        mkdir -p "$(dirname "$f")"
        git cat-file blob "$c^:$f" >"$f"
        n=$((n + 1))
      done < <(git diff -z --name-only --diff-filter=D "$c^" "$c" -- "$@")
    done
    echo "regenerate: restored $n file(s) under $*"
    ;;
  commands)
    [ $# -gt 0 ] || usage
    for d in "$@"; do
      r=$d/README.md
      [ -f "$r" ] || { echo "regenerate: $r not found" >&2; exit 1; }
      echo "# $d (from $r; run from the repository root)"
      if grep -q '^    \$ ' "$r"; then
        sed -n 's/^    \([$#] .*\)/\1/p' "$r"
      else # a sweep's README: "Command (from DIR):", a blank line, the indented command
        awk '/^Command \(from /{c=1; next} c && /^    /{sub(/^    /, "$ "); print; exit}' "$r"
      fi
    done
    ;;
  *) usage ;;
esac
