#!/usr/bin/env python3
"""A PAT_DECISIONS file (one line per call of rank R: PREFIX.R) condensed into a markdown table:
one row per run of consecutive calls of one site with the same algorithm, static choice, mode and
reason (an exchanged call's: chosen as the best, kept from history, explored; and the regime its
choice saw), with the e range (min / median / max, ms) and the guardrail's state at the run's last
call.  Logs written before the reason was logged give "-" there.

  python3 bench/auto/decision_runs.py PREFIX.0 > decisions.md
"""
import re
import statistics
import sys


def calls(path):
    for line in open(path):
        m = re.match(r"P \d+ site (\d+) call (\d+) site_call \d+ alg (\S+) exchanged (\d) e ([\d.]+)ms "
                     r"(?:choice (\S+) (\S+) )?mode=(\S+) static=(\S+) .*?guard=\[([^\]]*)\]", line)
        if m:
            site, call, alg, exch, e, why, regime, mode, static, guard = m.groups()
            reason = "-" if not why or why == "-" else "%s (%s)" % (why, regime)
            yield int(site), int(call), alg, float(e), mode, static, reason, guard


def main():
    runs = []
    for site, call, alg, e, mode, static, reason, guard in calls(sys.argv[1]):
        key = (site, alg, static, mode, reason)
        if runs and runs[-1]["key"] == key and runs[-1]["last"] == call - 1:
            r = runs[-1]
        else:
            r = {"key": key, "first": call, "e": []}
            runs.append(r)
        r["last"], r["guard"] = call, guard
        r["e"].append(e)
    print("| site | calls | alg | why | mode | static | e ms (min / median / max) | guard at the run's end |")
    print("|---|---|---|---|---|---|---|---|")
    for r in runs:
        site, alg, static, mode, reason = r["key"]
        e = r["e"]
        print("| %d | %d-%d (%d) | %s | %s | %s | %s | %.1f / %.1f / %.1f | %s |" % (
            site, r["first"], r["last"], len(e), alg, reason, mode, static, min(e), statistics.median(e), max(e),
            r["guard"]))


if __name__ == "__main__":
    main()
