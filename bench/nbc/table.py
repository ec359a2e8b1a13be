#!/usr/bin/env python3
"""Issue 55's table from bench/nbc/run.sh's nbc.csv (labels N/delay/overlap%/mode): per cell, the mean
e-bar (ms) of MPI's own non-blocking all-gather (native), libpat's schedules, and in the persistent
launches libpat's persistent starts (relay, auto as run) against MPI's own per start; e-bar over the
receive-port bound e_lb of the same arrivals (taken from the cell's overlap launch, whose elb column is
that bound: it already lets a block reach its receiver before that one starts), and over the looser
persistent bound the minibench reports in persistent mode. One launch per cell: no intervals.

  python3 bench/nbc/table.py nbc.csv > nbc.md
"""
import csv
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cells = defaultdict(dict)  # (N, delay, pct) -> (mode, alg) -> row
    for row in csv.DictReader(open(sys.argv[1], newline="")):
        n, delay, pct, mode = row["label"].split("/")
        if row["status"] == "ok":
            cells[(n, int(delay), pct)][(mode, row["alg"])] = row
    print("| N | maxDelay ms | compute after post | overlap: native | ring | bruck | persistent: native | "
          "prefetch (relay) | prefetch / native | prefetch e/e_lb | e/e_lb persistent bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    order = {"1M": 1, "4M": 4}
    for key in sorted(cells, key=lambda k: (order.get(k[0], 0), k[1], int(k[2]))):
        c = cells[key]
        e = lambda m, a: float(c[(m, a)]["ebar_us"]) / 1e3 if (m, a) in c else float("nan")
        elb = float(c[("overlap", "native")]["elb_us"]) / 1e3 if ("overlap", "native") in c else float("nan")
        pre, nat = e("persistent", "relay"), e("persistent", "native")
        pelb = float(c[("persistent", "relay")]["elb_us"]) / 1e3 if ("persistent", "relay") in c else float("nan")
        print("| %s | %d | %s%% | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |" % (
            key[0], key[1], key[2], e("overlap", "native"), e("overlap", "ring"), e("overlap", "bruck"), nat, pre,
            pre / nat, pre / elb, pre / pelb))


if __name__ == "__main__":
    main()
