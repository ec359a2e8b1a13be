#!/usr/bin/env python3
"""The overlap series of bench/nbc/run.sh as a table: per cell (N, maxDelay, compute after the post)
each algorithm's e-bar (ms, mean over the launch's calls of wait-return minus post, the compute T
included) with its 95% interval, and the time from the last post to the last completion (r - omega,
ms); auto against MPI's own non-blocking all-gather (native) on both; e-bar minus T of auto against
blocking libpat (auto) and blocking MPI (native) of the same arrivals, from the blocking series.
T per cell comes from run.sh's cells.csv (N, delay_ms, compute_pct, compute_ms). One launch per cell
and series: the intervals are over the launch's calls.  SERIES (default overlap) takes the rows of
another series instead, such as persistent (each algorithm's call set up once, started per iteration).

  python3 bench/nbc/overlap_table.py nbc.csv cells.csv [SERIES] > overlap.md
  DAT=overlap.dat python3 ...   also writes per cell "N/delay/pct auto/native" for bench/nbc/overlap.gp
"""
import csv
import os
import sys
from collections import defaultdict


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    series = sys.argv[3] if len(sys.argv) == 4 else "overlap"
    compute_ms = {}
    for row in csv.DictReader(open(sys.argv[2], newline="")):
        compute_ms[(row["N"], int(row["delay_ms"]), row["compute_pct"])] = float(row["compute_ms"])
    cells, blocking, algs = defaultdict(dict), defaultdict(dict), []
    for row in csv.DictReader(open(sys.argv[1], newline="")):
        n, delay, pct, mode = row["label"].split("/")
        if row["status"] != "ok":
            continue
        if mode == "blocking":
            blocking[(n, int(delay))][row["alg"]] = row
        elif mode == series:
            cells[(n, int(delay), pct)][row["alg"]] = row
            if row["alg"] not in algs:
                algs.append(row["alg"])
    ms = lambda row, col: float(row[col]) / 1e3
    head = ["N", "maxDelay ms", "compute T after post"]
    head += ["%s e-bar ms" % a for a in algs] + ["%s r-omega ms" % a for a in algs]
    head += ["auto / native e-bar", "auto / native r-omega", "auto e-bar - T", "blocking auto e-bar",
             "blocking native e-bar"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    dat = open(os.environ["DAT"], "w") if os.environ.get("DAT") else None
    order = {"256K": 0, "1M": 1, "4M": 4}
    for key in sorted(cells, key=lambda k: (order.get(k[0], 9), k[1], int(k[2]))):
        c = cells[key]
        t = compute_ms.get(key, float("nan"))
        e = {a: ms(c[a], "ebar_us") for a in c}
        ci = {a: ms(c[a], "ebar_ci95_us") for a in c}
        ro = {a: ms(c[a], "r_us") - ms(c[a], "omega_us") for a in c}
        cols = [key[0], str(key[1]), "%s%% (%.1f ms)" % (key[2], t)]
        cols += ["%.1f ± %.1f" % (e[a], ci[a]) if a in e else "-" for a in algs]
        cols += ["%.1f" % ro[a] if a in ro else "-" for a in algs]
        has = "auto" in e and "native" in e
        cols += ["**%.3f**" % (e["auto"] / e["native"]) if has else "-",
                 "%.3f" % (ro["auto"] / ro["native"]) if has else "-",
                 "%.1f" % (e["auto"] - t) if "auto" in e else "-"]
        b = blocking.get((key[0], key[1]), {})
        cols += ["%.1f" % ms(b[a], "ebar_us") if a in b else "-" for a in ("auto", "native")]
        print("| " + " | ".join(cols) + " |")
        if dat and has:
            dat.write("%s/%d/%s%% %.4f\n" % (key[0], key[1], key[2], e["auto"] / e["native"]))


if __name__ == "__main__":
    main()
