#!/usr/bin/env python3
"""Summarise minibench.csv of run.sh cluster: per cell (P, N, model file or not, maxDelay), variant (old:
the build before the change, new: this one) and algorithm, the median over the two launches of ē ms,
the launches' values, ē/ē_lb, and what auto ran; auto over the fastest algorithm of the same launches
and NATIVE over auto (> 1: auto faster than MPI's own).  Writes figures/cells.dat for plot.gp.
`summarise.py relay-balanced.csv`: the same table for run.sh relay."""
import csv, collections, os, statistics, sys
# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-learn")
name = sys.argv[1] if len(sys.argv) > 1 else "minibench.csv"  # another CSV: its table only, no figure data
runs = collections.defaultdict(list)
for row in csv.DictReader(open(os.path.join(here, name))):
    v, P, N, d, rnd, model = row["label"].split("/")
    runs[(P, N, model or "none", d, v, row["alg"])].append(
        (float(row["ebar_us"]) / 1000, float(row["ebar_over_elb"]), row["chosen"]))
cells = sorted({k[:4] for k in runs}, key=lambda c: (-int(c[0][1:]), c[2], int(c[3])))
algs = ["native", "ring", "relay", "auto"]
med = lambda k: statistics.median(x[0] for x in runs[k])
print("| P | N | model file | maxDelay | variant | " + " | ".join(f"{a} ē ms" for a in algs) +
      " | auto ē/ē_lb | auto ran (launch 1; launch 2) | auto / fastest | NATIVE / auto |")
print("|---|---|---|---|---|" + "---|" * len(algs) + "---|---|---|---|")
dat = []
for c in cells:
    for v in ("old", "new"):
        k = lambda a: c + (v, a)
        if k("auto") not in runs:
            continue
        vals = " | ".join(f"{med(k(a)):.1f} ({', '.join(f'{x[0]:.1f}' for x in runs[k(a)])})" for a in algs)
        fastest = min(med(k(a)) for a in algs)
        r = statistics.median(x[1] for x in runs[k("auto")])
        ran = "; ".join(x[2] for x in runs[k("auto")])
        print(f"| {c[0][1:]} | {c[1]} | {c[2]} | {c[3]} ms | {v} | {vals} | {r:.2f} | {ran} | "
              f"{med(k('auto')) / fastest:.2f} | {med(k('native')) / med(k('auto')):.2f} |")
    dat.append((c, {v: med(c + (v, "auto")) for v in ("old", "new")}, med(c + ("new", "native")),
                min(med(c + (v, a)) for v in ("old", "new") for a in ("ring", "relay"))))
if name != "minibench.csv":
    sys.exit(0)
os.makedirs(os.path.join(here, "figures"), exist_ok=True)
with open(os.path.join(here, "figures", "cells.dat"), "w") as f:
    f.write("# cell  native  auto-old  auto-new  best-of-ring-relay  (ē ms over NATIVE's: NATIVE = 1)\n")
    for c, auto, native, best in dat:
        name = f"P={c[0][1:]}" + (" model" if c[2] == "model" else "") + f", {c[3]} ms"
        f.write(f"\"{name}\" 1.000 {auto['old'] / native:.3f} {auto['new'] / native:.3f} {best / native:.3f}\n")
