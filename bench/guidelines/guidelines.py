#!/usr/bin/env python3
"""Self-consistent performance guidelines for PAT_Allgather (Hagn).

A specialised collective should never be slower than the same operation
composed of other collectives of the MPI library.  This driver runs
pat-minibench in several separate launches with PAT_Allgather (auto),
NATIVE and four mock-ups of the all-gather built from native collectives
(bench/minibench/mockups.c: Gather+Bcast, Alltoall, Allreduce, Allgatherv),
balanced (maxDelay 0) and imbalanced, every call checked element by element.
Per launch each configuration gives one mean ebar; across launches the
medians are compared, and a one-sided exact Mann-Whitney U test (alpha 0.05)
asks whether the mock-up (or NATIVE) is faster than auto.  A VIOLATION is a
mock-up with a lower median whose advantage is significant.

    python3 bench/guidelines/guidelines.py [-P 4] [--launches 5] [--N 128K,1M] [--delays 0,10,50]
        [--launcher "mpirun -np {P} --oversubscribe --bind-to none"] [--out DIR]

Writes DIR/report.md, DIR/results.csv (every minibench row, with its launch)
and DIR/raw/; prints the report.  Exit status 1 if any call gave a wrong
result or failed (timings never fail the run).
"""
import argparse
import csv
import datetime
import math
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "sweep"))
import sweep  # noqa: E402  (parse_count, machine_info, default_bench)

MOCKUPS = ("mock-gather-bcast", "mock-alltoall", "mock-allreduce", "mock-allgatherv")
REFERENCE = "auto"
OTHERS = ("native",) + MOCKUPS


def mann_whitney_less(x, y):
    """Exact one-sided p-value of H1 'x tends to be smaller than y' (no ties
    correction needed for continuous timings; ties count one half)."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return float("nan")
    u = sum(1.0 if a < b else 0.5 if a == b else 0.0 for a in x for b in y)  # pairs where x wins
    # null distribution of U: f(n1, n2, k) counts the orderings with k pairs x < y
    # (the largest element is an x: no new pair; a y: n1 new pairs)
    memo = {}

    def f(a, b, k):
        if k < 0:
            return 0
        if a == 0 or b == 0:
            return 1 if k == 0 else 0
        key = (a, b, k)
        if key not in memo:
            memo[key] = f(a - 1, b, k) + f(a, b - 1, k - a)
        return memo[key]

    total = math.comb(n1 + n2, n1)
    hits = sum(f(n1, n2, k) for k in range(math.ceil(u - 1e-9), n1 * n2 + 1))
    return hits / total


def run_launch(args, launch, N, delay, raw):
    algs = ",".join((REFERENCE,) + OTHERS)
    base = os.path.join(raw, "L%02d-N%s-d%s" % (launch, N, delay))
    launcher = [w.replace("{P}", str(args.P)) for w in shlex.split(args.launcher)]
    cmd = launcher + [args.bench, "-N", str(sweep.parse_count(N)), "--max-delay", str(delay), "--alg", algs,
                      "--iters", str(args.iters), "--warmup", "2", "--base-ms", str(args.base_ms),
                      "--seed", str(launch + 1), "--csv", base + ".csv", "--label", "guidelines", "--quiet"] + \
        shlex.split(args.bench_args)
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    if os.path.exists(base + ".csv"):
        os.remove(base + ".csv")
    with open(base + ".log", "w") as log:
        log.write("$ %s\n" % shlex.join(cmd))
        log.flush()
        p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=args.timeout)
    rows = list(csv.DictReader(open(base + ".csv"))) if os.path.exists(base + ".csv") else []
    for r in rows:
        r["launch"] = str(launch)
        r["N_label"] = N
        r["delay_label"] = str(delay)
    return p.returncode, rows, shlex.join(cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-P", type=int, default=4)
    ap.add_argument("--launches", type=int, default=5)
    ap.add_argument("--N", default="128K,1M", help="total floats, comma list (default 128K,1M)")
    ap.add_argument("--delays", default="0,10,50", help="maxDelay in ms, comma list; 0 = balanced (default 0,10,50)")
    ap.add_argument("--iters", type=int, default=16)
    ap.add_argument("--base-ms", type=float, default=20.0)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--launcher", default=sweep.DEFAULT_LAUNCHER)
    ap.add_argument("--bench", default=sweep.default_bench())
    ap.add_argument("--bench-args", default="", help="extra pat-minibench arguments (e.g. --inject-error, for tests)")
    ap.add_argument("--label", default="local")
    ap.add_argument("--out", default=None)
    ap.add_argument("--timeout", type=float, default=1800)
    a = ap.parse_args()
    sizes = [s.strip() for s in a.N.split(",") if s.strip()]
    delays = [float(d) if "." in d else int(d) for d in a.delays.split(",") if d.strip()]
    out = a.out or os.path.join(REPO, "bench", "results", "%s-guidelines-%s" % (datetime.date.today(), a.label))
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)

    rows, problems, example = [], [], None
    for launch in range(a.launches):  # launches outermost: slow phases of the machine hit every cell alike
        for N in sizes:
            for d in delays:
                rc, rs, cmd = run_launch(a, launch, N, d, raw)
                example = example or cmd
                rows += rs
                if rc != 0 or len(rs) != 1 + len(OTHERS):
                    problems.append("launch %d N=%s maxDelay=%s: exit %d, %d rows (see raw/)" % (launch, N, d, rc, len(rs)))
                for r in rs:
                    if r["status"] != "ok" or int(r["errors"] or 0) or int(r["failed_calls"] or 0):
                        problems.append("launch %d N=%s maxDelay=%s %s: status %s, %s wrong elements, %s failed calls" % (
                            launch, N, d, r["alg"], r["status"], r["errors"], r["failed_calls"]))
    if rows:
        with open(os.path.join(out, "results.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)

    info = sweep.machine_info()
    lines = ["# Performance guidelines: PAT_Allgather (auto) against mock-ups", "",
             "Date %s; machine: %s cores, %s, %s; P = %d; %d launches; %d measured iterations per configuration "
             "and launch; compute %g ms + delay/2 per half." % (
                 datetime.datetime.now().isoformat(timespec="seconds"), info["nproc"], info["cpu"], info["mpi"], a.P,
                 a.launches, a.iters, a.base_ms), "",
             "Command: `%s`" % shlex.join([sys.executable and "python3"] + sys.argv), "",
             "Example launch: `%s`" % example, "",
             "Each cell: median over launches of the per-launch mean ebar (ms); ratio = other / auto (< 1: the other "
             "is faster); p = one-sided exact Mann-Whitney U test that the other is faster than auto. "
             "VIOLATION: a mock-up with a lower median and p < %g; NATIVE is shown for reference." % a.alpha, "",
             "| N | maxDelay | auto (ms) | other | other (ms) | ratio | p | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    checks = violations = 0
    for N in sizes:
        for d in delays:
            per = {}
            for r in rows:
                if r["N_label"] == N and r["delay_label"] == str(d) and r["status"] == "ok":
                    per.setdefault(r["alg"], []).append(float(r["ebar_us"]) / 1e3)
            ref = per.get(REFERENCE, [])
            if not ref:
                lines.append("| %s | %s ms | — | | | | | no data |" % (N, d))
                continue
            mref = statistics.median(ref)
            for other in OTHERS:
                x = per.get(other, [])
                if not x:
                    lines.append("| %s | %s ms | %.3f | %s | — | | | no data |" % (N, d, mref, other))
                    continue
                m = statistics.median(x)
                p = mann_whitney_less(x, ref)
                verdict = "ok"
                if other in MOCKUPS:
                    checks += 1
                    if m < mref and p < a.alpha:
                        verdict = "**VIOLATION**"
                        violations += 1
                elif m < mref and p < a.alpha:
                    verdict = "native faster"
                lines.append("| %s | %s ms | %.3f | %s | %.3f | %.2f | %.3f | %s |" % (N, d, mref, other, m, m / mref, p,
                                                                                     verdict))
    lines += ["", "**%d violations of %d checks** (mock-ups significantly faster than auto)." % (violations, checks)]
    if a.launches < 4:
        lines.append("With %d launches no difference can be significant at %g (the smallest exact p is %.3f): "
                     "use 5 or more." % (a.launches, a.alpha, 1 / math.comb(2 * a.launches, a.launches)))
    if problems:
        lines += ["", "CORRECTNESS OR RUN PROBLEMS:", ""] + ["- " + x for x in problems]
    else:
        lines += ["", "Every call of every configuration gave the right result (checked element by element)."]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text)
    print("results in %s" % out)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
