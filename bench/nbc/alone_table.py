#!/usr/bin/env python3
"""Table of bench/nbc/alone_ab.sh's CSV (one pat-minibench row per launch, labelled
round/N/delay-T/variant): per cell (N, maxDelay ms - compute T ms) each variant's median e-bar over
the rounds, and each variant's e-bar over native's, paired by round (the median, then every round's).

  python3 bench/nbc/alone_table.py OUT/alone.csv > OUT/alone.md
"""
import csv
import statistics as st
import sys

rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    rnd, n, cell, v = r["label"].split("/")
    rows[(n, cell, v, rnd)] = float(r["ebar_us"]) / 1000
cells = sorted({k[:2] for k in rows}, key=lambda c: (c[0][-1], int(c[0][:-1]), [int(x) for x in c[1].split("-")]))
order = ["native", "auto", "old"]
vs = sorted({k[2] for k in rows}, key=lambda v: (order.index(v) if v in order else 9, v))
others = [v for v in vs if v != "native"]
print("| N | maxDelay-T ms | " + " | ".join(f"{v} e-bar ms" for v in vs) + " | " +
      " | ".join(f"{v} / native (rounds)" for v in others) + " |")
print("|" + "---|" * (2 + len(vs) + len(others)))
for n, cell in cells:
    out = [n, cell]
    for v in vs:
        e = [x for k, x in rows.items() if k[:3] == (n, cell, v)]
        out.append(f"{st.median(e):.1f}" if e else "-")
    for v in others:
        rr = [rows[(n, cell, v, r)] / rows[(n, cell, "native", r)] for (nn, c, vv, r) in sorted(rows)
              if (nn, c, vv) == (n, cell, v) and (n, cell, "native", r) in rows]
        out.append(f"**{st.median(rr):.3f}** ({', '.join(f'{x:.3f}' for x in rr)})" if rr else "-")
    print("| " + " | ".join(out) + " |")
