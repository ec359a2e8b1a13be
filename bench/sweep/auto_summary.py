#!/usr/bin/env python3
"""auto against the fastest algorithm measured in each cell of a sweep.

    python3 bench/sweep/auto_summary.py bench/results/<sweep folder> [--stat mean|median]
                                        [--within 1.05] [--never 1.10]

For every (P, N, maxDelay) cell of <folder>/results.csv: the fastest algorithm
(NATIVE included) and its ebar, NATIVE's, the best classic algorithm's, and
auto's with what it ran; auto/fastest, auto/NATIVE and best classic/auto.
Then the counts issue 14 asks for: cells where auto is within --within of the
fastest, the worst cell, and the cells above --never.  Markdown on stdout.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pat_results as pr  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--stat", choices=("mean", "median"), default="mean")
    ap.add_argument("--within", type=float, default=1.05)
    ap.add_argument("--never", type=float, default=1.10)
    a = ap.parse_args()
    col = pr.STATS[a.stat]
    table = pr.cells(pr.read_rows(os.path.join(a.folder, "results.csv")))

    def val(r):
        return pr.fnum(r.get(col)) if r is not None and pr.usable(r) else None

    print("ebar (%s over iterations, ms) per cell; auto/fastest <= %.2f is the target; "
          "classic/auto > 1: auto faster than the best classic algorithm.\n" % (a.stat, a.within))
    print("| P | N | maxDelay | fastest | NATIVE | best classic | auto [ran] | auto/fastest | auto/NATIVE | classic/auto |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for key in sorted(table):
        P, N, d, unit = key
        algs = {x: r for x, r in table[key].items() if "#" not in x}
        times = {x: val(r) for x, r in algs.items() if val(r)}
        if "auto" not in times:
            continue
        others = {x: t for x, t in times.items() if x != "auto"}
        if not others:
            continue
        fastest = min(others, key=others.get)
        classic = {x: t for x, t in others.items() if pr.base_alg(x) in pr.CLASSIC}
        bc = min(classic, key=classic.get) if classic else None
        auto, native = times["auto"], times.get("native")
        ran = (algs["auto"].get("chosen") or "").replace(";", " ")
        r_fast = auto / others[fastest]
        dl = pr.fmt_delay(d, unit)
        ratios.append((r_fast, P, N, dl))
        print("| %d | %s | %s | %s %.2f | %s | %s | %.2f [%s] | %.3f | %s | %s |" % (
            P, pr.human_count(N), dl, fastest, others[fastest] / 1e3,
            "%.2f" % (native / 1e3) if native else "—",
            "%s %.2f" % (bc, classic[bc] / 1e3) if bc else "—",
            auto / 1e3, ran, r_fast,
            "%.3f" % (auto / native) if native else "—",
            "%.2f" % (classic[bc] / auto) if bc else "—"))
    print()
    if not ratios:
        print("- no cell has auto and another algorithm")
        return
    ok = sum(1 for r in ratios if r[0] <= a.within)
    worst = max(ratios)
    over = [r for r in ratios if r[0] > a.never]
    print("- auto within %.0f%% of the fastest algorithm in %d of %d cells" % ((a.within - 1) * 100, ok, len(ratios)))
    print("- worst cell: auto/fastest = %.3f (P=%d, N=%s, maxDelay %s)" % (
        worst[0], worst[1], pr.human_count(worst[2]), worst[3]))
    print("- cells more than %.0f%% slower than the fastest: %s" % (
        (a.never - 1) * 100, ", ".join("N=%s maxDelay %s (%.3f)" % (pr.human_count(N), dl, r)
                                       for r, P, N, dl in over) or "none"))


if __name__ == "__main__":
    main()
