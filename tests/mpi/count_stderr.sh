#!/usr/bin/env bash
# usage: count_stderr.sh PATTERN COUNT command...
# Runs the command; passes if it succeeds and PATTERN occurs exactly COUNT
# times in its standard error.
pattern=$1 count=$2
shift 2
err=$(mktemp)
"$@" 2> >(tee "$err" >&2)
rc=$?
sleep 0.2
found=$(grep -c -- "$pattern" "$err")
rm -f "$err"
echo "'$pattern' on stderr: $found time(s), expected $count"
[ "$rc" -eq 0 ] && [ "$found" -eq "$count" ]
