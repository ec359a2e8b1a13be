#!/usr/bin/env python3
"""table.py RUN.csv BASE > RUN.md: per cell (N, blocks, maxDelay, algorithm), the BASE build's median e-bar
(and e-bar/e_lb), and for each other build its median e-bar and the ratio to BASE paired by round (the two
launches of one round ran one after the other): geometric mean with a 95% confidence interval (t on the
log ratios), and every round's ratio. Labels are round/N/counts/delay/build (run.sh). With a third
argument DAT (and one other build), DAT gets a line per cell: label, then the ratio and its interval per
algorithm in the order relay, auto (ab.gp's figure)."""
import collections
import csv
import math
import statistics
import sys

T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23}
NAMES = {"equalv": "equal", "onebig": "one rank 4x", "ramp": "ramp"}

rows = list(csv.DictReader(open(sys.argv[1])))
base = sys.argv[2]
cells = collections.defaultdict(lambda: collections.defaultdict(dict))
for r in rows:
    rnd, n, counts, delay, build = r["label"].split("/")
    cells[(n, counts, delay, r["alg"])][build][rnd] = r


def order(k):
    n, counts, delay, alg = k
    return (float(n[:-1]) * (1024 if n[-1] == "M" else 1), counts, delay.endswith("+size"),
            int(delay.split("+")[0]), alg)


builds = sorted({b for c in cells.values() for b in c if b != base})
print(f"| N | blocks | maxDelay ms | alg | {base}: ē ms (ē/ē_lb) | "
      + " | ".join(f"{b}: ē ms (ē/ē_lb) | {b}/{base} geo. mean [95% CI] | per round" for b in builds) + " |")
print("|---|---|---|---|---|" + "---|---|---|" * len(builds))
logs = collections.defaultdict(list)
dat = collections.defaultdict(dict)
for k in sorted(cells, key=order):
    c = cells[k]
    med = lambda b: "%.1f (%.2f)" % (statistics.median(float(x["ebar_us"]) / 1e3 for x in c[b].values()),
                                     statistics.median(float(x["ebar_over_elb"]) for x in c[b].values()))
    line = [k[0], NAMES.get(k[1], k[1]), k[2].replace("+size", ", compute ∝ data"), k[3], med(base)]
    for b in builds:
        if b not in c:
            line += ["", "", ""]
            continue
        ratios = [float(c[b][r]["ebar_us"]) / float(c[base][r]["ebar_us"]) for r in sorted(c[b]) if r in c[base]]
        lr = [math.log(x) for x in ratios]
        m = statistics.mean(lr)
        h = T95.get(len(lr) - 1, 2.0) * statistics.stdev(lr) / math.sqrt(len(lr)) if len(lr) > 1 else float("nan")
        logs[(b, k[3])].append(m)
        dat[k[:3]][k[3]] = (math.exp(m), math.exp(m - h), math.exp(m + h))
        line += [med(b), "%.3f [%.3f, %.3f]" % (math.exp(m), math.exp(m - h), math.exp(m + h)),
                 " ".join("%.2f" % x for x in ratios)]
    print("| " + " | ".join(line) + " |")
print()
for (b, alg), v in sorted(logs.items()):
    print(f"- {b}/{base}, {alg}: geometric mean over {len(v)} cells {math.exp(statistics.mean(v)):.3f} "
          f"({math.exp(min(v)):.3f}-{math.exp(max(v)):.3f})")
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as f:
        for k in sorted(dat, key=lambda c: order(c + ("",))):
            label = "%s %s %s" % (k[0], NAMES.get(k[1], k[1]), k[2].replace("+size", "∝"))
            vals = [x for alg in ("relay", "auto") for x in dat[k].get(alg, (float("nan"),) * 3)]
            f.write('"%s" %s\n' % (label, " ".join("%.4f" % v for v in vals)))
