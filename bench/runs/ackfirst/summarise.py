#!/usr/bin/env python3
"""Summarise minibench.csv of run.sh: per cell and algorithm, the mean over rounds of
ē and ē/ē_lb under each emulation, and the ratio default / ack-first."""
import csv, collections, os, statistics
# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-ackfirst")
cells = collections.defaultdict(list)
for row in csv.DictReader(open(os.path.join(here, "minibench.csv"))):
    emu = row["label"].split("/")[0]
    cells[(int(row["max_delay_ms"]), row["alg"], emu)].append(
        (float(row["ebar_us"]) / 1000, float(row["ebar_over_elb"])))
algs = ["ring", "direct", "relay", "bdr", "ard", "native"]
print("| maxDelay | alg | default ē ms (ē/ē_lb) | ack-first ē ms (ē/ē_lb) | default / ack-first |")
print("|---|---|---|---|---|")
for d in sorted({k[0] for k in cells}):
    for a in algs:
        v = {e: cells.get((d, a, e)) for e in ("default", "ack-first")}
        if not all(v.values()):
            continue
        m = {e: (statistics.mean(x[0] for x in v[e]), statistics.mean(x[1] for x in v[e])) for e in v}
        print(f"| {d} | {a} | {m['default'][0]:.1f} ({m['default'][1]:.2f}) | "
              f"{m['ack-first'][0]:.1f} ({m['ack-first'][1]:.2f}) | {m['default'][0] / m['ack-first'][0]:.2f} |")
