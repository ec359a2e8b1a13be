#!/usr/bin/env python3
"""sweep.csv -> markdown: per cell (N, counts, maxDelay), the commit before (old) and after (new):
e-bar in ms (e-bar/e_lb) of NATIVE, auto and RELAY, NATIVE/auto, what auto ran, and new/old for auto."""
import csv
import sys
from collections import defaultdict

cells = defaultdict(dict)  # (N, counts, delay) -> {(which, alg): row}
for r in csv.DictReader(open(sys.argv[1])):
    which, counts, delay = r["label"].split("/")
    cells[(int(r["N"]), counts, int(delay))][(which, r["alg"])] = r


def ebar(c, which, alg):
    return float(c[(which, alg)]["ebar_us"]) / 1e3


def show(c, which, alg):
    if (which, alg) not in c:
        return "-"
    return f"{ebar(c, which, alg):.1f} ({float(c[(which, alg)]['ebar_over_elb']):.2f})"


print("| N | counts | maxDelay | ē_lb | NATIVE old / new | RELAY old / new | auto old → new | "
      "NATIVE/auto old → new | auto ran old → new | auto new/old |")
print("|---" * 10 + "|")
for key in sorted(cells):
    c = cells[key]
    n, counts, delay = key
    elb = float(c[("new", "auto")]["elb_us"]) / 1e3 if ("new", "auto") in c else float("nan")
    ratio = " → ".join(f"{ebar(c, w, 'native') / ebar(c, w, 'auto'):.2f}" for w in ("old", "new")
                       if (w, "auto") in c and (w, "native") in c)
    ran = " → ".join(c[(w, "auto")]["chosen"] for w in ("old", "new") if (w, "auto") in c)
    change = (f"{ebar(c, 'new', 'auto') / ebar(c, 'old', 'auto'):.3f}"
              if ("new", "auto") in c and ("old", "auto") in c else "-")
    print(f"| {n // 1048576}M | {counts} | {delay} | {elb:.1f} | {show(c, 'old', 'native')} / {show(c, 'new', 'native')} | "
          f"{show(c, 'old', 'relay')} / {show(c, 'new', 'relay')} | {show(c, 'old', 'auto')} → {show(c, 'new', 'auto')} | "
          f"{ratio} | {ran} | {change} |")
