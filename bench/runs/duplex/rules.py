#!/usr/bin/env python3
"""Offline check of three ways to predict a cell of the committed P = 8 sweep
(bench/results/2026-11-23-gap/sweep-cluster-p8/results.csv) with pat-model,
no cluster needed:

  as-auto   the model file's measured balanced level + the replay's response
            to the pattern (what auto predicts today);
  pp-replay the replay alone at the ping-pong rate of the link (alpha 130 us,
            beta 1.56e-8 s/B: 8.2 ms per 512 KiB at 500 Mbit/s);
  max       the larger of the measured level and pp-replay.

    python3 bench/runs/duplex/rules.py [build/pat-model]

Prints the per-cell table and, per algorithm, the median and worst relative
error (predicted - measured) / measured and the cells within 15%."""
import csv
import os
import subprocess
import sys

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
pat_model = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "pat-model")
model = os.path.join(root, "bench/results/2026-11-23-gap/model/cluster-p8.model")
results = os.path.join(root, "bench/results/2026-11-23-gap/sweep-cluster-p8/results.csv")
algs = ["ring", "direct", "bdr", "ard", "relay"]
meas = {(int(r["N"]), float(r["max_delay_ms"]), r["alg"]): float(r["ebar_us"]) / 1e3 for r in csv.DictReader(open(results))}


def ms(v, unit):
    return float(v) * {"ms": 1.0, "us": 1e-3, "s": 1e3}[unit]


def run(args, N, d):
    out = subprocess.run([pat_model] + args + ["--P", "8", "--N", str(N), "--max-delay", "%dms" % d, "--reps", "50",
                                               "--algs", ",".join(algs)], capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        w = line.split()
        if w and w[0] in algs:  # alg ebar unit r unit ebar/lb [as-auto unit]
            res[w[0]] = (ms(w[1], w[2]), ms(w[6], w[7]) if len(w) > 7 else None)
    return res


rules = ["as-auto", "pp-replay", "max"]
errs = {(a, k): [] for a in algs for k in rules}
print("| N | maxDelay | " + " | ".join("%s: measured / as-auto / pp-replay / max" % a for a in algs) + " |")
print("|---|---|" + "---|" * len(algs))
for N in (262144, 1048576, 2097152):
    level = run(["--model", model], N, 0)
    for d in (0, 10, 50, 100):
        pp = run(["--alpha", "130us", "--beta", "1.56e-8"], N, d)
        auto = run(["--model", model], N, d)
        cells = []
        for a in algs:
            m = meas[(N, float(d), a)]
            pred = {"as-auto": auto[a][1], "pp-replay": pp[a][0], "max": max(level[a][1], pp[a][0])}
            for k in rules:
                errs[(a, k)].append((pred[k] - m) / m)
            cells.append("%.1f / %.1f / %.1f / %.1f" % (m, pred["as-auto"], pred["pp-replay"], pred["max"]))
        print("| %s | %d ms | %s |" % ({262144: "256K", 1048576: "1M", 2097152: "2M"}[N], d, " | ".join(cells)))
print()
print("| algorithm | " + " | ".join(rules) + " |")
print("|---|---|---|---|")
for a in algs:
    row = []
    for k in rules:
        e = errs[(a, k)]
        row.append("%.0f%% / %+.0f%%, %d" % (100 * sorted(abs(x) for x in e)[len(e) // 2], 100 * max(e, key=abs),
                                             sum(abs(x) <= 0.15 for x in e)))
    print("| %s | %s |" % (a, " | ".join(row)))
print()
print("each: median |error| / worst error, cells within 15% of 12")
