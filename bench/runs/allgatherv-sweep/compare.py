#!/usr/bin/env python3
"""compare.py BEFORE.csv AFTER.csv > compare.md: per cell, NATIVE/auto of each round before and after, what
auto ran, and auto's and RELAY's mean e-bar after/before (RELAY's code did not change between the two
sweeps: its ratio is the runs' drift)."""
import csv
import math
import statistics
import sys


def load(path):
    cells = {}
    for r in csv.DictReader(open(path)):
        _, counts, delay = r["label"].split("/")
        cells.setdefault((int(r["N"]), counts, delay), {}).setdefault(r["alg"], []).append(r)
    return cells


def order(k):
    return (k[0], ("equalv", "onebig", "ramp").index(k[1]), k[2].endswith("+size"), int(k[2].split("+")[0]))


def ebars(cell, alg):
    return [float(x["ebar_us"]) for x in cell[alg]]


NAMES = {"equalv": "equal", "onebig": "one rank 4x", "ramp": "ramp"}
before, after = load(sys.argv[1]), load(sys.argv[2])
print("| N | blocks | maxDelay ms | NATIVE/auto before | after | auto ran before → after | auto ē after/before | "
      "RELAY ē after/before |")
print("|---|---|---|---|---|---|---|---|")
ra, rr = [], []
for k in sorted(after, key=order):
    b, a = before[k], after[k]
    nb = " / ".join(f"{n / x:.2f}" for n, x in zip(ebars(b, "native"), ebars(b, "auto")))
    na = " / ".join(f"{n / x:.2f}" for n, x in zip(ebars(a, "native"), ebars(a, "auto")))
    ran = " → ".join(",".join(sorted({x["chosen"] for x in c["auto"]})) for c in (b, a))
    x = statistics.mean(ebars(a, "auto")) / statistics.mean(ebars(b, "auto"))
    y = statistics.mean(ebars(a, "relay")) / statistics.mean(ebars(b, "relay"))
    ra.append(x)
    rr.append(y)
    print(f"| {k[0] // 1048576}M | {NAMES[k[1]]} | {k[2].replace('+size', ', compute ∝ data')} | {nb} | {na} | {ran} | "
          f"{x:.3f} | {y:.3f} |")
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print(f"\nGeometric mean over the {len(ra)} cells: auto after/before {geo(ra):.3f} ({min(ra):.3f}-{max(ra):.3f}), "
      f"RELAY (whose code did not change) {geo(rr):.3f} ({min(rr):.3f}-{max(rr):.3f}).")
