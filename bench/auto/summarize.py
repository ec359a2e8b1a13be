#!/usr/bin/env python3
"""Summary of bench/auto/user_protocol.sh's raw.csv (one pat-minibench row per launch, labelled
"cond=C;iters=I;round=R"): per model condition, calls per launch, N and maxDelay, each algorithm's
median e-bar over the rounds with a 95% bootstrap interval of that median, what auto ran, and auto's
ratio to the fastest fixed algorithm of the cell (the one with the lowest median), paired by round:
the median of the rounds' ratios with its 95% bootstrap interval. Markdown on stdout.

  python3 bench/auto/summarize.py OUTDIR/raw.csv > OUTDIR/summary.md
  python3 bench/auto/summarize.py OUTDIR/raw.csv --dat OUTDIR/ratios.dat > OUTDIR/summary.md

--dat also writes the all-cells table for gnuplot (bench/auto/plot.gp): one block per model condition
and calls per launch (blank lines between), rows "maxDelay ratio low high N".
"""
import csv
import random
import statistics
import sys
from collections import defaultdict


def boot_ci(xs, reps=2000, seed=53):
    """95% percentile bootstrap interval of the median (deterministic)."""
    if len(xs) < 2:
        return (float("nan"), float("nan"))
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choice(xs) for _ in xs) for _ in range(reps))
    return meds[int(0.025 * reps)], meds[int(0.975 * reps) - 1]


def main():
    args = sys.argv[1:]
    dat = None
    if len(args) == 3 and args[1] == "--dat":
        dat = args[2]
        args = args[:1]
    if len(args) != 1:
        sys.exit(__doc__)
    sys.argv = [sys.argv[0]] + args
    cells = defaultdict(lambda: defaultdict(dict))  # (cond, iters, N, delay) -> alg -> round -> row
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            lab = dict(kv.split("=", 1) for kv in row["label"].split(";") if "=" in kv)
            key = (lab.get("cond", "?"), int(lab.get("iters", row["iters"])), row["N_requested"],
                   float(row["max_delay_ms"]))
            if row["status"] != "ok" or row["ebar_us"] == "":
                continue
            alg = row["alg"] + ("@old" if lab.get("build") == "old" else "")  # another build's (OLD_MB)
            cells[key][alg][lab.get("round", "1")] = row
    print("# auto as a user runs it: one algorithm per launch\n")
    print("Median e-bar (ms) over rounds [95% bootstrap interval]; auto's ratio to the fastest fixed algorithm, "
          "paired by round. Rows without auto or a fixed algorithm are left out.\n")
    summary = []
    for key in sorted(cells, key=lambda k: (k[0], k[1], int(k[2]) if k[2].isdigit() else k[2], k[3])):
        cond, iters, n, delay = key
        algs = cells[key]
        med = {a: statistics.median(1e-3 * float(r["ebar_us"]) for r in algs[a].values()) for a in algs}
        autos = [a for a in algs if a.split("@")[0] == "auto"]  # auto, and auto@old where it ran
        fixed = [a for a in algs if a not in autos]
        if "auto" not in algs or not fixed:
            continue
        best = min(fixed, key=lambda a: med[a])
        print("## %s, %d calls per launch, N = %s floats, maxDelay %g ms\n" % (cond, iters, n, delay))
        print("| algorithm | rounds | median e-bar (ms) | 95% interval | ran (auto) |")
        print("|---|---|---|---|---|")
        for a in sorted(algs, key=lambda a: med[a]):
            xs = [1e-3 * float(r["ebar_us"]) for r in algs[a].values()]
            lo, hi = boot_ci(xs)
            ran = "; ".join(sorted({r["chosen"] for r in algs[a].values()})) if a in autos else ""
            print("| %s%s | %d | %.2f | %.2f-%.2f | %s |" % (a, " (fastest fixed)" if a == best else "", len(xs),
                                                              med[a], lo, hi, ran))
        for a in sorted(autos):
            rounds = sorted(set(algs[a]) & set(algs[best]))
            ratios = [float(algs[a][r]["ebar_us"]) / float(algs[best][r]["ebar_us"]) for r in rounds]
            if ratios:
                lo, hi = boot_ci(ratios)
                r = statistics.median(ratios)
                print("\n%s / %s: %.3f [%.3f-%.3f] over %d paired rounds\n" % (a, best, r, lo, hi, len(ratios)))
                summary.append((cond if a == "auto" else "%s (%s)" % (cond, a), iters, n, delay, best, r, lo, hi))
    print("## All cells: auto / fastest fixed (median over rounds, 95% interval); target <= 1.05\n")
    print("| condition | calls | N | maxDelay (ms) | fastest fixed | auto / it | interval | within 5% |")
    print("|---|---|---|---|---|---|---|---|")
    for cond, iters, n, delay, best, r, lo, hi in summary:
        print("| %s | %d | %s | %g | %s | %.3f | %.3f-%.3f | %s |" % (cond, iters, n, delay, best, r, lo, hi,
                                                                    "yes" if r <= 1.05 else "no"))
    if dat:
        with open(dat, "w") as f:
            groups = defaultdict(list)
            for cond, iters, n, delay, best, r, lo, hi in summary:
                groups[(cond, iters, n)].append((delay, r, lo, hi))
            for (cond, iters, n), rows in sorted(groups.items()):
                f.write("# %s, %d calls, N = %s\n" % (cond, iters, n))
                for delay, r, lo, hi in sorted(rows):
                    f.write("%g %.4f %.4f %.4f %s\n" % (delay, r, lo if lo == lo else r, hi if hi == hi else r, n))
                f.write("\n\n")


if __name__ == "__main__":
    main()
