#!/usr/bin/env python3
"""The stable-skew loop's table: pat-skewloop outputs of several configurations
in rounds, NATIVE first in the table, speed-up over NATIVE from paired rounds.

    python3 bench/balanced/skew_table.py LOG [--csv runs.csv] > table.md

LOG holds, per run, a line '## round R config NAME' and then pat-skewloop's
output (its 'total_s=... allgather_max_s=... allgather_mean_s=... checksum=...'
line); the configuration named 'native' is the reference.  Per configuration:
runs, median total time with [min, max], median all-gather max, and the
geometric mean over rounds of native/configuration with a Student t 95%
interval (runs paired by round number).
"""
import argparse
import math
import re
import statistics as st

T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def read(path):
    runs, rnd, cfg = [], None, None
    for line in open(path):
        m = re.match(r"## round (\d+) config (\S+)", line)
        if m:
            rnd, cfg = int(m.group(1)), m.group(2)
            continue
        m = re.search(r"total_s=([\d.]+) allgather_max_s=([\d.]+) allgather_mean_s=([\d.]+) checksum=(\S+)", line)
        if m and cfg:
            runs.append((rnd, cfg, float(m.group(1)), float(m.group(2)), float(m.group(3)), m.group(4)))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--csv", help="also write one row per run here")
    a = ap.parse_args()
    runs = read(a.log)
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("round,config,total_s,allgather_max_s,allgather_mean_s,checksum\n")
            for r in runs:
                f.write("%d,%s,%.6f,%.6f,%.6f,%s\n" % r)
    native = {r[0]: r[2] for r in runs if r[1] == "native"}
    configs = list(dict.fromkeys(r[1] for r in runs))
    print("| configuration | runs | total (s) median [min, max] | all-gather max (s) median "
          "| speed-up over native (geo mean of paired rounds) [95% CI] |")
    print("|---|---|---|---|---|")
    for cfg in configs:
        mine = [r for r in runs if r[1] == cfg]
        tot = [r[2] for r in mine]
        logs = [math.log(native[r[0]] / r[2]) for r in mine if r[0] in native]
        su = ci = "—"
        if logs:
            g = st.mean(logs)
            su = "%.3f" % math.exp(g)
            if len(logs) >= 2:
                h = T975.get(len(logs) - 1, 1.96) * st.stdev(logs) / math.sqrt(len(logs))
                ci = "[%.3f, %.3f]" % (math.exp(g - h), math.exp(g + h))
        print("| %s | %d | %.3f [%.3f, %.3f] | %.3f | %s %s |" % (
            cfg, len(mine), st.median(tot), min(tot), max(tot), st.median([r[3] for r in mine]), su, ci))
    sums = {r[5] for r in runs}
    print("\nchecksums: %s" % ("one (%s) in all %d runs" % (sums.pop(), len(runs)) if len(sums) == 1 else
                               "DIFFER: " + ", ".join(sorted(sums))))


if __name__ == "__main__":
    main()
