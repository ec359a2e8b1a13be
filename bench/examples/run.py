#!/usr/bin/env python3
"""Run heat1d with the MPI library's all-gather and with libpat, uninstrumented
(LD_PRELOAD of libpat_mpi) and instrumented (heat1d-pat), and print a table:
total time and time in the all-gather (max and mean over ranks), medians over
the repetitions, and the algorithms auto chose.  Repetitions go round-robin
over the configurations, so slow phases of a busy machine hit them alike.
Every run must end with the same checksum of the final field.

usage: bench/examples/run.py [-P 4] [-r 3] [--build build] [--mpirun-args "..."] [-- heat1d options]
"""
import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def configs(build):
    plain = os.path.join(build, "bench", "examples", "heat1d")
    inst = os.path.join(build, "bench", "examples", "heat1d-pat")
    pre = os.path.join(build, "libpat_mpi.so")
    return [
        ("plain MPI (no libpat)", plain, []),
        ("LD_PRELOAD, PAT_ALG=native", plain, ["-x", "LD_PRELOAD=" + pre, "-x", "PAT_ALG=native"]),
        ("LD_PRELOAD, PAT_ALG=auto", plain, ["-x", "LD_PRELOAD=" + pre, "-x", "PAT_ALG=auto", "-x", "PAT_REPORT=1"]),
        ("instrumented, PAT_ALG=native", inst, ["-x", "PAT_ALG=native"]),
        ("instrumented, PAT_ALG=auto", inst, ["-x", "PAT_ALG=auto"]),
    ]


LAUNCHER = "mpirun -np {P} --oversubscribe --bind-to none"


def run_once(P, prog, xs, app_args, mpirun_args, launcher_text=LAUNCHER):
    launcher = [w.replace("{P}", str(P)) for w in shlex.split(launcher_text)]
    cmd = launcher + mpirun_args + xs + [prog] + app_args
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    for k in ("PAT_ALG", "PAT_REPORT", "LD_PRELOAD"):
        env.pop(k, None)  # only what the configuration passes with -x
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    m = re.search(r"total_s=(\S+) allgather_max_s=(\S+) allgather_mean_s=(\S+).* checksum=(\S+) (\S+)(?: algs=(\S+))?",
                  out)
    if p.returncode != 0 or not m or m.group(5) != "ranks-agree":
        sys.exit(f"run failed: {shlex.join(cmd)}\n{out}")
    algs = m.group(6).replace(":", " ").replace(",", ", ") if m.group(6) else ""
    if not algs:  # the uninstrumented build: the libpat report's row for MPI_COMM_WORLD
        r = re.search(r"libpat report: MPI_COMM_WORLD .*? x MPI_DOUBLE +\d+ (.*?) {2,}", out)
        algs = r.group(1) if r else ""
    return float(m.group(1)), float(m.group(2)), float(m.group(3)), m.group(4), algs, shlex.join(cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-P", type=int, default=4, help="processes (default 4)")
    ap.add_argument("-r", "--reps", type=int, default=3, help="repetitions per configuration (default 3)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (default build/)")
    ap.add_argument("--mpirun-args", default="", help="extra mpirun arguments (e.g. a hostfile)")
    ap.add_argument("--launcher", default=LAUNCHER,
                    help="command that starts P ranks, {P} = process count (default: %(default)s; the emulated "
                         "cluster: 'bench/cluster/pat-cluster run -np {P}')")
    ap.add_argument("--show-commands", action="store_true", help="print every mpirun command")
    ap.add_argument("app_args", nargs="*", help="heat1d options, after --")
    a = ap.parse_args()
    cfgs = configs(os.path.abspath(a.build))
    results = {name: [] for name, _, _ in cfgs}
    for rep in range(a.reps):
        for name, prog, xs in cfgs:
            r = run_once(a.P, prog, xs, a.app_args, shlex.split(a.mpirun_args), a.launcher)
            results[name].append(r)
            if a.show_commands and rep == 0:
                print("#", r[5])
    print(f"heat1d, P={a.P}, median of {a.reps} runs; options: {' '.join(a.app_args) or '(defaults)'}")
    print(f"{'configuration':30s} {'total s':>9s} {'allgather max s':>16s} {'allgather mean s':>17s}  algorithms")
    sums = set()
    for name, _, _ in cfgs:
        rs = results[name]
        med = [statistics.median(r[i] for r in rs) for i in range(3)]
        sums.update(r[3] for r in rs)
        print(f"{name:30s} {med[0]:9.3f} {med[1]:16.3f} {med[2]:17.3f}  {rs[-1][4] or '-'}")
    if len(sums) == 1:
        print(f"checksum {sums.pop()} in all {a.reps * len(cfgs)} runs: identical results")
    else:
        print(f"CHECKSUMS DIFFER: {sorted(sums)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
