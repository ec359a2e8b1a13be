#!/usr/bin/env python3
"""Summary of bench/nbc/persistent_ab.sh's CSV (one pat-minibench row per launch, labelled
round/N/delay/variant): per cell the median e-bar and e/e_lb of each variant, and each variant over
MPI's own (native) paired by round (markdown on stdout); with --dat FILE, those ratios' medians per
cell for bench/nbc/persistent_ab.gp (one row per cell: label, then one column per variant).

  python3 bench/nbc/persistent_summary.py OUT/persistent.csv --dat OUT/ratios.dat > OUT/persistent.md
"""
import csv, statistics as st, sys

args = sys.argv[1:]
dat = args[args.index("--dat") + 1] if "--dat" in args else None
rows = {}
for r in csv.DictReader(open(args[0])):
    rnd, n, d, v = r["label"].split("/")
    rows[(n, int(d), v, rnd)] = (float(r["ebar_us"]) / 1000, float(r["ebar_over_elb"]))
cells = sorted({(n, d) for n, d, _, _ in rows}, key=lambda c: (c[0][-1], int(c[0][:-1]), c[1]))
vs = [v for v in ("native", "new", "old", "auto", "old-auto") if any(k[2] == v for k in rows)]
print("| N | maxDelay ms | " + " | ".join(f"{v} e-bar ms (e/e_lb)" for v in vs) + " | " +
      " | ".join(f"{v} / native (rounds)" for v in vs if v != "native") + " |")
print("|" + "---|" * (2 + len(vs) + len(vs) - 1))
lines = ["# cell " + " ".join(f"{v}/native" for v in vs if v != "native") + " (medians of per-round ratios)"]
for n, d in cells:
    out = [n, str(d)]
    ratios = []
    for v in vs:
        e = [rows[k][0] for k in rows if k[:3] == (n, d, v)]
        b = [rows[k][1] for k in rows if k[:3] == (n, d, v)]
        out.append(f"{st.median(e):.1f} ({st.median(b):.2f})" if e else "-")
    for v in vs:
        if v == "native": continue
        rr = sorted(rows[(n, d, v, r)][0] / rows[(n, d, "native", r)][0] for (nn, dd, vv, r) in rows
                    if (nn, dd, vv) == (n, d, v) and (n, d, "native", r) in rows)
        out.append(f"**{st.median(rr):.3f}** ({', '.join(f'{x:.2f}' for x in rr)})" if rr else "-")
        ratios.append(f"{st.median(rr):.4f}" if rr else "NaN")
    print("| " + " | ".join(out) + " |")
    lines.append(f'"{n} {d} ms" ' + " ".join(ratios))
if dat:
    with open(dat, "w") as f:
        f.write("\n".join(lines) + "\n")
