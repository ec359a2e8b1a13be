#!/usr/bin/env python3
"""NAME.csv [PREFIX] -> markdown on stdout: per cell (N, blocks, maxDelay), round 1 / round 2 of
e-bar ms (e-bar/e_lb) for NATIVE, auto (what it ran), RELAY and DIRECT, NATIVE/auto per round, and
issue 23's targets per cell; with PREFIX, PREFIX-cells-1M.dat and PREFIX-cells-4M.dat (mean e-bar/e_lb of the rounds)."""
import csv
import sys
from collections import defaultdict

ALGS = ("native", "auto", "relay", "direct")
cells = defaultdict(lambda: defaultdict(dict))  # (N, counts, delay) -> round -> alg -> row
for r in csv.DictReader(open(sys.argv[1])):
    rnd, counts, delay = r["label"].split("/")
    cells[(int(r["N"]), counts, delay)][rnd][r["alg"]] = r


def order(key):
    n, counts, delay = key
    size = delay.endswith("+size")
    return (n, ("equalv", "onebig", "ramp").index(counts), size, int(delay.split("+")[0]))


def e(row):
    return float(row["ebar_us"]) / 1e3


def q(row):
    return float(row["ebar_over_elb"])


def both(c, alg, fmt):
    return " / ".join(fmt(c[r][alg]) if alg in c[r] else "-" for r in sorted(c))


NAMES = {"equalv": "equal", "onebig": "one rank 4x", "ramp": "ramp"}
print("| N | blocks | maxDelay ms | ē_lb ms | NATIVE | auto (ran) | RELAY | DIRECT | NATIVE/auto | "
      "best arrival-aware ē/ē_lb |")
print("|---" * 10 + "|")
for key in sorted(cells, key=order):
    c = cells[key]
    n, counts, delay = key
    rounds = sorted(c)
    elb = sum(float(c[r]["auto"]["elb_us"]) for r in rounds) / len(rounds) / 1e3
    auto = " / ".join(f"{e(c[r]['auto']):.1f} ({q(c[r]['auto']):.2f}, {c[r]['auto']['chosen']})" for r in rounds)
    ratio = " / ".join(f"{e(c[r]['native']) / e(c[r]['auto']):.2f}" for r in rounds)
    best = " / ".join(f"{min(q(c[r]['relay']), q(c[r]['auto'])):.2f}" for r in rounds)
    print(f"| {n // 1048576}M | {NAMES[counts]} | {delay.replace('+size', ', compute ∝ data')} | {elb:.1f} | "
          f"{both(c, 'native', lambda x: f'{e(x):.1f} ({q(x):.2f})')} | {auto} | "
          f"{both(c, 'relay', lambda x: f'{e(x):.1f} ({q(x):.2f})')} | "
          f"{both(c, 'direct', lambda x: f'{e(x):.1f} ({q(x):.2f})')} | {ratio} | {best} |")
if len(sys.argv) > 2:
    for n, name in ((1048576, "1M"), (4194304, "4M")):
        with open(f"{sys.argv[2]}-cells-{name}.dat", "w") as out:
            out.write("# cell " + " ".join(ALGS) + " (e-bar/e_lb, mean of the rounds)\n")
            for key in sorted((k for k in cells if k[0] == n), key=order):
                c = cells[key]
                label = f"{NAMES[key[1]]} {key[2].replace('+size', '∝')}"
                vals = [sum(q(c[r][a]) for r in c) / len(c) for a in ALGS]
                out.write(f"\"{label}\" " + " ".join(f"{v:.3f}" for v in vals) + "\n")
