#!/usr/bin/env python3
"""MPI test of the example applications (bench/examples): each runs at a
small size through bench/examples/run.py in every mode -- plain MPI, libpat
under LD_PRELOAD (auto and a fixed algorithm), instrumented (auto, ring,
ard; not bfs, which is plain MPI only) -- and must end with the same checksum of its final state in all of
them, with every rank agreeing (run.py stops otherwise).  libpat's report
must show the call site with one call per step (bfs: its two sites, the
frontier bitmaps and the summary, with one call each per level), and a fixed
algorithm must be the only one that ran.  Results only, never timings.

  check_examples.py --run-py bench/examples/run.py --build build --np 3 --workdir DIR
"""
import argparse
import csv
import os
import subprocess
import sys

CONFIGS = ["native", "preload", "preload-ard", "pat", "pat-ring", "pat-ard"]
PLAIN_CONFIGS = ["native", "preload", "preload-ard"]
# small sizes: a few seconds per run on a loaded 2-core machine; steps: calls per site (None: bfs, two sites
# with the same number of calls, one per level of every search)
APPS = {"nbody": (["-n", "300", "-i", "20"], 20, CONFIGS),
        "heat1d": (["-n", "512", "-i", "20", "-b", "4"], 20, CONFIGS),
        "bfs": (["-v", "2048", "-n", "6"], None, PLAIN_CONFIGS)}
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)


def run_app(args, app, app_args, configs):
    out = os.path.join(args.workdir, app)
    cmd = [sys.executable, args.run_py, "--app", app, "-P", str(args.np), "-r", "1", "--configs", ",".join(configs),
           "--build", args.build, "--timeout", "300", "--out", out, "--"] + app_args
    print("$ " + " ".join(cmd), flush=True)
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    print(res.stdout, flush=True)
    check(res.returncode == 0, f"{app}: run.py succeeded in every mode (exit {res.returncode})")
    path = os.path.join(out, "runs.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_app(app, rows, steps, configs):
    by_config = {r["config"]: r for r in rows}
    check(sorted(by_config) == sorted(configs), f"{app}: one run per mode ({', '.join(sorted(by_config))})")
    sums = {r["checksum"] for r in rows}
    check(len(sums) == 1 and "" not in sums, f"{app}: the same checksum in every mode ({', '.join(sorted(sums))})")
    check(by_config.get("native", {}).get("algorithms", "x") == "", f"{app}: plain MPI ran without libpat")
    for key, r in by_config.items():
        if key == "native":
            continue
        algs = r["algorithms"]
        if steps is None:  # two sites, one call each per level
            per_site = [sum(int(w) for w in site.replace(",", " ").split() if w.isdigit()) for site in algs.split(";")]
            check(len(per_site) == 2 and per_site[0] == per_site[1] > 0,
                  f"{app} {key}: libpat's report shows two sites with equal calls ({algs or 'no report'})")
            algs = algs.split(";")[0].strip()
        else:
            calls = sum(int(w) for w in algs.replace(",", " ").split() if w.isdigit())
            check(calls == steps, f"{app} {key}: libpat's report shows {steps} calls at the site ({algs or 'no report'})")
        fixed = key.partition("-")[2]
        if fixed:
            check(algs.split()[:1] == [fixed] and "," not in algs, f"{app} {key}: only {fixed} ran ({algs})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run-py", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--np", type=int, default=3)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    for app, (app_args, steps, configs) in APPS.items():
        check_app(app, run_app(args, app, app_args, configs), steps, configs)
    print(f"{len(failures)} failure(s)" if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
