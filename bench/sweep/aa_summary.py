#!/usr/bin/env python3
"""Issue 19's view of a sweep: per cell (N, maxDelay) the lower bound, the
best classic and the best arrival-aware algorithm (by mean e-bar), the
arrival-aware one's e-bar/e_lb, its speed-up over DIRECT and over the best
classic, and auto against the fastest.  With --before DIR the same columns of
an earlier sweep of the same cells are printed beside (cells of both only).

usage: aa_summary.py SWEEP_DIR [--before SWEEP_DIR]
"""
import argparse
import csv
import os

ARRIVAL = {"bdr", "bslb", "ard", "relay"}
CLASSIC = {"native", "ring", "nex", "rdb", "bruck", "lnbc", "direct"}


def cells(d):
    out = {}
    for row in csv.DictReader(open(os.path.join(d, "results.csv"))):
        if row["status"] != "ok":
            continue
        key = (int(row["N"]), float(row["max_delay_ms"]))
        out.setdefault(key, {})[row["alg"]] = (float(row["ebar_us"]) / 1e3, float(row["elb_us"]) / 1e3)
    return out


def summary(c):
    elb = sorted(v[1] for v in c.values())[len(c) // 2]  # the median over the cell's runs
    cls = {a: v[0] for a, v in c.items() if a in CLASSIC}
    aa = {a: v[0] for a, v in c.items() if a in ARRIVAL}
    bc = min(cls, key=cls.get) if cls else None
    ba = min(aa, key=aa.get) if aa else None
    fastest = min((v[0] for a, v in c.items() if a != "auto"), default=None)
    s = {"elb": elb, "bc": bc, "bc_e": cls.get(bc), "ba": ba, "ba_e": aa.get(ba)}
    s["ba_lb"] = aa[ba] / elb if ba else None
    s["vs_direct"] = cls["direct"] / aa[ba] if ba and "direct" in cls else None
    s["vs_classic"] = cls[bc] / aa[ba] if ba and bc else None
    s["auto"] = c["auto"][0] / fastest if "auto" in c and fastest else None
    return s


def fmt(x, f="{:.2f}"):
    return "-" if x is None else f.format(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweep")
    ap.add_argument("--before")
    a = ap.parse_args()
    now = cells(a.sweep)
    before = cells(a.before) if a.before else {}
    head = "| N | maxDelay | ē_lb | best classic (ē ms) | best arrival-aware (ē ms) | AA ē/ē_lb | AA vs DIRECT | AA vs best classic | auto / fastest |"
    if before:
        head += " before: AA ē/ē_lb | before: AA vs DIRECT | before: auto / fastest |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for key in sorted(now):
        if before and key not in before:
            continue
        s = summary(now[key])
        line = (f"| {key[0] // 1024}K | {key[1]:g} ms | {s['elb']:.1f} | {s['bc']} ({fmt(s['bc_e'], '{:.1f}')}) | "
                f"{s['ba']} ({fmt(s['ba_e'], '{:.1f}')}) | {fmt(s['ba_lb'])} | {fmt(s['vs_direct'])}x | "
                f"{fmt(s['vs_classic'])}x | {fmt(s['auto'])} |")
        if before:
            b = summary(before[key])
            line += f" {fmt(b['ba_lb'])} ({b['ba']}) | {fmt(b['vs_direct'])}x | {fmt(b['auto'])} |"
        print(line)
    print("\nAA vs X = ē of X / ē of the best arrival-aware algorithm (> 1: arrival-aware faster); "
          "ē_lb = the cell's median lower bound over its runs.")


if __name__ == "__main__":
    main()
