#!/usr/bin/env python3
"""The all-reduce cells' table (bench/allreduce/cells.sh): per arrival pattern and algorithm, the
median over rounds of e-bar (ms) and e-bar / e_lb, and e-bar against the best of MPI's own and the
classic schedules (recursive doubling, ring, Rabenseifner) in the same pattern.

    python3 bench/allreduce/table.py OUT/cells.csv > OUT/table.md
    python3 bench/allreduce/table.py OUT/cells.csv --png OUT/cells.png   # and the figure (gnuplot)

The figure: per pattern, a bar per algorithm of the median e-bar, and e_lb's median as a line.
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

CLASSIC = ("native", "rdb", "ring", "rabenseifner", "hring")
ORDER = ("straggler", "late", "random", "balanced")
COLORS = {"native": "#9400d3", "rdb": "#8c564b", "ring": "#009e73", "rabenseifner": "#56b4e9", "hring": "#0072b2",
          "relay": "#e69f00", "hrelay": "#d55e00", "slt": "#cc79a7", "auto": "#f0e442"}
NAMES = {"native": "MPI's own", "rdb": "recursive doubling", "ring": "ring", "rabenseifner": "Rabenseifner",
         "hring": "HRING", "relay": "RELAY", "hrelay": "HRELAY", "slt": "SLT", "auto": "auto"}


def draw(png, cases, algs, med, elb):
    """A clustered bar chart with gnuplot: its data beside the PNG (the script is table.py's)."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        sys.exit("table.py: gnuplot not found (Debian package gnuplot-nox)")
    base = os.path.splitext(png)[0]
    with open(base + ".dat", "w") as f:
        f.write("# pattern " + " ".join(algs) + " elb\n")
        for c in cases:
            f.write(c + " " + " ".join(f"{med[c].get(a, float('nan')):.2f}" for a in algs) + f" {elb[c]:.2f}\n")
    cols = len(algs)
    plots = [f"'{os.path.basename(base)}.dat' using {i + 2}:xtic(1) title \"{NAMES.get(a, a)}\" lc rgb '{COLORS.get(a, 'gray')}'" for i, a in enumerate(algs)]
    plots.append(f"'' using 0:{cols + 2}:(0.45) with xerrorbars pt -1 lw 3 lc rgb 'black' title 'e_{{lb}}'")
    script = f"""set terminal pngcairo size 900,480 font ',10'
set output '{os.path.basename(png)}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'mean time in the call, ebar (ms)'
set yrange [0:*]
set xrange [-0.6:{len(cases) - 0.4}]
set key outside right top
set grid ytics
set title 'all-reduce under imbalanced arrivals: median ebar per algorithm, each alone in its launch'
plot {', '.join(plots)}
"""
    res = subprocess.run([gnuplot], input=script, cwd=os.path.dirname(png) or ".", capture_output=True, text=True)
    if res.returncode:
        sys.exit("table.py: gnuplot failed:\n" + res.stderr)


def main(path, png=None):
    ebar, ratio, elbs = defaultdict(list), defaultdict(list), defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            _, case, alg = row["label"].split("/")
            if row["status"] != "ok" or row["errors"] not in ("0", ""):
                print(f"note: {row['label']} status {row['status']} errors {row['errors']}", file=sys.stderr)
                continue
            ebar[case, alg].append(float(row["ebar_us"]) / 1000)
            ratio[case, alg].append(float(row["ebar_over_elb"]))
            elbs[case].append(float(row["elb_us"]) / 1000)
    cases = sorted({c for c, _ in ebar}, key=lambda c: ORDER.index(c) if c in ORDER else 9)
    algs = [a for a in NAMES if any((c, a) in ebar for c in cases)]
    print("| pattern | " + " | ".join(algs) + " | best classic / best |")
    print("|---|" + "---|" * (len(algs) + 1))
    for c in cases:
        med = {a: statistics.median(ebar[c, a]) for a in algs if (c, a) in ebar}
        cells = []
        for a in algs:
            if a not in med:
                cells.append("-")
                continue
            cells.append(f"{med[a]:.1f} ms ({statistics.median(ratio[c, a]):.2f}, n={len(ebar[c, a])})")
        classic = min(med[a] for a in CLASSIC if a in med)
        best = min(med.values())
        print(f"| {c} | " + " | ".join(cells) + f" | {classic / best:.2f} |")
    if png:
        meds = {c: {a: statistics.median(ebar[c, a]) for a in algs if (c, a) in ebar} for c in cases}
        draw(png, cases, algs, meds, {c: statistics.median(elbs[c]) for c in cases})
    print()
    print("e-bar: mean over ranks of (exit - arrival), median over rounds; in brackets e-bar / e_lb, "
          "the all-reduce's bound (docs/design.md section 1).")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--png"):
        sys.exit("usage: table.py CELLS.csv [--png FIGURE.png]")
    main(sys.argv[1], sys.argv[3] if len(sys.argv) == 4 else None)
