#!/usr/bin/env python3
"""Summarise minibench.csv of run.sh cluster: per cell (N, distribution, maxDelay) and algorithm,
ē, ē/ē_lb (e_lb with a transfer time per block) and NATIVE's ē over the algorithm's (> 1: faster
than MPI's own MPI_Allgatherv)."""
import csv, collections, os
# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-allgatherv")
cells = collections.OrderedDict()
for row in csv.DictReader(open(os.path.join(here, "minibench.csv"))):
    counts, delay = row["label"].split("/")
    key = (row["N_requested"], counts, delay)
    cells.setdefault(key, {})[row["alg"]] = (float(row["ebar_us"]) / 1000, float(row["ebar_over_elb"]),
                                              float(row["elb_us"]) / 1000, int(row["errors"]))
algs = ["ring", "direct", "relay", "bdr", "native"]
print("| N | blocks | maxDelay | ē_lb ms | " + " | ".join(f"{a} ē ms (ē/ē_lb)" for a in algs) +
      " | best libpat vs NATIVE |")
print("|---|---|---|---|" + "---|" * len(algs) + "---|")
for (N, counts, delay), v in cells.items():
    elb = next(iter(v.values()))[2]
    best = min((v[a][0], a) for a in algs if a in v and a != "native")
    ratio = v["native"][0] / best[0] if "native" in v else float("nan")
    row = " | ".join(f"{v[a][0]:.1f} ({v[a][1]:.2f})" if a in v else "-" for a in algs)
    bad = sum(x[3] for x in v.values())
    print(f"| {N} | {counts} | {delay} ms | {elb:.1f} | {row} | {best[1]} {ratio:.2f}x"
          + (f" ({bad} data errors)" if bad else "") + " |")
