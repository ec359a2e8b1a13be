#!/usr/bin/env python3
"""Test of bench/guidelines/guidelines.py: a tiny run (P=3, 2 launches) must
give a report with one row per cell and comparison, every mock-up verified
correct; the same run with --inject-error must fail and say why."""
import argparse
import os
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--script", required=True)
ap.add_argument("--bench", required=True)
ap.add_argument("--workdir", required=True)
a = ap.parse_args()
base = [sys.executable, a.script, "-P", "3", "--launches", "2", "--N", "3K", "--delays", "0,2", "--iters", "3",
        "--base-ms", "1", "--bench", a.bench]


def run(out, extra):
    p = subprocess.run(base + ["--out", out] + extra, capture_output=True, text=True, timeout=300)
    report = open(os.path.join(out, "report.md")).read() if os.path.exists(os.path.join(out, "report.md")) else ""
    return p.returncode, report, p.stdout + p.stderr


failures = []
rc, report, log = run(os.path.join(a.workdir, "good"), [])
if rc != 0:
    failures.append("clean run exited %d:\n%s" % (rc, log[-3000:]))
rows = [l for l in report.splitlines() if l.startswith("| 3K |")]
if len(rows) != 2 * 5:
    failures.append("expected 10 comparison rows (2 cells x native + 4 mock-ups), got %d" % len(rows))
for mock in ("native", "mock-gather-bcast", "mock-alltoall", "mock-allreduce", "mock-allgatherv"):
    if sum(1 for l in rows if "| %s |" % mock in l) != 2:
        failures.append("%s missing from a cell" % mock)
if "no data" in report:
    failures.append("a configuration gave no data")
if "gave the right result" not in report or "CORRECTNESS" in report:
    failures.append("the clean run did not report every result correct")
if "violations of 8 checks" not in report:
    failures.append("the summary line should count 8 checks")

rc, report, log = run(os.path.join(a.workdir, "broken"), ["--bench-args=--inject-error"])
if rc == 0 or "CORRECTNESS" not in report or "mock-allreduce" not in report.split("CORRECTNESS")[1]:
    failures.append("--inject-error: the wrong results (of the mock-ups too) were not reported (rc %d)" % rc)

for f in failures:
    print("FAIL:", f)
print("guidelines check: %s" % ("FAILED" if failures else "passed"))
sys.exit(1 if failures else 0)
