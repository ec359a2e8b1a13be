"""pace.csv -> markdown: per cell and algorithm, ē ms and ē/ē_lb without and with pacing (each round),
and the median ratio off/paced."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
cells = defaultdict(lambda: defaultdict(list))
order = []
for r in rows:
    pace, n, counts, delay = r["label"].split("/")
    key = (n, counts, delay, r["alg"])
    if key not in order:
        order.append(key)
    cells[key][pace].append((float(r["ebar_us"]) / 1e3, float(r["ebar_over_elb"]), r["chosen"]))
print("| N | blocks | maxDelay | alg | no pacing: ē ms (ē/ē_lb) per round | PAT_PACE=500: ē ms (ē/ē_lb) per round | off/paced |")
print("|---|---|---|---|---|---|---|")
for key in order:
    c = cells[key]
    fmt = lambda xs: ", ".join("%.1f (%.2f)" % (e, q) for e, q, _ in xs)
    ratio = sorted(a[0] / b[0] for a, b in zip(c["off"], c["500"]))
    med = ratio[len(ratio) // 2] if len(ratio) % 2 else sum(ratio[len(ratio) // 2 - 1:len(ratio) // 2 + 1]) / 2
    print("| %s | %s | %s ms | %s | %s | %s | %.3f |" % (key[0], key[1], key[2], key[3], fmt(c["off"]), fmt(c["500"]), med))
