#!/usr/bin/env bash
# expect.sh [--fail] [--match REGEX]... [--absent REGEX]... -- command...
# Runs the command, shows its output, and passes if it exited 0 (non-zero
# with --fail) and its output (stdout and stderr) matches every --match and
# no --absent extended regular expression.
set -u
want_fail=0
match=()
absent=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fail) want_fail=1; shift ;;
    --match) match+=("$2"); shift 2 ;;
    --absent) absent+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out"
bad=0
if [ "$want_fail" = 1 ] && [ "$rc" = 0 ]; then echo "expect.sh: the command should have failed" >&2; bad=1; fi
if [ "$want_fail" = 0 ] && [ "$rc" != 0 ]; then echo "expect.sh: the command failed (exit $rc)" >&2; bad=1; fi
for re in ${match[@]+"${match[@]}"}; do
  grep -Eq -- "$re" "$out" || { echo "expect.sh: no line matches: $re" >&2; bad=1; }
done
for re in ${absent[@]+"${absent[@]}"}; do
  if grep -Eq -- "$re" "$out"; then echo "expect.sh: a line should not match: $re" >&2; bad=1; fi
done
exit $bad
