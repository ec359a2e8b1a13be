#!/usr/bin/env python3
"""The table of a before-and-after run of bench/allreduce/cells.sh (ALGS="auto auto@old relay ring", or
any fixed algorithms beside the two autos): per arrival pattern, each variant's e-bar (ms) per round and its
median, and auto's (new and old) ratio to the fastest fixed algorithm of the run, paired by round.  Labels ALG and ALG@old; those of the runs before the two were
one script, ALG-new and ALG-old, read alike.

usage: ab_table.py CELLS_CSV
"""
import collections
import csv
import statistics
import sys


def main(path):
    ebar = collections.defaultdict(dict)  # (case, variant) -> {round: ms}
    for row in csv.DictReader(open(path)):
        rnd, case, variant = row["label"].split("/")
        variant = variant.replace("-old", "@old").replace("-new", "")
        ebar[(case, variant)][int(rnd)] = float(row["ebar_us"]) / 1000
    cases = sorted({c for c, _ in ebar}, key=lambda c: ["straggler", "late", "random", "balanced"].index(c))
    names = sorted({v for _, v in ebar if not v.startswith("auto")})
    print("| pattern | variant | e-bar per round (ms) | median | / fastest of %s (per round) | median |" % ", ".join(names))
    print("|---|---|---|---|---|---|")
    for case in cases:
        fixed = [ebar.get((case, v), {}) for v in names]
        for v in names + ["auto@old", "auto"]:
            x = ebar.get((case, v))
            if not x:
                continue
            rounds = sorted(x)
            ratio = [x[r] / min(f[r] for f in fixed if r in f) for r in rounds if all(r in f for f in fixed)]
            cells = ", ".join(f"{x[r]:.1f}" for r in rounds)
            rs = ", ".join(f"{q:.3f}" for q in ratio) if v.startswith("auto") else ""
            med = f"{statistics.median(ratio):.3f}" if v.startswith("auto") and ratio else ""
            print(f"| {case} | {v} | {cells} | {statistics.median(x.values()):.1f} | {rs} | {med} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
