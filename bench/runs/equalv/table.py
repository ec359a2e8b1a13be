#!/usr/bin/env python3
"""sweep.csv -> markdown: per cell (N, maxDelay) and algorithm, each round's e-bar in ms and
e-bar/e_lb, then NATIVE/auto per round (the two come from one launch)."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
cells = defaultdict(dict)  # (N, delay) -> {(round, alg): row}
for r in rows:
    _, delay, rnd = r["label"].split("/")
    cells[(int(r["N"]), int(delay))][(rnd, r["alg"])] = r
algs = ["native", "auto", "relay", "direct"]
print("| N floats | maxDelay ms | ē_lb ms | " + " | ".join(f"{a} ē ms (ē/ē_lb)" for a in algs) +
      " | NATIVE/auto | auto ran |")
print("|---" * (len(algs) + 5) + "|")
for (n, delay) in sorted(cells):
    c = cells[(n, delay)]
    rounds = sorted({k[0] for k in c})
    def show(alg):
        return " / ".join(f"{float(c[(k, alg)]['ebar_us']) / 1e3:.1f} ({float(c[(k, alg)]['ebar_over_elb']):.2f})"
                          for k in rounds if (k, alg) in c)
    elb = " / ".join(f"{float(c[(k, 'auto')]['elb_us']) / 1e3:.1f}" for k in rounds if (k, "auto") in c)
    ratio = " / ".join(f"{float(c[(k, 'native')]['ebar_us']) / float(c[(k, 'auto')]['ebar_us']):.2f}"
                       for k in rounds if (k, "auto") in c and (k, "native") in c)
    ran = " / ".join(c[(k, "auto")]["chosen"] for k in rounds if (k, "auto") in c)
    print(f"| {n} | {delay} | {elb} | " + " | ".join(show(a) for a in algs) + f" | {ratio} | {ran} |")
