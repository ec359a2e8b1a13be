#!/usr/bin/env python3
"""Table of nap-vs-spin.txt (run.sh nap): per maxDelay and algorithm the
median e-bar over the rounds with PAT_WAIT_NAP=0 (spinning in MPI) and
with the default naps, their ratio, and the probe's medians."""
import re
import statistics
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "nap-vs-spin.txt"
runs, probe, key = {}, {"relay": [], "direct": []}, None
for line in open(path):
    m = re.match(r"round (\d+) maxDelay (\d+) PAT_WAIT_NAP=(\S+)", line)
    if m:
        key = (int(m.group(2)), m.group(3))
        continue
    m = re.match(r"mode (\w+) B \d+ maxDelay \d+ ms: ebar ([\d.]+) ms", line)
    if m:
        probe[m.group(1)].append(float(m.group(2)))
        continue
    w = line.split()
    if key and len(w) > 3 and w[1] == "ok":
        runs.setdefault(key + (w[0],), []).append(float(w[2]) / 1000)
print("| maxDelay | algorithm | spin (PAT_WAIT_NAP=0) ē ms | nap (default) ē ms | nap / spin | rounds |")
print("|---|---|---|---|---|---|")
for d in sorted({k[0] for k in runs}):
    for alg in ["native", "ring", "direct", "bdr", "ard", "relay"]:
        s, n = runs.get((d, "0", alg), []), runs.get((d, "model", alg), [])
        if not s or not n:
            continue
        ms, mn = statistics.median(s), statistics.median(n)
        print(f"| {d} ms | {alg} | {ms:.1f} | {mn:.1f} | {mn / ms:.3f} | {len(s)} |")
for mode, v in probe.items():
    if v:
        print(f"\nprobe ../shared/probes/relay.c mode {mode}, maxDelay 100 ms: median ē {statistics.median(v):.1f} ms "
              f"({', '.join(f'{x:.1f}' for x in v)})")
