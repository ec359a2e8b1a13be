#!/usr/bin/env python3
"""The table of bench/balanced/osu.sh: OSU's average latency per size, the
median over interleaved rounds per configuration and variant, and the ratio
libpat/native per size (> 1: libpat slower), with the geometric mean and the
worst size; every variant other than "native" (preload, model, or any
label: raw/<config>-<label>-<round>.txt) is compared with native.  A bootstrap over rounds (paired by round) gives a 95% interval
for the geometric mean.  The paired columns take, per size, the median over
rounds of each round's own ratio: on a machine whose speed drifts between
rounds they compare like with like.  Writes DIR/osu.csv from DIR/raw/ (or,
without raw/, reads the DIR/osu.csv a results folder keeps); prints markdown.

usage: osu_table.py DIR
       osu_table.py --pure DIR   (osu_iallgather(v): the "Pure Comm." column, the post and the wait
                                 alone, instead of "Overall", whose compute and tests OSU times
                                 too; its CSV is DIR/osu-pure.csv)
"""
import csv
import glob
import math
import os
import random
import re
import statistics
import sys


PURE_COMM = 3  # the non-blocking benchmarks' columns after the size: overall, compute, pure comm., overlap


def parse(path, column=1):
    """{size: latency us} from one OSU output: the column-th number after the size."""
    out = {}
    for line in open(path, errors="replace"):
        words = line.split()
        if len(words) > column and words[0].isdigit() and re.match(r"^[0-9.]+$", words[column]):
            out[int(words[0])] = float(words[column])
    return out


def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(d, column=1):
    runs = {}  # (cfg, var) -> {round: {size: us}}
    for f in glob.glob(os.path.join(d, "raw", "*.txt")):
        m = re.match(r"(.+?)-([a-z0-9]+)-(\d+)\.txt$", os.path.basename(f))
        if m:
            runs.setdefault((m.group(1), m.group(2)), {})[int(m.group(3))] = parse(f, column)
    table = os.path.join(d, "osu.csv" if column == 1 else "osu-pure.csv")
    if runs:
        with open(table, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["config", "variant", "round", "size", "avg_us"])
            for (cfg, var), rounds in sorted(runs.items()):
                for r, sizes in sorted(rounds.items()):
                    for s, us in sorted(sizes.items()):
                        w.writerow([cfg, var, r, s, us])
    elif os.path.exists(table):  # no raw outputs (a results folder keeps the CSV only)
        for row in csv.DictReader(open(table)):
            runs.setdefault((row["config"], row["variant"]), {}).setdefault(int(row["round"]), {})[
                int(row["size"])] = float(row["avg_us"])
    rng = random.Random(1)
    print("| configuration | variant | geo mean libpat/native [95% CI] | worst size (ratio) | paired: geo mean, worst size | rounds |")
    print("|---|---|---|---|---|---|")
    details = []
    for cfg in sorted({c for c, _ in runs}):
        nat = runs.get((cfg, "native"), {})
        for var in sorted({v for c, v in runs if c == cfg and v != "native"}):
            lib = runs.get((cfg, var))
            if not lib or not nat:
                continue
            common = sorted(set(nat) & set(lib))
            sizes = sorted(set.intersection(*[set(nat[r]) & set(lib[r]) for r in common])) if common else []
            if not sizes:
                continue
            med = lambda rs, s: statistics.median(rs[r][s] for r in common)
            ratios = {s: med(lib, s) / med(nat, s) for s in sizes}
            g = geo(list(ratios.values()))
            boots = []
            for _ in range(2000):
                pick = [rng.choice(common) for _ in common]
                rb = [statistics.median(lib[r][s] for r in pick) / statistics.median(nat[r][s] for r in pick) for s in sizes]
                boots.append(geo(rb))
            boots.sort()
            lo, hi = boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots)) - 1]
            worst = max(sizes, key=lambda s: ratios[s])
            paired = {s: statistics.median(lib[r][s] / nat[r][s] for r in common) for s in sizes}
            pworst = max(sizes, key=lambda s: paired[s])
            print(f"| {cfg} | {var} | {g:.3f} [{lo:.3f}, {hi:.3f}] | {worst} B ({ratios[worst]:.3f}) | "
                  f"{geo(list(paired.values())):.3f}, {pworst} B ({paired[pworst]:.3f}) | {len(common)} |")
            details.append((cfg, var, sizes, ratios, {s: med(nat, s) for s in sizes}, {s: med(lib, s) for s in sizes}))
    for cfg, var, sizes, ratios, n, l in details:
        print(f"\n**{cfg}, {var}**: median avg latency (us) per size\n")
        print("| size (B) | native | libpat | ratio |")
        print("|---|---|---|---|")
        for s in sizes:
            print(f"| {s} | {n[s]:.2f} | {l[s]:.2f} | {ratios[s]:.3f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    pure = args[:1] == ["--pure"]
    if len(args) != 1 + pure:
        sys.exit(__doc__)
    main(args[-1], PURE_COMM if pure else 1)
