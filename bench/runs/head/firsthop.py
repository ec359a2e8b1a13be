"""RELAY's first hop under imbalance, from a PAT_TIMELINE recording (bench/timeline/timeline.py reads
it): per arrival position (1 = first to arrive), the median over calls FROM..TO of how long after its
arrival an owner's scattered pieces had all reached their relays, against the block's wire time at
the link rate (a receive alone in its step is a scatter's).
    python3 bench/runs/head/firsthop.py PREFIX FROM TO [--link-mbit 500]"""
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../timeline"))
import timeline  # noqa: E402
ranks = timeline.read(sys.argv[1])
calls_from, calls_to = int(sys.argv[2]), int(sys.argv[3])
rate = (float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--link-mbit" else 500.0) * 1e6 / 8
rows = []
for k in range(calls_from, calls_to + 1):
    calls = {r: c[k] for r, c in ranks.items()}
    order = sorted(calls, key=lambda r: calls[r]["arrival"])
    got = timeline.scatter_receives(calls)
    for pos, r in enumerate(order):
        if r in got:
            last = max(o["done"] for o in got[r])
            rows.append((pos, (last - calls[r]["arrival"]) / 1e6, sum(o["bytes"] for o in got[r]) / rate * 1e3))
print("arrival position: first hop done - arrival (ms), its wire time (ms), ratio; medians over calls %d-%d" % (calls_from, calls_to))
for pos in range(8):
    xs = sorted(x for x in rows if x[0] == pos)
    if not xs:
        continue

    def med(v):
        return sorted(v)[len(v) // 2]
    d, w = med([x[1] for x in xs]), med([x[2] for x in xs])
    print("  %d: %6.1f  %5.1f  %4.1fx  (n=%d)" % (pos + 1, d, w, med([x[1] / x[2] for x in xs]), len(xs)))
