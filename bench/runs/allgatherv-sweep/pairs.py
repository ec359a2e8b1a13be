#!/usr/bin/env python3
"""The replay against measured calls: for every measured call of a minibench --trace CSV, replay the same
algorithm under the same arrivals with two pat-model binaries (before and after a model change) and
compare auto's prediction (pat-model's as-auto column: the model file's measured balanced time plus the
replay's response to the pattern) with the call's measured e-bar.

    pairs.py --model FILE --old OLD/pat-model --new build/pat-model TRACE:N [TRACE:N ...] > pairs.md

TRACE: a minibench --trace CSV (equal blocks); N: its --N (1M, 4M). Prints one markdown row per trace
and algorithm: calls, measured mean e-bar, each binary's mean prediction and its ratio to measured."""
import argparse
import collections
import csv
import os
import subprocess
import tempfile


def predict(binary, model, n, arrivals, alg):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as fh:
        for rank, t in enumerate(arrivals):
            fh.write(f"{rank},{t}\n")
    out = subprocess.run([binary, "--model", model, "--P", str(len(arrivals)), "--N", n, "--pap", "csv", "--csv",
                          fh.name, "--algs", alg, "--pace", "link"], capture_output=True, text=True, check=True).stdout
    os.unlink(fh.name)
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == alg:
            value, unit = float(w[6]), w[7]
            return value * {"s": 1e3, "ms": 1.0, "us": 1e-3}[unit]
    raise SystemExit(f"{binary}: no as-auto prediction for {alg}")


ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--model", required=True)
ap.add_argument("--old", required=True)
ap.add_argument("--new", required=True)
ap.add_argument("traces", nargs="+")
a = ap.parse_args()
print("| trace (N, maxDelay) | algorithm | calls | measured ē ms | predicted before (ratio) | predicted after (ratio) |")
print("|---|---|---|---|---|---|")
for spec in a.traces:
    path, n = spec.rsplit(":", 1)
    calls = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["phase"] == "measured":
            calls[(r["alg"], int(r["iter"]))][int(r["rank"])] = (float(r["a_us"]), float(r["f_us"]))
    for alg in sorted({k[0] for k in calls}):
        measured, old, new, count = 0.0, 0.0, 0.0, 0
        for (which, _), d in sorted(calls.items()):
            if which != alg:
                continue
            a0 = min(d[r][0] for r in d)
            arrivals = [(d[r][0] - a0) * 1e-6 for r in sorted(d)]
            measured += sum(d[r][1] - d[r][0] for r in d) / len(d) / 1e3
            old += predict(a.old, a.model, n, arrivals, alg)
            new += predict(a.new, a.model, n, arrivals, alg)
            count += 1
        m, o, w = measured / count, old / count, new / count
        print(f"| {os.path.basename(path)} ({n}) | {alg} | {count} | {m:.1f} | {o:.1f} ({o / m:.3f}) | {w:.1f} ({w / m:.3f}) |")
