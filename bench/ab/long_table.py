"""long_table.py LONG.csv > long.md: the long runs of bench/ab/cluster.sh, one row per launch (auto's ē,
ē/ē_lb and what it ran) and the median ē of each library per maxDelay. Labels are LIB/ROUND/DELAY, or
LIB/ROUND where every launch had the one delay (the form of 2026-11-25-refresh, in git history at fd17eab)."""
import csv
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
if all(r["label"].count("/") == 1 for r in rows):  # one delay
    print("| library | round | auto ē ms | ē/ē_lb | ran |")
    print("|---|---|---|---|---|")
    for r in rows:
        v, k = r["label"].split("/")
        print(f"| {v} | {k} | {float(r['ebar_us']) / 1000:.1f} | {float(r['ebar_over_elb']):.3f} | {r['chosen']} |")
    for v in ("old", "new"):
        e = [float(r["ebar_us"]) / 1000 for r in rows if r["label"].startswith(v + "/")]
        print(f"\n{v}: median ē {statistics.median(e):.1f} ms over {len(e)} launches")
    sys.exit(0)
print("| library | round | maxDelay | auto ē ms | ē/ē_lb | ran |")
print("|---|---|---|---|---|---|")
for r in rows:
    v, k, d = r["label"].split("/")
    print(f"| {v} | {k} | {d} | {float(r['ebar_us']) / 1000:.1f} | {float(r['ebar_over_elb']):.3f} | {r['chosen']} |")
delays = []
for r in rows:
    d = r["label"].split("/")[2]
    if d not in delays:
        delays.append(d)
for d in delays:
    for v in ("old", "new"):
        e = [float(r["ebar_us"]) / 1000 for r in rows if r["label"].startswith(v + "/") and r["label"].endswith("/" + d)]
        print(f"\nmaxDelay {d} ms, {v}: median ē {statistics.median(e):.1f} ms over {len(e)} launches")
