#!/usr/bin/env python3
"""The all-reduce cells' table (bench/allreduce/cells.sh): per arrival pattern and algorithm, the
median over rounds of e-bar (ms) and e-bar / e_lb, and e-bar against the best of MPI's own and the
classic schedules (recursive doubling, ring, Rabenseifner) in the same pattern.

    python3 bench/allreduce/table.py OUT/cells.csv > OUT/table.md
"""
import csv
import statistics
import sys
from collections import defaultdict

CLASSIC = ("native", "rdb", "ring", "rabenseifner")


def main(path):
    ebar, ratio = defaultdict(list), defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            _, case, alg = row["label"].split("/")
            if row["status"] != "ok" or row["errors"] not in ("0", ""):
                print(f"note: {row['label']} status {row['status']} errors {row['errors']}", file=sys.stderr)
                continue
            ebar[case, alg].append(float(row["ebar_us"]) / 1000)
            ratio[case, alg].append(float(row["ebar_over_elb"]))
    cases = sorted({c for c, _ in ebar}, key=lambda c: ("late", "random", "balanced").index(c) if c in ("late", "random", "balanced") else 9)
    algs = [a for a in ("native", "rdb", "ring", "rabenseifner", "relay", "auto") if any((c, a) in ebar for c in cases)]
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
    print()
    print("e-bar: mean over ranks of (exit - arrival), median over rounds; in brackets e-bar / e_lb, "
          "the all-reduce's bound (docs/design.md section 1).")


if __name__ == "__main__":
    main(sys.argv[1])
