#!/usr/bin/env python3
"""Summarise minibench.csv of run.sh cluster: per cell (N, model file or not, instrumentation, maxDelay)
and algorithm, ē ms ± its 95% interval and ē/ē_lb; what auto ran; NATIVE's ē over auto's (> 1: auto
faster than MPI's own MPI_Allgatherv) and DIRECT's over auto's, each with the interval of the ratio
from the two intervals (first order)."""
import csv, collections, os
# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-vequal")
cells = collections.OrderedDict()
for row in csv.DictReader(open(os.path.join(here, "minibench.csv"))):
    key = (row["N_requested"], row["label"])
    cells.setdefault(key, {})[row["alg"]] = dict(e=float(row["ebar_us"]) / 1000, ci=float(row["ebar_ci95_us"]) / 1000,
                                                 r=float(row["ebar_over_elb"]), elb=float(row["elb_us"]) / 1000,
                                                 err=int(row["errors"]), chosen=row["chosen"])
algs = ["native", "auto", "relay", "direct"]
short = {"1048576": "1M", "4194304": "4M"}


def ratio(v, a, b):
    if a not in v or b not in v:
        return "-"
    x, y = v[a], v[b]
    q = x["e"] / y["e"]
    return f"{q:.2f}±{q * ((x['ci'] / x['e']) ** 2 + (y['ci'] / y['e']) ** 2) ** 0.5:.2f}"


print("| N floats | model | instrumentation | maxDelay | ē_lb ms | " +
      " | ".join(f"{a} ē ms (ē/ē_lb)" for a in algs) + " | auto ran | NATIVE/auto | DIRECT/auto |")
print("|---|---|---|---|---|" + "---|" * len(algs) + "---|---|---|")
for (N, label), v in cells.items():
    model, instr, delay = label.split("/")
    elb = next(iter(v.values()))["elb"]
    row = " | ".join(f"{v[a]['e']:.1f}±{v[a]['ci']:.1f} ({v[a]['r']:.2f})" if a in v else "-" for a in algs)
    bad = sum(x["err"] for x in v.values())
    print(f"| {short.get(N, N)} | {model} | {instr} | {delay} ms | {elb:.1f} | {row} | "
          f"{v.get('auto', {}).get('chosen', '-')} | {ratio(v, 'native', 'auto')} | {ratio(v, 'direct', 'auto')}"
          + (f" ({bad} data errors)" if bad else "") + " |")

# figures/cells.dat for plot.gp: one line per cell, ē/ē_lb of each algorithm
os.makedirs(os.path.join(here, "figures"), exist_ok=True)
with open(os.path.join(here, "figures", "cells.dat"), "w") as f:
    f.write("# cell " + " ".join(algs) + "  (ē/ē_lb)\n")
    for (N, label), v in cells.items():
        model, instr, delay = label.split("/")
        name = f"{short.get(N, N)} {delay}" + ("" if model == "model" and instr == "edges" else
                                               f" {'no model' if model == 'nomodel' else 'model'}, history")
        f.write(f"\"{name}\" " + " ".join(f"{v[a]['r']:.3f}" if a in v else "NaN" for a in algs) + "\n")
