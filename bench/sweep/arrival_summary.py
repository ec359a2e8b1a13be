#!/usr/bin/env python3
"""The arrival-aware algorithms against the classic ones, per cell of a sweep.

    python3 bench/sweep/arrival_summary.py bench/results/<sweep folder> [--stat mean|median]

For every (P, N, maxDelay) cell of <folder>/results.csv: the best classic
algorithm (NATIVE included) and its ebar, then BDR, BSLB, ARD and auto as
ebar and ebar/ebar_lb, and the ratios the ARD issue asks for:
  classic/ARD   speed-up of ARD over the best classic algorithm (> 1: ARD faster)
  ARD/BDR       ARD's ebar over BDR's (<= 1.05 wanted in imbalanced cells)
then a summary: ARD's best cell, its worst cell against BDR, its loss at
maxDelay 0, and what auto ran at maxDelay 0.  Markdown on stdout.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pat_results as pr  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--stat", choices=("mean", "median"), default="mean")
    a = ap.parse_args()
    col = pr.STATS[a.stat]
    rows = pr.read_rows(os.path.join(a.folder, "results.csv"))
    table = pr.cells(rows)

    def val(r, c=col):
        return pr.fnum(r.get(c)) if r is not None and pr.usable(r) else None

    print("ebar (%s, ms) and ebar/ebar_lb per cell; classic/ARD > 1: ARD faster than the best classic "
          "algorithm; ARD/BDR < 1: ARD faster than BDR.\n" % a.stat)
    print("| P | N | maxDelay | best classic | BDR | BSLB | ARD | auto (ran) | classic/ARD | ARD/BDR |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    speedups, vs_bdr, flat = [], [], []
    for key in sorted(table):
        P, N, d, unit = key
        algs = table[key]
        classic = {x: val(r) for x, r in algs.items() if pr.base_alg(x) in pr.CLASSIC and "#" not in x and val(r)}
        if not classic:
            continue
        bc = min(classic, key=classic.get)

        def cell(name):
            r = algs.get(name)
            e, lb = val(r), val(r, "ebar_over_elb")
            if e is None:
                return "—"
            return "%.2f (%.2f)" % (e / 1e3, lb) if lb else "%.2f" % (e / 1e3)

        ard, bdr = val(algs.get("ard")), val(algs.get("bdr"))
        su = classic[bc] / ard if ard else None
        rb = ard / bdr if ard and bdr else None
        auto = algs.get("auto")
        ran = (auto.get("chosen") or "").replace(";", " ") if auto else ""
        dl = pr.fmt_delay(d, unit)
        if su:
            speedups.append((su, P, N, dl))
            if d == 0:
                flat.append((1 / su, P, N, ran))
        if rb and d > 0:
            vs_bdr.append((rb, P, N, dl))
        print("| %d | %s | %s | %s %.2f | %s | %s | %s | %s [%s] | %s | %s |" % (
            P, pr.human_count(N), dl, bc, classic[bc] / 1e3, cell("bdr"), cell("bslb"), cell("ard"),
            cell("auto"), ran, "%.2f" % su if su else "—", "%.2f" % rb if rb else "—"))
    print()
    if speedups:
        s = max(speedups)
        print("- ARD's best cell: %.2fx faster than the best classic algorithm (P=%d, N=%s, maxDelay %s)" % (
            s[0], s[1], pr.human_count(s[2]), s[3]))
    if vs_bdr:
        w = max(vs_bdr)
        n_ok = sum(1 for x in vs_bdr if x[0] <= 1.05)
        print("- ARD against BDR in imbalanced cells: worst ARD/BDR = %.2f (P=%d, N=%s, maxDelay %s); "
              "within 5%% of BDR or faster in %d of %d cells" % (w[0], w[1], pr.human_count(w[2]), w[3], n_ok,
                                                                len(vs_bdr)))
    for loss, P, N, ran in flat:
        print("- maxDelay 0, N=%s: ARD/best classic = %.2f; auto ran %s" % (pr.human_count(N), loss, ran or "?"))


if __name__ == "__main__":
    main()
