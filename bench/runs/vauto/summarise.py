#!/usr/bin/env python3
"""Summarise minibench.csv of run.sh cluster (the table: bench/runs/vcells.py), and write
figures/cells-<N>.dat for plot.gp."""
import csv, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import vcells  # bench/runs/vcells.py

# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-vauto")
cells = vcells.read_cells(csv.DictReader(open(os.path.join(here, "minibench.csv"))))
algs = ["native", "auto", "relay", "direct"]
vcells.print_table(cells, algs)

# figures/cells-<N>.dat for plot.gp: one line per cell, ē/ē_lb of each algorithm
os.makedirs(os.path.join(here, "figures"), exist_ok=True)
short = {"1048576": "1M", "4194304": "4M"}
for N in sorted({k[0] for k in cells}):
    with open(os.path.join(here, "figures", f"cells-{short.get(N, N)}.dat"), "w") as f:
        f.write("# cell " + " ".join(algs) + "  (ē/ē_lb)\n")
        for (n, counts, delay), v in cells.items():
            if n == N:
                f.write(f"\"{counts} {delay}\" " + " ".join(f"{v[a]['r']:.3f}" if a in v else "NaN" for a in algs) + "\n")
