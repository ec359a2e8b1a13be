#!/usr/bin/env python3
"""cells.md from bench/nodes/run.sh's cells.csv: per cell (N, maxDelay) and algorithm, the median over
rounds of each launch's mean e-bar, of e-bar/e_lb (the two-level bound where ranks share nodes), the
compute phases' lateness, what auto ran, and the ratio of the best of NATIVE, HAN and the classic
algorithms to each arrival-aware one.  A 95% interval of the median (order statistics) where there are
at least 6 rounds, else the range.

    python3 bench/nodes/table.py cells.csv [FIGURE.dat] > cells.md

With FIGURE.dat it also writes, per algorithm, the median e-bar (ms) of each cell in columns (the
data of bench/nodes/plot.gp's figure).
"""
import csv
import statistics
import sys
from collections import defaultdict

CLASSIC_OR_MPI = {"native", "han", "ring", "direct", "hring", "nex", "rdb", "bruck"}


def spread(xs):
    xs = sorted(xs)
    if len(xs) >= 6:  # the interval of the median from binomial order statistics, ~95%
        lo, hi = {6: (0, 5), 7: (0, 6), 8: (0, 7), 9: (1, 7), 10: (1, 8)}.get(len(xs), (1, len(xs) - 2))
        return f"[{xs[lo]:.1f}, {xs[hi]:.1f}]"
    return f"{xs[0]:.1f}-{xs[-1]:.1f}" if len(xs) > 1 else ""


def main(path, dat=None):
    rows = list(csv.DictReader(open(path)))
    cells = defaultdict(lambda: defaultdict(list))
    chosen = defaultdict(list)
    P = tau = None
    for r in rows:
        rnd, n, d, alg = r["label"].split("/")
        key = (n, int(d))
        P, tau = r["P"], r["tau_us"]
        cells[key][alg].append((float(r["ebar_us"]) / 1000, float(r["ebar_over_elb"] or "nan"),
                                float(r["compute_late_us"] or 0) / 1000))
        if alg == "auto":
            chosen[key].append(r["chosen"])
    print(f"# Emulated cluster with nodes: P = {P} ({path})\n")
    print("Median over rounds of each launch's mean e-bar (ms), its range or 95% interval, e-bar/e_lb "
          "(two-level bound), compute phases' mean lateness (ms); last column: best of NATIVE, HAN and "
          "the classic ones over this algorithm.\n")
    for key in sorted(cells):
        algs = cells[key]
        med = {a: statistics.median(x[0] for x in v) for a, v in algs.items()}
        best_classic = min((m for a, m in med.items() if a in CLASSIC_OR_MPI), default=float("nan"))
        best_any = min(med.values())
        print(f"## N = {key[0]}, maxDelay = {key[1]} ms\n")
        print("| alg | rounds | e-bar ms | spread | e/e_lb | late ms | best classic/MPI over it | over the fastest |")
        print("|---|---|---|---|---|---|---|---|")
        for a in sorted(algs, key=lambda a: med[a]):
            v = algs[a]
            print(f"| {a} | {len(v)} | {med[a]:.1f} | {spread([x[0] for x in v])} | "
                  f"{statistics.median(x[1] for x in v):.2f} | {statistics.median(x[2] for x in v):.1f} | "
                  f"{best_classic / med[a]:.2f} | {med[a] / best_any:.3f} |")
        if chosen.get(key):
            print(f"\nauto ran: {'; '.join(chosen[key])}")
        print()
    if dat:
        keys = sorted(cells)
        algs = sorted({a for k in keys for a in cells[k]},
                      key=lambda a: statistics.median(x[0] for x in cells[keys[-1]].get(a, [(0,)])))
        with open(dat, "w") as f:
            f.write("alg " + " ".join(f"N={k[0]},maxDelay={k[1]}ms" for k in keys) + "\n")
            for a in algs:
                f.write(a + " " + " ".join(f"{statistics.median(x[0] for x in cells[k][a]):.1f}"
                                           if a in cells[k] else "NaN" for k in keys) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
