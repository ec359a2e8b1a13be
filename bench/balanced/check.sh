#!/usr/bin/env bash
# check.sh MPIEXEC PAT_B2B LIBPAT_MPI WORKDIR: the ctest bench.b2b.np2.
# pat-b2b at P = 2 on shared memory, two tiny sizes, a few calls:
#  1. under LD_PRELOAD of libpat_mpi: exit 0, "libpat: yes", one table row per
#     size, the summary line with no wrong bytes and "libpat ran N of N", and a
#     CSV with its header and sizes x rounds x 2 rows (positive times, libpat's
#     algorithm named on every MPI_Allgather row);
#  2. without the preload and with --require-libpat: "libpat: no", exit 4;
#  3. --inject-error (a spoilt byte on the last rank): WRONG RESULTS, exit 1.
# Results and formats only, never timings.
set -u
mpiexec=$1 b2b=$2 lib=$3 work=$4
mkdir -p "$work"
out=$work/preload.txt csv=$work/preload.csv
fail=0
bad() { echo "FAIL: $*"; fail=1; }
launch() { "$mpiexec" -np 2 --oversubscribe --bind-to none "$@"; }

launch -x LD_PRELOAD="$lib" -x PAT_ALG=auto "$b2b" --sizes 8,1k --rounds 3 --calls 5 --warmup-rounds 1 \
  --bootstrap 200 --require-libpat --csv "$csv" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc = 0 ] || bad "pat-b2b under the preload exited $rc"
grep -q '^libpat: yes' "$out" || bad "no 'libpat: yes' line"
for size in '8 B' '1 KiB'; do
  grep -Eq "^ *$size +5 +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ +\[[0-9.]+, [0-9.]+\] +[0-9.]+  [a-z]+ [0-9]+%" "$out" ||
    bad "no table row for $size"
done
grep -Eq '^summary: 2 sizes, geometric mean of ratios [0-9.]+ \[95% CI [0-9.]+, [0-9.]+\], worst [0-9.]+ at (8 B|1 KiB) .*; wrong bytes 0; libpat ran ([0-9]+) of \2 MPI_Allgather calls; total [0-9.]+ s$' "$out" ||
  bad "summary line missing or wrong"
if [ -s "$csv" ]; then
  head -1 "$csv" | grep -qx 'P,size_bytes,round,impl,first,calls,max_us,mean_us,min_us,libpat_algs' ||
    bad "CSV header: $(head -1 "$csv")"
  awk -F, 'NR > 1 {
      rows++
      if ($1 != 2 || ($2 != 8 && $2 != 1024) || $3 < 0 || $3 > 2 || $6 != 5) bad = bad " fields@" NR
      if (!($7 > 0 && $8 > 0 && $9 > 0 && $9 <= $8 && $8 <= $7)) bad = bad " times@" NR
      if ($4 == "MPI_Allgather") { mpi++; if ($10 !~ /^[a-z]+=5$/) bad = bad " algs@" NR }
      else if ($4 == "PMPI_Allgather") { pmpi++; if ($10 != "") bad = bad " algs@" NR }
      else bad = bad " impl@" NR
      first[$2 "," $3] += $5
    }
    END {
      for (k in first) if (first[k] != 1) bad = bad " first@" k
      if (rows != 12 || mpi != 6 || pmpi != 6) bad = bad " rows=" rows
      if (bad != "") { print "CSV:" bad; exit 1 }
    }' "$csv" || bad "CSV rows"
else
  bad "no CSV written"
fi

out=$work/nopreload.txt
launch "$b2b" --sizes 8 --rounds 2 --calls 2 --require-libpat >"$out" 2>&1
rc=$?
cat "$out"
[ $rc = 4 ] || bad "without the preload, --require-libpat should exit 4, not $rc"
grep -q '^libpat: no (libpat_mpi is not loaded' "$out" || bad "no 'libpat: no' line without the preload"

out=$work/inject.txt
launch -x LD_PRELOAD="$lib" "$b2b" --sizes 8 --rounds 2 --calls 2 --inject-error >"$out" 2>&1
rc=$?
cat "$out"
[ $rc = 1 ] || bad "--inject-error should exit 1, not $rc"
grep -q '^pat-b2b: WRONG RESULTS' "$out" || bad "--inject-error: the spoilt bytes were not reported"

[ $fail = 0 ] && echo "pat-b2b check: passed" || echo "pat-b2b check: FAILED"
exit $fail
