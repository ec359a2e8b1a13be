#!/usr/bin/env python3
"""Every rank's PAT_DECISIONS file of one launch (PREFIX.0 .. PREFIX.P-1) condensed into the critical
path of auto's calls: per call site, algorithm and exchange, the calls' last rank out after their last
arrival (the critical path a program whose ranks meet again at their next collective waits for) against
their ranks' mean exit after the last arrival (what the engine's measured costs are), mean and median
over the calls, how many critical paths were over 20 ms, and which ranks left last most often.

  python3 bench/bfs/critical_path.py PREFIX [P] > critical-path.md
"""
import collections
import statistics
import sys


def read(prefix, P):
    calls = collections.defaultdict(dict)
    for r in range(P):
        for line in open(f"{prefix}.{r}"):
            t = line.split()
            kv = {t[i]: t[i + 1] for i in range(0, len(t) - 1)}
            if "arrival_ns" not in kv:
                sys.exit(f"{prefix}.{r}: no arrival_ns (a log of a libpat that logged rank 0 only)")
            calls[int(kv["call"])][r] = (int(kv["arrival_ns"]), int(kv["exit_ns"]), kv["site"], kv["alg"],
                                         kv["exchanged"])
    return calls


def main():
    prefix = sys.argv[1]
    P = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    groups = collections.defaultdict(list)
    for call, ranks in sorted(read(prefix, P).items()):
        if len(ranks) < P:
            continue
        last_in = max(a for a, _, _, _, _ in ranks.values())
        exits = [x for _, x, _, _, _ in ranks.values()]
        site, alg, exchanged = ranks[0][2:]
        last_rank = max(ranks, key=lambda r: ranks[r][1])
        groups[(site, alg, exchanged)].append(((max(exits) - last_in) / 1e6,
                                               (statistics.mean(exits) - last_in) / 1e6, last_rank))
    print("| site | algorithm | exchanged | calls | last out: mean | median | over 20 ms | mean exit: mean |"
          " median | last out most often (rank: calls) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (site, alg, exchanged), rows in sorted(groups.items()):
        last = [r[0] for r in rows]
        mean_exit = [r[1] for r in rows]
        often = ", ".join(f"{r}: {n}" for r, n in collections.Counter(r[2] for r in rows).most_common(3))
        print(f"| {site} | {alg} | {exchanged} | {len(rows)} | {statistics.mean(last):.2f} ms | "
              f"{statistics.median(last):.2f} ms | {sum(1 for x in last if x > 20)} | "
              f"{statistics.mean(mean_exit):.2f} ms | {statistics.median(mean_exit):.2f} ms | {often} |")


if __name__ == "__main__":
    main()
