#!/usr/bin/env python3
"""Summarise minibench.csv of run.sh cluster: per cell (N, distribution, maxDelay) and algorithm,
ē ms ± its 95% interval and ē/ē_lb (ē_lb with a transfer time per block); what auto ran; and
NATIVE's ē over auto's (> 1: auto faster than MPI's own MPI_Allgatherv), the interval of that
ratio from the two intervals (first order)."""
import csv, collections, os
# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-vauto")
cells = collections.OrderedDict()
for row in csv.DictReader(open(os.path.join(here, "minibench.csv"))):
    counts, delay = row["label"].split("/")
    key = (row["N_requested"], counts, delay)
    cells.setdefault(key, {})[row["alg"]] = dict(e=float(row["ebar_us"]) / 1000, ci=float(row["ebar_ci95_us"]) / 1000,
                                                 r=float(row["ebar_over_elb"]), elb=float(row["elb_us"]) / 1000,
                                                 err=int(row["errors"]), chosen=row["chosen"])
algs = ["native", "auto", "relay", "direct"]
print("| N floats | blocks | maxDelay | ē_lb ms | " + " | ".join(f"{a} ē ms (ē/ē_lb)" for a in algs) +
      " | auto ran | NATIVE/auto |")
print("|---|---|---|---|" + "---|" * len(algs) + "---|---|")
for (N, counts, delay), v in cells.items():
    elb = next(iter(v.values()))["elb"]
    row = " | ".join(f"{v[a]['e']:.1f}±{v[a]['ci']:.1f} ({v[a]['r']:.2f})" if a in v else "-" for a in algs)
    ratio = "-"
    if "native" in v and "auto" in v:
        n, a = v["native"], v["auto"]
        q = n["e"] / a["e"]
        ci = q * ((n["ci"] / n["e"]) ** 2 + (a["ci"] / a["e"]) ** 2) ** 0.5
        ratio = f"{q:.2f}±{ci:.2f}"
    bad = sum(x["err"] for x in v.values())
    print(f"| {N} | {counts} | {delay} ms | {elb:.1f} | {row} | {v.get('auto', {}).get('chosen', '-')} | {ratio}"
          + (f" ({bad} data errors)" if bad else "") + " |")

# figures/cells-<N>.dat for plot.gp: one line per cell, ē/ē_lb of each algorithm
os.makedirs(os.path.join(here, "figures"), exist_ok=True)
short = {"1048576": "1M", "4194304": "4M"}
for N in sorted({k[0] for k in cells}):
    with open(os.path.join(here, "figures", f"cells-{short.get(N, N)}.dat"), "w") as f:
        f.write("# cell " + " ".join(algs) + "  (ē/ē_lb)\n")
        for (n, counts, delay), v in cells.items():
            if n == N:
                f.write(f"\"{counts} {delay}\" " + " ".join(f"{v[a]['r']:.3f}" if a in v else "NaN" for a in algs) + "\n")
