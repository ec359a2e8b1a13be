#!/usr/bin/env bash
# usage: leak_check.sh SOURCE_DIR command...
# Runs an AddressSanitizer build of a test.  Fails if the test fails, if
# AddressSanitizer finds a memory error, or if LeakSanitizer reports a leak
# allocated from libpat's own code (a stack frame in SOURCE_DIR's src/, pat/
# or algorithms/).  Leaks inside Open MPI and its plugins are not ours to fix
# and are ignored.
src=$1
shift
report=$(mktemp)
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=exitcode=0 "$@" 2> >(tee "$report" >&2)
rc=$?
sleep 0.2
ours=$(awk -v s="$src" '
  /^(Direct|Indirect) leak/ { block = $0; inblock = 1; next }
  inblock && /^ *#[0-9]+/ { block = block "\n" $0; next }
  inblock { if (block ~ (s "/(src|pat|algorithms)/")) { print block; n++ } inblock = 0 }
  END { if (inblock && block ~ (s "/(src|pat|algorithms)/")) print block }' "$report")
rm -f "$report"
if [ -n "$ours" ]; then
  echo "libpat leaks:"
  echo "$ours"
  exit 1
fi
echo "no leak from libpat code"
exit $rc
