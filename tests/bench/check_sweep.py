#!/usr/bin/env python3
"""Test of bench/sweep/sweep.py: a tiny sweep (P=2, two sizes, two delays, two
classic algorithms and one that may not exist yet) must produce the table,
the CSV with a row per (N, delay, algorithm), the results README and at
least one PNG (skipped, with the reason printed, when gnuplot is missing);
bench/regenerate.sh (--regenerate) must redraw the same plots, byte
for byte, from results.csv alone, and print the sweep's command.
Then a sweep whose launcher always fails must still finish and mark its
rows 'crashed'.  No timing assertions.

  check_sweep.py --sweep bench/sweep/sweep.py --bench build/.../pat-minibench --workdir DIR
                 [--regenerate bench/regenerate.sh]
"""
import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def sweep(args, out, extra):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, args.sweep, "--bench", args.bench, "--out", out, "--quiet"] + extra
    print("$ " + " ".join(cmd))
    sys.stdout.flush()
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         timeout=900)
    print(res.stdout)
    rows = []
    path = os.path.join(out, "results.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    return res.returncode, res.stdout, rows


def regenerate_plots(script, out):
    """Move plots/ aside, redraw it with regenerate.sh from results.csv, compare."""
    plots, kept = os.path.join(out, "plots"), os.path.join(out, "plots.sweep")
    shutil.rmtree(kept, ignore_errors=True)
    os.rename(plots, kept)
    res = subprocess.run(["bash", script, "plots", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=300)
    print(res.stdout)
    check(res.returncode == 0, "regenerate.sh plots: exit status 0 (got %d)" % res.returncode)
    before = sorted(os.listdir(kept))
    after = sorted(os.listdir(plots)) if os.path.isdir(plots) else []
    check(after == before, "regenerate.sh plots: the same %d files as the sweep drew (%d)" % (len(before), len(after)))
    same = [f for f in before if f in after and
            open(os.path.join(kept, f), "rb").read() == open(os.path.join(plots, f), "rb").read()]
    check(len(same) == len(before), "regenerate.sh plots: %d of %d files identical to the sweep's" % (len(same), len(before)))
    res = subprocess.run(["bash", script, "commands", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=60)
    print(res.stdout)
    check(res.returncode == 0 and "sweep.py" in res.stdout and "--label test" in res.stdout,
          "regenerate.sh commands: prints the sweep's command")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--regenerate", help="bench/regenerate.sh: also check that it redraws the plots")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)

    out = os.path.join(args.workdir, "tiny")
    code, text, rows = sweep(args, out, ["--P", "2", "--N", "1K,4K", "--delays", "0,1", "--algs", "ring,native,bdr",
                                         "--iters", "2", "--warmup", "0", "--base-ms", "1", "--label", "test"])
    check(code == 0, "sweep exit status 0 (got %d)" % code)
    check("fastest algorithm" in text and "N \\ maxDelay" in text, "the paper-style table is printed")
    check(os.path.exists(os.path.join(out, "table.txt")), "table.txt written")
    check(os.path.exists(os.path.join(out, "README.md")), "results README written")
    if os.path.exists(os.path.join(out, "README.md")):
        readme = open(os.path.join(out, "README.md")).read()
        for word in ("sweep.py", "nproc", "CPU", "MPI", "started"):
            check(word in readme, "results README records %s" % word)
    cells = {(r["N_requested"], r["delay_req"], r["alg"]) for r in rows}
    want = {(n, d, a) for n in ("1024", "4096") for d in ("0", "1") for a in ("ring", "native", "bdr")}
    check(cells == want, "results.csv has one row per (N, delay, algorithm): %d rows" % len(rows))
    for r in rows:
        if r["alg"] in ("ring", "native"):
            check(r["status"] == "ok" and r["errors"] == "0", "%s N=%s d=%s ok and correct"
                  % (r["alg"], r["N_requested"], r["delay_req"]))
        else:
            check(r["status"] in ("ok", "failed"), "bdr N=%s d=%s: ok or reported failed (%s)"
                  % (r["N_requested"], r["delay_req"], r["status"]))
    if shutil.which("gnuplot"):
        pngs = glob.glob(os.path.join(out, "plots", "*.png"))
        check(len(pngs) >= 1, "at least one PNG plot (%d)" % len(pngs))
        if args.regenerate:
            regenerate_plots(args.regenerate, out)
    else:
        print("skip  PNG check: gnuplot is not installed (Debian package gnuplot-nox)")

    # a launcher that always fails: the sweep finishes and marks the rows
    out2 = os.path.join(args.workdir, "broken")
    code, text, rows = sweep(args, out2, ["--launcher", "false", "--P", "2", "--N", "1K", "--delays", "0",
                                          "--algs", "ring,native", "--iters", "1", "--warmup", "0",
                                          "--base-ms", "1", "--no-plots"])
    check({r["alg"]: r["status"] for r in rows} == {"ring": "crashed", "native": "crashed"},
          "broken launcher: each algorithm marked crashed")
    check(os.path.exists(os.path.join(out2, "table.txt")), "broken launcher: the sweep still finished")

    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
