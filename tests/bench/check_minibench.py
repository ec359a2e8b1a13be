#!/usr/bin/env python3
"""MPI test of pat-minibench: a few iterations of every working classic
algorithm at a small N; asserts that the correctness check found zero wrong
elements, that the CSV has exactly the columns documented in bench/README.md,
that a failing algorithm is reported without stopping the run, and that the
common clock removes an injected skew.  Unequal blocks (--counts ramp and
onebig through PAT_Allgatherv, ring, relay and native): correct, the counts
column names the distribution, a corrupted element is counted, the mock-ups
refuse them.  Each algorithm runs on a communicator of its own in either
order, so PAT_REPORT's row of auto's site counts auto's calls only.
--also-chosen adds a row for each algorithm auto ran that the list lacks.
--overlap (post, compute, wait) runs the non-blocking calls correctly, equal
and unequal blocks.  No timing assertions.

--allreduce runs only the all-reduce mode, once (--coll allreduce under
PAT_ALLREDUCE=ring, two calls of a few hundred floats): it exits 0 with one
row, status ok, the documented columns and the sums checked exact.  Kept
apart and short, under a second of CI time (a refused launch costs mpirun
seconds: test_mb_stats checks the refusals by parsing alone).

  check_minibench.py --mpiexec mpirun --np 3 --bench build/.../pat-minibench \
      --readme bench/README.md --workdir build/tests/bench/np3
"""
import argparse
import csv
import os
import subprocess
import sys

CLASSIC = ["native", "ring", "nex", "rdb", "bruck", "lnbc", "direct"]
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def documented_columns(readme):
    cols, inside = [], False
    with open(readme) as f:
        for line in f:
            if "csv-columns:begin" in line:
                inside = True
            elif "csv-columns:end" in line:
                break
            elif inside and line.startswith("| `"):
                cols.append(line.split("`")[1])
    return cols


def block_counts(dist, P, mean):
    """bench/minibench/data.c's mb_block_counts for the integer weights: floor of
    the share, then +1 by largest remainder (ties to the lower rank)."""
    w = [1] * P
    if dist == "onebig":
        w[P - 1] = 4
    elif dist == "ramp":
        w = [r + 1 for r in range(P)]
    total, W = P * mean, sum(w)
    c = [total * x // W for x in w]
    rem = sorted(range(P), key=lambda r: (-(total * w[r] % W), r))
    for r in rem[:total - sum(c)]:
        c[r] += 1
    return c


def run(args, extra, csv_path, env=None):
    if os.path.exists(csv_path):
        os.remove(csv_path)
    xs = [a for k in sorted(env or {}) for a in ("-x", k)]
    cmd = [args.mpiexec, "-np", str(args.np), "--oversubscribe", "--bind-to", "none"] + xs + [args.bench,
           "--csv", csv_path, "--quiet"] + extra
    print("$ " + " ".join(("%s=%s " % (k, env[k]) for k in sorted(env or {}))) + " ".join(cmd))
    sys.stdout.flush()
    full_env = dict(os.environ, **(env or {}))
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         timeout=600, env=full_env)
    print(res.stdout)
    with open(csv_path, newline="") as f:
        header = next(csv.reader(f), [])
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    return res.returncode, header, rows, res.stdout


def check_allreduce(args, documented):
    n_req, iters = 300, 2
    code, header, rows, out = run(args, ["-N", str(n_req), "--iters", str(iters), "--warmup", "0", "--flat-iters", "0",
                                         "--base-ms", "1", "--max-delay", "2", "--coll", "allreduce"],
                                  os.path.join(args.workdir, "allreduce.csv"), env={"PAT_ALLREDUCE": "ring"})
    check(code == 0, "allreduce: exit status 0 (got %d)" % code)
    check(header == documented, "allreduce: the documented CSV header")
    r = rows[0] if len(rows) == 1 else {}
    check(r.get("alg") == "ring" and r.get("status") == "ok", "allreduce: one row, alg ring (PAT_ALLREDUCE), status ok "
          "(%s)" % [(x["alg"], x["status"], x["message"]) for x in rows])
    check(r.get("errors") == "0" and r.get("iters") == str(iters) and r.get("alg_disagree") == "0",
          "allreduce: %d calls, every sum exact (%s wrong)" % (iters, r.get("errors")))
    n = (n_req // args.np) * args.np
    check(r.get("N") == str(n) and r.get("count_per_rank") == str(n_req // args.np),
          "allreduce: N = %d floats reduced, shares of N/P" % n)
    check(float(r.get("elb_us") or 0) > 0 and "all-reduce: elb" in out, "allreduce: the all-reduce's bound")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--readme", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--allreduce", action="store_true", help="only the all-reduce mode's short run")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    documented = [c for c in documented_columns(args.readme) if c not in ("delay_req", "delay_unit", "launch")]
    check(len(documented) > 30, "bench/README.md documents the CSV columns (%d found)" % len(documented))
    if args.allreduce:
        check_allreduce(args, documented)
        print("%d check(s) failed" % len(failures) if failures else "all checks passed")
        return 1 if failures else 0

    # 1. every working classic algorithm; N not divisible by P on purpose (1001)
    iters = 3
    code, header, rows, out = run(args, ["-N", "1001", "--iters", str(iters), "--warmup", "1", "--base-ms", "1",
                                         "--max-delay", "2", "--alg", ",".join(CLASSIC)],
                                  os.path.join(args.workdir, "classic.csv"))
    check(code == 0, "exit status 0 (got %d)" % code)
    check(header == documented, "CSV header equals the documented columns"
          + ("" if header == documented else ": got %s" % header))
    check([r["alg"] for r in rows] == CLASSIC, "one row per algorithm, in order")
    for r in rows:
        a = r["alg"]
        check(r["status"] == "ok", "%s: status ok (%s %s)" % (a, r["status"], r["message"]))
        check(r["errors"] == "0", "%s: correctness check found 0 wrong elements (%s)" % (a, r["errors"]))
        check(r["failed_calls"] == "0", "%s: no failed call" % a)
        check(r["iters"] == str(iters), "%s: %d measured iterations" % (a, iters))
        check(r["chosen"] == "%s=%d" % (a, iters), "%s: PAT_LastAlg named it every time (%s)" % (a, r["chosen"]))
        check(r["alg_disagree"] == "0", "%s: ranks agree on the algorithm" % a)
        check(r["P"] == str(args.np) and r["N_requested"] == "1001", "%s: P and N_requested recorded" % a)
        check(int(r["N"]) == (1001 // args.np) * args.np, "%s: N = floor(N/P)*P = %s" % (a, r["N"]))
        for col in ("ebar_us", "r_us", "omega_us", "elb_us", "tau_us", "absorption_us"):
            check(r[col] != "", "%s: %s present" % (a, col))
        check(r["counts"] == "equal" and r["compute_by_size"] == "0", "%s: counts equal, compute_by_size 0" % a)

    # 2. a failing (or not yet available) algorithm between two working ones
    code, header, rows, out = run(args, ["-N", "64", "--iters", "2", "--warmup", "0", "--base-ms", "1",
                                         "--max-delay", "0", "--alg", "ring,bdr,native,ring"],
                                  os.path.join(args.workdir, "mixed.csv"))
    check(code == 0, "mixed run: exit status 0 without --strict (got %d)" % code)
    by = {r["alg"]: r for r in rows}
    check(set(by) == {"ring", "bdr", "native", "ring#2"}, "mixed run: a row for each algorithm, the twin as ring#2")
    for a in ("ring", "native", "ring#2"):
        check(by.get(a, {}).get("status") == "ok" and by[a]["errors"] == "0", "mixed run: %s ran and is correct" % a)
    bdr = by.get("bdr", {})
    if bdr.get("status") == "failed":
        check(bdr["message"] != "" and "FAILED" in out, "bdr failed and the reason is reported: %s" % bdr["message"])
    else:
        check(bdr.get("status") == "ok" and bdr.get("errors") == "0", "bdr runs and is correct")

    # 2b. a failure in the middle of a run (injected on the last rank, 2nd measured call), in both orders
    for order in ("interleaved", "blocked"):
        code, header, rows, out = run(args, ["-N", "64", "--iters", "3", "--warmup", "1", "--base-ms", "1",
                                             "--max-delay", "1", "--alg", "ring,native,lnbc", "--order", order,
                                             "--inject-fail", "native"],
                                      os.path.join(args.workdir, "fail-%s.csv" % order))
        by = {r["alg"]: r for r in rows}
        nat = by.get("native", {})
        check(nat.get("status") == "failed" and nat.get("iters") == "1" and "injected" in nat.get("message", ""),
              "%s: the failing algorithm is marked failed after 1 measured iteration, with its message" % order)
        for a in ("ring", "lnbc"):
            r = by.get(a, {})
            check(r.get("status") == "ok" and r.get("iters") == "3" and r.get("errors") == "0",
                  "%s: %s completes correctly after another algorithm failed" % (order, a))
        check(code == 0, "%s: exit status 0 without --strict (got %d)" % (order, code))

    # 3. injected clock skew is removed by the offset estimate (1 s per rank)
    if args.np > 1:
        code, header, rows, out = run(args, ["-N", "64", "--iters", "2", "--warmup", "0", "--base-ms", "1",
                                             "--max-delay", "0", "--alg", "ring", "--inject-skew-us", "1000000"],
                                      os.path.join(args.workdir, "skew.csv"))
        r = rows[0] if rows else {}
        off = float(r.get("clock_offset_max_us") or 0)
        omega = float(r.get("omega_us") or 1e12)
        check(abs(off - 1e6 * (args.np - 1)) < 1e5, "skew: estimated offset %.0f us ~ injected %d us"
              % (off, 1e6 * (args.np - 1)))
        check(omega < 1e5, "skew: arrivals on the common clock are not 1 s apart (omega %.0f us)" % omega)
        check(r.get("errors") == "0", "skew: correct results")

    # 3b. the uninstrumented mode with arrivals redrawn every call (the guardrail's workload): auto is correct
    #     and every rank agrees on its choice
    code, header, rows, out = run(args, ["-N", "4096", "--iters", "12", "--warmup", "1", "--base-ms", "1",
                                         "--max-delay", "3", "--alg", "native,auto", "--instrument", "none"],
                                  os.path.join(args.workdir, "uninstrumented.csv"))
    by = {r["alg"]: r for r in rows}
    for a in ("native", "auto"):
        r = by.get(a, {})
        check(r.get("status") == "ok" and r.get("iters") == "12" and r.get("errors") == "0"
              and r.get("alg_disagree") == "0", "uninstrumented: %s runs 12 iterations, correct, ranks agree" % a)
    check(code == 0, "uninstrumented: exit 0 (exit %d)" % code)

    # 3c. auto's call site sees only auto's calls, in either order (issue 53): interleaved on one shared
    #     communicator, auto learned from every other algorithm's calls and ran NATIVE where a user's program
    #     running auto alone would not.  PAT_REPORT's rows are per communicator: one per algorithm, each with
    #     exactly its own calls (warm-up + measured + flat); shared, one row had them all.  PAT_ONE_NODE=auto:
    #     on one node auto would otherwise pass every call to MPI, past the sites.
    warmup, iters, flat = 1, 3, 5
    for order in ("interleaved", "blocked"):
        code, header, rows, out = run(args, ["-N", "3000", "--iters", str(iters), "--warmup", str(warmup),
                                             "--flat-iters", str(flat), "--base-ms", "1", "--max-delay", "2",
                                             "--alg", "ring,auto,native,relay", "--order", order],
                                      os.path.join(args.workdir, "sites-%s.csv" % order),
                                      env={"PAT_REPORT": "1", "PAT_ONE_NODE": "auto"})
        check(code == 0 and all(r["errors"] == "0" and r["status"] == "ok" for r in rows),
              "%s, PAT_REPORT=1: exit 0, correct (exit %d)" % (order, code))
        sites = {}
        for line in out.splitlines():
            if line.startswith("libpat report: minibench "):
                f = line[len("libpat report: minibench "):].split()
                # the name's tail, world ranks, P, "count", "x", type, calls, algorithms...
                sites[f[0]] = int(f[6])
        check(sorted(sites) == ["auto", "native", "relay", "ring"],
              "%s: one report row per algorithm's communicator (%s)" % (order, sorted(sites)))
        total = warmup + iters + flat
        for a, calls in sorted(sites.items()):
            check(calls == total, "%s: %s's site saw its own %d calls only (%d)" % (order, a, total, calls))

    # 3d. --also-chosen: after the list, every algorithm auto ran that the list lacks, in the same launch
    code, header, rows, out = run(args, ["-N", "3000", "--iters", "4", "--warmup", "1", "--base-ms", "1",
                                         "--max-delay", "2", "--alg", "ring,auto", "--also-chosen"],
                                  os.path.join(args.workdir, "also-chosen.csv"), env={"PAT_ONE_NODE": "auto"})
    auto = next((r for r in rows if r["alg"] == "auto"), {})
    ran = [p.split("=")[0] for p in auto.get("chosen", "").split(";") if "=" in p and not p.startswith("other=")]
    want = ["ring", "auto"] + [a for a in ran if a != "ring"]
    check(code == 0 and [r["alg"] for r in rows] == want and ran,
          "--also-chosen: the rows are the list, then what auto ran (%s) that it lacks: %s" % (
              auto.get("chosen"), [r["alg"] for r in rows]))
    check(all(r["status"] == "ok" and r["errors"] == "0" and r["iters"] == "4" for r in rows),
          "--also-chosen: every row ran its 4 iterations, correct")

    # 3e. --overlap: PAT_Iallgather(v) posted, compute, MPI_Wait; libpat's schedules in its background thread
    # (PAT_ALG=ring at PAT_Init starts it) and MPI's own, correct
    for dist in ("equal", "ramp"):
        code, header, rows, out = run(args, ["-N", "3000", "--iters", "3", "--warmup", "1", "--base-ms", "1",
                                             "--max-delay", "2", "--overlap", "1", "--counts", dist,
                                             "--alg", "native,ring,bruck"],
                                      os.path.join(args.workdir, "overlap-%s.csv" % dist), env={"PAT_ALG": "ring"})
        check(code == 0 and [r["alg"] for r in rows] == ["native", "ring", "bruck"] and
              all(r["status"] == "ok" and r["errors"] == "0" and r["iters"] == "3" for r in rows),
              "--overlap 1, --counts %s: every row ran its 3 iterations, correct (%s)" % (
                  dist, [(r["alg"], r["status"], r["errors"]) for r in rows]))

    # 3f. --persistent: set up once, PAT_Start, MPI_Wait; MPI's own (native) and libpat's starts (relay,
    # auto: what PAT_Iallgather(v) runs), correct; with --overlap too
    for dist, extra in (("equal", []), ("ramp", ["--overlap", "1"])):
        code, header, rows, out = run(args, ["-N", "3000", "--iters", "3", "--warmup", "1", "--base-ms", "1",
                                             "--max-delay", "2", "--persistent", "--counts", dist] + extra +
                                      ["--alg", "native,relay,auto"],
                                      os.path.join(args.workdir, "persistent-%s.csv" % dist), env={"PAT_ALG": "relay"})
        check(code == 0 and [r["alg"] for r in rows] == ["native", "relay", "auto"] and
              all(r["status"] == "ok" and r["errors"] == "0" and r["iters"] == "3" and float(r["elb_us"]) > 0
                  for r in rows) and "persistent bound" in out,
              "--persistent, --counts %s %s: every row ran its 3 iterations, correct, with the persistent bound (%s)" % (
                  dist, " ".join(extra), [(r["alg"], r["status"], r["errors"]) for r in rows]))

    # 4. the correctness check counts a corrupted element (fault injection)
    code, header, rows, out = run(args, ["-N", "64", "--iters", "2", "--warmup", "1", "--base-ms", "1",
                                         "--max-delay", "0", "--alg", "ring", "--inject-error"],
                                  os.path.join(args.workdir, "corrupt.csv"))
    r = rows[0] if rows else {}
    check(code == 1, "corrupted run: exit status 1 (got %d)" % code)
    check(r.get("status") == "errors" and r.get("errors") == "3",
          "corrupted run: status errors, 3 wrong elements counted (%s, %s)" % (r.get("status"), r.get("errors")))
    check("WRONG RESULTS" in out, "corrupted run: the summary says so")

    # 6. unequal blocks through PAT_Allgatherv (ramp, onebig): correct, the new last columns say which
    n_req, iters = 101, 3
    mean = n_req // args.np
    for dist in ("ramp", "onebig"):
        want = block_counts(dist, args.np, mean)
        code, header, rows, out = run(args, ["-N", str(n_req), "--iters", str(iters), "--warmup", "1", "--base-ms", "1",
                                             "--max-delay", "2", "--alg", "ring,relay,native", "--counts", dist],
                                      os.path.join(args.workdir, "counts-%s.csv" % dist))
        check(code == 0, "--counts %s: exit status 0 (got %d)" % (dist, code))
        check(header == documented and header[-2:] == ["counts", "compute_by_size"],
              "--counts %s: the documented header, counts and compute_by_size last" % dist)
        check([r["alg"] for r in rows] == ["ring", "relay", "native"], "--counts %s: one row per algorithm" % dist)
        for r in rows:
            a = r["alg"]
            check(r["status"] == "ok" and r["errors"] == "0" and r["failed_calls"] == "0" and r["iters"] == str(iters),
                  "--counts %s: %s ran %d iterations, correct (%s, %s errors, %s)" % (dist, a, iters, r["status"],
                                                                                   r["errors"], r["message"]))
            check(r["counts"] == dist and r["compute_by_size"] == "0", "--counts %s: %s's counts column %r, "
                  "compute_by_size %r" % (dist, a, r["counts"], r["compute_by_size"]))
            check(r["N"] == str(mean * args.np) and r["count_per_rank"] == str(mean),
                  "--counts %s: %s: the total and the mean block as with equal blocks" % (dist, a))
            check(r["elb_us"] != "" and float(r["elb_us"]) > 0, "--counts %s: %s: elb present" % (dist, a))
            check(r["alg_disagree"] == "0", "--counts %s: %s: ranks agree on the algorithm" % (dist, a))
            # PAT_LastAlg after a native PAT_Allgatherv is not asserted (bench/README.md, Unequal blocks)
            if a != "native":
                check(r["chosen"] == "%s=%d" % (a, iters), "--counts %s: %s ran its own schedule (%s)"
                      % (dist, a, r["chosen"]))
        check("(counts %s: PAT_Allgatherv on blocks of %d .. %d floats" % (dist, min(want), max(want)) in out,
              "--counts %s: the summary names the distribution and the block sizes %s" % (dist, want))

    # 6b. the check of unequal blocks counts a corrupted element; --compute-by-size scales the delays
    code, header, rows, out = run(args, ["-N", "64", "--iters", "2", "--warmup", "1", "--base-ms", "1",
                                         "--max-delay", "0", "--alg", "ring", "--counts", "onebig", "--inject-error"],
                                  os.path.join(args.workdir, "counts-corrupt.csv"))
    r = rows[0] if rows else {}
    check(code == 1 and r.get("status") == "errors" and r.get("errors") == "3",
          "--counts onebig, corrupted: exit 1, 3 wrong elements counted (%d, %s, %s)"
          % (code, r.get("status"), r.get("errors")))
    trace = os.path.join(args.workdir, "counts-bysize.trace.csv")
    if os.path.exists(trace):
        os.remove(trace)
    code, header, rows, out = run(args, ["-N", "64", "--iters", "3", "--warmup", "0", "--base-ms", "1",
                                         "--max-delay", "4", "--alg", "ring,native", "--counts", "onebig",
                                         "--compute-by-size", "--trace", trace],
                                  os.path.join(args.workdir, "counts-bysize.csv"))
    check(code == 0 and all(r["status"] == "ok" and r["errors"] == "0" and r["counts"] == "onebig"
                            and r["compute_by_size"] == "1" for r in rows) and len(rows) == 2,
          "--counts onebig --compute-by-size: correct, compute_by_size 1 (exit %d)" % code)
    want = block_counts("onebig", args.np, 64 // args.np)
    with open(trace, newline="") as f:
        delays = [(int(t["rank"]), float(t["delay_ms"])) for t in csv.DictReader(f) if t["phase"] == "measured"]
    check(len(delays) == 2 * 3 * args.np and all(d <= 4.0 * want[r] / max(want) + 1e-3 for r, d in delays),
          "--compute-by-size: rank r's delays within maxDelay x count_r / largest count %s" % want)

    # 6c. the mock-ups gather equal blocks only
    res = subprocess.run([args.mpiexec, "-np", "1", args.bench, "--counts", "ramp", "--alg", "ring,mock-allgatherv"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    check(res.returncode != 0 and "mock-ups gather equal blocks only" in res.stdout,
          "--counts ramp with a mock-up refused with a message")

    # 5. usage errors are refused
    res = subprocess.run([args.mpiexec, "-np", "1", args.bench, "--alg", "nosuchalg"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    check(res.returncode != 0 and "unknown algorithm" in res.stdout, "unknown algorithm refused with a message")

    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
