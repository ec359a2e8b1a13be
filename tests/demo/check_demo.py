#!/usr/bin/env python3
"""Test of the main job's pieces (bench/demo.sh --tiny: P=2, one 8K-float size,
maxDelay 0 and 2 ms, native/ard/auto, 3 iterations), on local ranks, with a
stub in place of bench/cluster/pat-cluster (no root needed, nothing of the
machine's network touched):

 1. the stub cannot host a cluster (exit 77): the demo says why in one line and
    runs on shared memory; it calibrates into the cache, prints the table (a
    row per cell with auto's speed-up over NATIVE, and a column with a time for
    every algorithm auto ran, measured in the cell's launch) and draws the plot;
 2. the same again: the cached model is reused, not remade;
 3. the stub "hosts" one (its `run` is mpirun on local ranks): the demo takes
    the cluster path (its own cache entry), and calls `down` once, after `up`;
 4. the same, interrupted with SIGINT while the grid runs: exit status 130,
    `down` called, and nothing it started is left running.

Results, not timings.

  check_demo.py --demo bench/demo.sh --build build --workdir DIR
"""
import argparse
import csv
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

failures = []

STUB = r"""#!/usr/bin/env bash
# A stand-in for bench/cluster/pat-cluster (tests/demo/check_demo.py).
set -euo pipefail
cmd=${1:-}; [ $# -gt 0 ] && shift
echo "$cmd $* pid=$$" >>"$STUB_LOG"
case $cmd in
  up)
    if [ -n "${STUB_UP_FAIL:-}" ]; then
      echo "pat-cluster: cannot build the emulated cluster: $STUB_UP_FAIL" >&2
      exit 77
    fi ;;
  down) ;;
  run)
    [ "${1:-}" = --timeout ] && shift 2
    exec mpirun --oversubscribe --bind-to none "$@" ;;
  *) exit 2 ;;
esac
"""


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    sys.stdout.flush()
    if not cond:
        failures.append(what)


def env_for(args, name, **extra):
    env = dict(os.environ)
    for k in ("PAT_MODEL", "PAT_DEMO_CALIBRATE", "PAT_DEMO_P", "PAT_CLUSTER_PREFIX", "PAT_CLUSTER_NET"):
        env.pop(k, None)
    env.update({"PAT_BUILD_DIR": args.build, "PAT_DEMO_CACHE": os.path.join(args.workdir, "cache"),
                "PAT_DEMO_OUT": os.path.join(args.workdir, name), "PAT_DEMO_CLUSTER": args.stub,
                "PAT_CLUSTER_STATE_ROOT": os.path.join(args.workdir, "state"),
                "PAT_CLUSTER_PREFIX": "pdtst", "PAT_CLUSTER_NET": "10.77.250",
                "STUB_LOG": os.path.join(args.workdir, name + ".stub.log"),
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "PAT_DEMO_MAX_SECONDS": "600"})
    env.update(extra)
    shutil.rmtree(env["PAT_DEMO_OUT"], ignore_errors=True)
    if os.path.exists(env["STUB_LOG"]):
        os.remove(env["STUB_LOG"])
    return env


def default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a shell started with SIGINT ignored cannot trap it


def run(args, name, env, extra=()):
    cmd = ["bash", args.demo, "--tiny"] + list(extra)
    print("$ %s   (%s)" % (" ".join(cmd), name))
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=400, preexec_fn=default_sigint)
    print(res.stdout)
    return res.returncode, res.stdout


def stub_log(env):
    try:
        with open(env["STUB_LOG"]) as f:
            return [line.split()[0] for line in f if line.strip()]
    except OSError:
        return []


def check_results(env, text, platform):
    out = env["PAT_DEMO_OUT"]
    rows = []
    if os.path.exists(os.path.join(out, "results.csv")):
        with open(os.path.join(out, "results.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    cells = {(r["N_requested"], r["delay_req"], r["alg"]) for r in rows if r.get("status") == "ok"}
    listed = {(n, d, a) for n, d, _ in cells for a in ("native", "ard", "auto")}
    check(len(listed) == 6 and listed <= cells, "%s: results.csv has ok rows of native, ard, auto in 2 cells: %s"
          % (platform, sorted(cells)))
    check(not any(r.get("status") == "errors" for r in rows), "%s: no wrong results" % platform)
    check(re.search(r"^N\s+block\s+maxDelay\s+native\s+ard\s+(\S+\s+)*auto\s+auto ran\s+auto vs NATIVE", text, re.M)
          is not None, "%s: the table's header" % platform)
    check_auto_ran(rows, text, platform)
    for d in ("0ms", "2ms"):
        check(re.search(r"^8K\s+32 KiB\s+%s\s.*\d\.\d\dx \+-\d" % d, text, re.M) is not None
              or re.search(r"^8K\s+16 KiB\s+%s\s.*\d\.\d\dx \+-\d" % d, text, re.M) is not None,
              "%s: a row for maxDelay %s with auto's speed-up over NATIVE" % (platform, d))
    check("P = 2 (%s)" % platform in text, "%s: the table says the platform" % platform)
    check(os.path.exists(os.path.join(out, "demo.txt")), "%s: demo.txt written" % platform)
    if shutil.which("gnuplot"):
        check(os.path.exists(os.path.join(out, "demo.png")) and "plot: " in text and "demo.png" in text,
              "%s: the plot demo.png drawn and named" % platform)
    else:
        print("skip  plot (no gnuplot)")


def table_cells(text):
    """The demo table as {(N, maxDelay): {column: text}}, columns cut where the dashes under the header are."""
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if re.match(r"N\s+block\s+maxDelay", l)), None)
    if at is None or at + 1 >= len(lines):
        return {}
    spans = [m.span() for m in re.finditer(r"-+", lines[at + 1])]
    cut = lambda line: [line[a:b].strip() for a, b in spans]
    head, out = cut(lines[at]), {}
    for line in lines[at + 2:]:
        if not line.strip():
            break
        row = dict(zip(head, cut(line.ljust(spans[-1][1]))))
        out[(row["N"], row["maxDelay"])] = row
    return out


def check_auto_ran(rows, text, platform):
    """Every algorithm auto ran in a cell has a row of its own in that cell's launch and a time in the table."""
    table = table_cells(text)
    for auto in (r for r in rows if r.get("alg") == "auto" and r.get("status") == "ok"):
        ran = [p.split("=")[0] for p in auto.get("chosen", "").split(";") if "=" in p and not p.startswith("other=")]
        same = {r["alg"]: r for r in rows if r.get("launch") == auto.get("launch")}
        row = table.get(("8K", auto["delay_req"] + "ms"), {})
        shown = {a: row.get(a, "") for a in ran}
        check(ran and all(same.get(a, {}).get("status") == "ok" for a in ran) and
              all(re.fullmatch(r"\*?[\d.]+", v) for v in shown.values()),
              "%s: maxDelay %sms: a column with a time for each algorithm auto ran (%s), measured in its launch: %s"
              % (platform, auto["delay_req"], auto.get("chosen"), shown))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--demo", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    args.stub = os.path.join(args.workdir, "pat-cluster-stub")
    with open(args.stub, "w") as f:
        f.write(STUB)
    os.chmod(args.stub, 0o755)
    cache = os.path.join(args.workdir, "cache")

    # 1. no cluster here: shared memory, calibrated into the cache
    env = env_for(args, "shm1", STUB_UP_FAIL="the stub says no")
    code, text = run(args, "shm1", env)
    check(code == 0, "no cluster: exit status 0 (got %d)" % code)
    why = [l for l in text.splitlines() if "no emulated cluster" in l]
    check(len(why) == 1 and "the stub says no" in why[0] and "shared memory" in why[0],
          "no cluster: one line saying why, and that it runs on shared memory")
    check(stub_log(env) == ["up"], "no cluster: 'up' tried once, nothing to take down: %s" % stub_log(env))
    check("calibrating the cost model on 2 ranks" in text, "shm: calibrates")
    models = glob.glob(os.path.join(cache, "shm-p2-*.model"))
    check(len(models) == 1, "shm: one model in the cache: %s" % models)
    if models:
        base = models[0][:-len(".model")]
        key = open(base + ".key").read() if os.path.exists(base + ".key") else ""
        check(all(s in key for s in ("host: ", "cpu: ", "library: libpat ", "P: 2", "platform: shm",
                                     "calibration: pat-calibrate --quick")),
              "shm: the key names host, CPU, libpat, P, platform, calibration options")
        check(os.path.exists(base + ".csv") and os.path.exists(base + ".log"), "shm: calibration CSV and log kept")
    check_results(env, text, "shm")

    # 2. again: the cache answers
    mtime = os.path.getmtime(models[0]) if models else 0
    env = env_for(args, "shm2", STUB_UP_FAIL="the stub says no")
    code, text = run(args, "shm2", env)
    check(code == 0, "cached: exit status 0 (got %d)" % code)
    check("calibration reused" in text and "calibrating" not in text and "--recalibrate" in text,
          "cached: reuses the model, says how to recalibrate")
    check(models and os.path.getmtime(models[0]) == mtime and
          len(glob.glob(os.path.join(cache, "shm-p2-*.model"))) == 1, "cached: the model file untouched")

    # 3. a cluster (the stub): up, the run through it, down
    env = env_for(args, "cluster")
    code, text = run(args, "cluster", env)
    check(code == 0, "cluster: exit status 0 (got %d)" % code)
    check("emulated cluster: 2 hosts" in text and "no emulated cluster" not in text, "cluster: takes the cluster path")
    log = stub_log(env)
    check(log[:1] == ["up"] and log[-1:] == ["down"] and log.count("up") == 1 and log.count("down") == 1 and
          log.count("run") >= 3, "cluster: up, runs (calibration and 2 cells), down once: %s" % log)
    check("torn down" in text, "cluster: says the cluster is torn down")
    check(len(glob.glob(os.path.join(cache, "cluster-p2-*.model"))) == 1, "cluster: its own cache entry")
    check_results(env, text, "cluster")

    # 4. interrupted while the grid runs
    env = env_for(args, "interrupted")
    cmd = ["bash", args.demo, "--tiny", "--", "--iters", "400", "--base-ms", "5"]
    print("$ %s   (interrupted)" % " ".join(cmd))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, preexec_fn=default_sigint)
    t0 = time.time()
    runs = []
    while time.time() - t0 < 120 and proc.poll() is None:
        with open(env["STUB_LOG"]) if os.path.exists(env["STUB_LOG"]) else open(os.devnull) as f:
            runs = [line for line in f if line.startswith("run ") and "pat-minibench" in line]
        if runs:
            break
        time.sleep(0.2)
    time.sleep(2)  # well inside the first cell (400 iterations of >= 10 ms)
    pids = [int(m) for m in re.findall(r"pid=(\d+)", "".join(runs))]
    check(bool(runs) and proc.poll() is None, "interrupted: the grid was running")
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    print(out)
    check(proc.returncode == 130, "interrupted: exit status 130 (got %s)" % proc.returncode)
    check("interrupted (SIGINT)" in out, "interrupted: says so")
    check(stub_log(env)[-1:] == ["down"], "interrupted: 'down' called last: %s" % stub_log(env))
    time.sleep(1)
    left = [p for p in pids if os.path.exists("/proc/%d" % p)]
    check(not left, "interrupted: the launch it started (mpirun, pid %s) is gone" % pids)

    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
