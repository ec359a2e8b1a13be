#!/usr/bin/env python3
"""Before and after, per cell of run.sh ab: OLD.csv NEW.csv (the two libraries' launches, cell by
cell), ē ms (ē/ē_lb) of each algorithm before -> after, RELAY's and auto's ratio old/new (> 1: the
new library faster), NATIVE's ē over the new auto's, and what the new auto ran."""
import csv, sys


def read(path):
    cells = {}
    for r in csv.DictReader(open(path)):
        key = (r["N_requested"], *r["label"].split("/"))
        cells.setdefault(key, {})[r["alg"]] = dict(e=float(r["ebar_us"]) / 1000, ci=float(r["ebar_ci95_us"]) / 1000,
                                                    q=float(r["ebar_over_elb"]), elb=float(r["elb_us"]) / 1000,
                                                    err=int(r["errors"]), chosen=r["chosen"])
    return cells


args = [a for a in sys.argv[1:] if a != "--dat"]
dat = sys.argv[sys.argv.index("--dat") + 1] if "--dat" in sys.argv else None
if dat:
    args.remove(dat)
old, new = read(args[0]), read(args[1])
if dat:
    for N, name in (("1048576", "1M"), ("4194304", "4M")):
        with open(f"{dat}/cells-{name}.dat", "w") as out:
            out.write("# cell native relay_before relay_after auto_before auto_after (e/e_lb)\n")
            for key, n in new.items():
                o = old.get(key)
                if key[0] == N and o:
                    out.write(f"\"{key[1]} {key[2]}\" {n['native']['q']:.3f} {o['relay']['q']:.3f} "
                              f"{n['relay']['q']:.3f} {o['auto']['q']:.3f} {n['auto']['q']:.3f}\n")
print("| N floats | blocks | maxDelay | ē_lb ms | relay before → after (ē/ē_lb) | relay old/new | "
      "auto before → after (ē/ē_lb) | auto old/new | native after | direct after | NATIVE/auto after | auto ran after |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def f(x): return f"{x['e']:.1f} ({x['q']:.2f})"
for key, n in new.items():
    o = old.get(key)
    if not o:
        continue
    N, counts, delay = key
    errs = sum(x["err"] for x in n.values()) + sum(x["err"] for x in o.values())
    print(f"| {N} | {counts} | {delay} ms | {n['relay']['elb']:.1f} | {f(o['relay'])} → {f(n['relay'])} | "
          f"{o['relay']['e'] / n['relay']['e']:.2f} | {f(o['auto'])} → {f(n['auto'])} | {o['auto']['e'] / n['auto']['e']:.2f} | "
          f"{f(n['native'])} | {f(n['direct'])} | {n['native']['e'] / n['auto']['e']:.2f} | {n['auto']['chosen']}"
          + (f" ({errs} data errors)" if errs else "") + " |")
