#!/usr/bin/env python3
"""Run an example application (nbody, heat1d or bfs) with the MPI library's
all-gather (NATIVE) and with libpat, unmodified under LD_PRELOAD of
libpat_mpi (with or without a model file) and instrumented (the -pat build;
bfs has none: it is plain MPI only), repeatedly, and report per
configuration the end-to-end time and the time in the all-gather with 95%
confidence intervals, the speed-up over NATIVE with its interval, the
algorithms auto chose and libpat's own report per call site (prediction
error, the cost model's predicted against measured time).

Repetitions go round-robin over the configurations (round i starts at the
i-th configuration, so none always follows the same one), so slow phases of
a busy machine hit them alike.  Every run must end with the same checksum of
the final state: the all-gather only moves bytes.

Statistics (README.md, "What the numbers mean"):
  median and its 95% CI   distribution-free, from order statistics: the
                          widest symmetric pair of runs X(j), X(n+1-j) whose
                          binomial coverage is >= 95%; with fewer than 6 runs
                          no pair reaches 95% and [min, max] is given with
                          its coverage (5 runs: 93.8%)
  speed-up over NATIVE    runs paired by round; the geometric mean of
                          NATIVE/config over the rounds with a Student t
                          interval on the log ratios (>= 2 rounds)

usage: bench/examples/run.py [--app nbody|heat1d|bfs] [-P 4] [-r 5] [--cluster] [--model FILE] [--out DIR]
                             [-- app options]

Configurations: native, preload[-ALG] (LD_PRELOAD), model[-ALG] (LD_PRELOAD
with PAT_MODEL=--model FILE), pat[-ALG] (instrumented).  A PAT_MODEL in the
caller's environment goes to every preload and pat run; leave it unset to
compare preload (no model) with model side by side.
"""
import argparse
import csv
import datetime
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAUNCHER = "mpirun -np {P} --oversubscribe --bind-to none"
CLUSTER_LAUNCHER = "bench/cluster/pat-cluster run --timeout {timeout} -np {P}"
DEFAULT_CONFIGS = "native,preload,pat"
PLAIN_ONLY = ("bfs",)  # examples without an instrumented build: DEFAULT_CONFIGS without pat
CONTROL_CONFIGS = "preload-native,pat-native"
ALGORITHMS = ("auto", "native", "ring", "nex", "rdb", "bruck", "lnbc", "bdr", "bslb", "ard")


# ---- configurations -------------------------------------------------------

def config(key, app, build, model=None):
    """A configuration from its key: native (plain MPI), preload[-ALG]
    (LD_PRELOAD of libpat_mpi), model[-ALG] (the same with PAT_MODEL=model),
    pat[-ALG] (the instrumented build); ALG defaults to auto.  Returns (key,
    label, program, mpirun -x arguments)."""
    kind, _, alg = key.partition("-")
    alg = alg or "auto"
    if kind not in ("native", "preload", "model", "pat") or alg not in ALGORITHMS or \
            (kind == "native" and key != "native"):
        raise ValueError(f"unknown configuration '{key}' (native, preload[-ALG], model[-ALG], pat[-ALG]; "
                         f"ALG: {', '.join(ALGORITHMS)})")
    if kind == "pat" and app in PLAIN_ONLY:
        raise ValueError(f"{app} is plain MPI only: no '{key}' (use preload or model)")
    if kind == "model" and not model:
        raise ValueError(f"'{key}' needs --model FILE")
    plain = os.path.join(build, "bench", "examples", app)
    if kind == "native":
        return key, "NATIVE (plain MPI)", plain, []
    report = ["-x", f"PAT_ALG={alg}", "-x", "PAT_REPORT=1"]
    if kind == "preload":
        return key, f"LD_PRELOAD libpat {alg}", plain, ["-x", "LD_PRELOAD=" + os.path.join(build, "libpat_mpi.so")] + report
    if kind == "model":
        return key, f"LD_PRELOAD libpat {alg} with model", plain, \
            ["-x", "LD_PRELOAD=" + os.path.join(build, "libpat_mpi.so"), "-x", "PAT_MODEL=" + os.path.abspath(model)] + report
    return key, f"instrumented libpat {alg}", plain + "-pat", report


# ---- one run --------------------------------------------------------------

RESULT = re.compile(r"^(?:nbody|heat1d|bfs) total_s=(\S+) allgather_max_s=(\S+) allgather_mean_s=(\S+) compute_max_s=(\S+)"
                    r" compute_mean_s=(\S+) .*checksum=(\S+) (\S+)", re.M)
TIME = r"\d+(?:\.\d+)? (?:us|ms|s)"
REPORT_ROW = re.compile(r"^libpat report: (\S+) +(\S+) +(\S+) +(\d+ x \S+) +(\d+) +(.*?) +(" + TIME + r") +(" + TIME +
                        r") +(\d+)% +(\d+)% +(" + TIME + r"|-) +(.*)$", re.M)
MODEL_ITEM = re.compile(r"(\w+) (" + TIME + r")/(" + TIME + r")")


def seconds(text):
    """'2.31 ms' -> 0.00231; '-' -> None."""
    if text == "-":
        return None
    value, unit = text.split()
    return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def parse_report(out):
    """The rows of libpat's PAT_REPORT (one per call site) as dicts."""
    sites = []
    for m in REPORT_ROW.finditer(out):
        algs = {a: int(c) for a, c in re.findall(r"(\w+) (\d+)", m.group(6))}
        model_text, _, guard = m.group(12).partition(" | guard: ")
        model = {a: (seconds(p), seconds(q)) for a, p, q in MODEL_ITEM.findall(model_text)}
        sites.append({"site": f"{m.group(1)} {m.group(4)}", "P": m.group(3), "calls": int(m.group(5)), "algs": algs,
                      "mean_e": seconds(m.group(7)), "max_e": seconds(m.group(8)),
                      "exchanged": int(m.group(9)), "predicted": int(m.group(10)),
                      "err": seconds(m.group(11)), "model": model, "guard": guard.strip()})
    return sites


def parse_run(out):
    """The application's result line: times, checksum, whether ranks agree."""
    m = RESULT.search(out)
    if not m:
        return None
    return {"total": float(m.group(1)), "ag_max": float(m.group(2)), "ag_mean": float(m.group(3)),
            "compute_max": float(m.group(4)), "compute_mean": float(m.group(5)), "checksum": m.group(6),
            "agree": m.group(7) == "ranks-agree", "sites": parse_report(out)}


def launcher_words(text, P, timeout):
    words = [w.replace("{P}", str(P)).replace("{timeout}", str(timeout)) for w in shlex.split(text)]
    if words and not os.path.isabs(words[0]) and not os.path.exists(words[0]) and \
            os.path.exists(os.path.join(ROOT, words[0])):
        words[0] = os.path.join(ROOT, words[0])  # bench/cluster/pat-cluster from any directory
    return words


def run_env():
    """The caller's environment without libpat's settings: a run gets only
    what its configuration passes with -x (the cluster's own settings stay)."""
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    for k in list(env):
        if k == "LD_PRELOAD" or (k.startswith("PAT_") and not k.startswith("PAT_CLUSTER_")):
            env.pop(k)
    return env


def execute(cmd, timeout):
    """Runs cmd in its own process group; on a timeout kills that group."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=run_env(),
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out + f"\n[run.py: killed after {timeout} s]"
    return p.returncode, out


def run_once(a, cfg, log_path):
    key, _, prog, xs = cfg
    model = os.environ.get("PAT_MODEL")  # a calibrated cost model, if the caller has one, for every libpat run
    extra = ["-x", "PAT_MODEL=" + os.path.abspath(model)] if model and key != "native" and \
        not key.startswith("model") else []
    cmd = launcher_words(a.launcher, a.P, a.timeout) + shlex.split(a.mpirun_args) + xs + extra + [prog] + a.app_args
    load = os.getloadavg()[0]
    rc, out = execute(cmd, a.timeout + 60)
    if log_path:
        with open(log_path, "w") as f:
            f.write("$ " + shlex.join(cmd) + "\n" + out)
    r = parse_run(out)
    if rc != 0 or not r or not r["agree"]:
        sys.exit(f"run failed (exit {rc}): {shlex.join(cmd)}\n{out}")
    r.update(cmd=shlex.join(cmd), load=load)
    return r


# ---- statistics -----------------------------------------------------------

# Student t, 97.5% quantile, by degrees of freedom (two-sided 95%).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964  # Cornish-Fisher expansion beyond the table (error < 1e-3)
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def median_ci(values):
    """(median, low, high, coverage): the order-statistic interval for the
    median, the narrowest symmetric one with coverage >= 95%, or [min, max]
    with its smaller coverage when there are too few values."""
    xs = sorted(values)
    n = len(xs)
    med = statistics.median(xs)

    def coverage(j):  # P(X(j) <= median <= X(n+1-j)) = 1 - 2 P(Binomial(n, 1/2) <= j-1)
        return 1.0 - 2.0 * sum(math.comb(n, i) for i in range(j)) / 2.0 ** n

    j = 1
    while j + 1 <= n // 2 and coverage(j + 1) >= 0.95:
        j += 1
    return med, xs[j - 1], xs[n - j], coverage(j)


def paired_speedup(native, other):
    """Geometric mean of native/other over paired runs and its 95% t
    interval (None, None for fewer than 2 pairs)."""
    d = [math.log(x / y) for x, y in zip(native, other)]
    mean = statistics.fmean(d)
    if len(d) < 2:
        return math.exp(mean), None, None
    half = t975(len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


# ---- summary --------------------------------------------------------------

def summarise(cfgs, results):
    """One row per configuration: medians with CIs, speed-ups over NATIVE."""
    rows = []
    base = results.get("native")
    for key, label, _, _ in cfgs:
        rs = results[key]
        row = {"config": key, "label": label, "runs": len(rs)}
        for m in ("total", "ag_max", "ag_mean", "compute_max"):
            row[m], row[m + "_lo"], row[m + "_hi"], row["coverage"] = median_ci([r[m] for r in rs])
        for m in ("total", "ag_mean"):
            s = paired_speedup([r[m] for r in base], [r[m] for r in rs]) if base else (None, None, None)
            row["speedup_" + m], row["speedup_" + m + "_lo"], row["speedup_" + m + "_hi"] = s
        rows.append(row)
    return rows


def summarise_sites(cfgs, results):
    """Per libpat configuration and call site: algorithms per run (summed
    over runs / runs), the report's columns in every run (runs of one
    configuration can differ a lot: whether auto exchanges at all is decided
    at run time), and per algorithm the medians over runs of the model's
    predicted and the measured mean e."""
    out = []
    for key, _, _, _ in cfgs:
        by_site = {}
        for r in results[key]:
            for s in r["sites"]:
                by_site.setdefault(s["site"], []).append(s)
        for site, ss in by_site.items():
            algs = {}
            for s in ss:
                for a, c in s["algs"].items():
                    algs[a] = algs.get(a, 0) + c
            model = {}
            for s in ss:
                for a, pm in s["model"].items():
                    model.setdefault(a, []).append(pm)
            out.append({"config": key, "site": site, "runs": len(ss), "calls": ss[0]["calls"],
                        "algs": {a: c / len(ss) for a, c in algs.items()},
                        "mean_e": [s["mean_e"] for s in ss], "exchanged": [s["exchanged"] for s in ss],
                        "predicted": [s["predicted"] for s in ss],
                        "err": [s["err"] for s in ss if s["err"] is not None],
                        "model": {a: (statistics.median(p for p, _ in v), statistics.median(q for _, q in v))
                                  for a, v in model.items()},
                        "guard": ss[-1].get("guard", "")})  # the last run's guardrail state (state and costs)
    return out


def fmt_ci(v, lo, hi, digits=3):
    if v is None:
        return "-"
    if lo is None:
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def fmt_spread(values, scale=1.0, digits=2, unit=""):
    """'median (min-max)' of the values, or '-' without any."""
    if not values:
        return "-"
    v = [x * scale for x in values]
    med = f"{statistics.median(v):.{digits}f}{unit}"
    return med if len(v) == 1 else f"{med} ({min(v):.{digits}f}-{max(v):.{digits}f})"


def fmt_algs(algs):
    return ", ".join(f"{a} {c:.0f}" for a, c in sorted(algs.items(), key=lambda kv: -kv[1])) or "-"


def fmt_model(model):
    return ", ".join(f"{a} {p * 1e3:.1f}/{q * 1e3:.1f}" for a, (p, q) in model.items()) or "-"


def markdown(a, rows, sites, checksum, nruns):
    """The result tables as markdown lines."""
    cov = rows[0]["coverage"]
    lines = [f"{a.app}, P={a.P}, {a.reps} runs per configuration, launcher `{a.launcher}`; "
             f"options: `{' '.join(a.app_args) or '(defaults)'}`", "",
             f"Median [95% CI of the median, coverage {cov:.1%}] in seconds; speed-up = NATIVE / configuration, "
             "geometric mean over rounds [95% t interval].", "",
             "| configuration | total s | speed-up (total) | all-gather max s | all-gather mean s | speed-up (all-gather mean) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['label']} | {fmt_ci(r['total'], r['total_lo'], r['total_hi'])} | "
                     f"{fmt_ci(r['speedup_total'], r['speedup_total_lo'], r['speedup_total_hi'])} | "
                     f"{fmt_ci(r['ag_max'], r['ag_max_lo'], r['ag_max_hi'])} | "
                     f"{fmt_ci(r['ag_mean'], r['ag_mean_lo'], r['ag_mean_hi'])} | "
                     f"{fmt_ci(r['speedup_ag_mean'], r['speedup_ag_mean_lo'], r['speedup_ag_mean_hi'])} |")
    lines += ["", f"checksum {checksum} in all {nruns} runs: identical results"]
    if sites:
        lines += ["", "libpat's report (PAT_REPORT=1), per configuration and call site: median (min-max) over runs; "
                  "algorithms = calls per rank per run (mean over runs); model = per algorithm, predicted/measured "
                  "mean e in ms (medians over runs); guard = the site's guardrail in the last run:", "",
                  "| configuration | call site | calls | algorithms | mean e ms | exchanged | predicted | mean abs err ms | model | guard |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for s in sites:
            err = fmt_spread(s["err"], 1e3) + (f" in {len(s['err'])} of {s['runs']} runs" if 0 < len(s["err"]) < s["runs"] else "")
            lines.append(f"| {s['config']} | {s['site']} | {s['calls']} | {fmt_algs(s['algs'])} | "
                         f"{fmt_spread(s['mean_e'], 1e3)} | {fmt_spread(s['exchanged'], digits=0, unit='%')} | "
                         f"{fmt_spread(s['predicted'], digits=0, unit='%')} | {err} | {fmt_model(s['model'])} | "
                         f"{s.get('guard') or '-'} |")
    return lines


# ---- output files ---------------------------------------------------------

def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "?"
    except OSError:
        return "?"


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def write_outputs(a, cfgs, results, rows, sites, lines):
    runs = []
    for key, label, _, _ in cfgs:
        for i, r in enumerate(results[key]):
            err = [s["err"] for s in r["sites"] if s["err"] is not None]
            runs.append({"app": a.app, "P": a.P, "config": key, "label": label, "round": r["round"], "rep": i,
                         "total_s": r["total"], "allgather_max_s": r["ag_max"], "allgather_mean_s": r["ag_mean"],
                         "compute_max_s": r["compute_max"], "compute_mean_s": r["compute_mean"],
                         "checksum": r["checksum"], "load1": r["load"],
                         "algorithms": "; ".join(fmt_algs(s["algs"]) for s in r["sites"]),
                         "mean_abs_err_s": ";".join(f"{e:.6g}" for e in err), "command": r["cmd"]})
    write_csv(os.path.join(a.out, "runs.csv"), runs, list(runs[0].keys()))
    write_csv(os.path.join(a.out, "summary.csv"), rows, list(rows[0].keys()))
    site_rows = [dict(s, algs=fmt_algs(s["algs"]), model=fmt_model(s["model"]),
                      **{k: " ".join(f"{v:.6g}" for v in s[k]) for k in ("mean_e", "exchanged", "predicted", "err")})
                 for s in sites]
    if site_rows:
        write_csv(os.path.join(a.out, "sites.csv"), site_rows, list(site_rows[0].keys()))
    head = [f"# {a.app} P={a.P}", "", f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
            f"- commit: {git_commit()}", f"- command: `{shlex.join(sys.argv)}`",
            f"- machine: {os.uname().nodename}, {os.cpu_count()} CPUs, {os.uname().release}",
            f"- PAT_MODEL: {os.environ.get('PAT_MODEL') or 'unset (ping-pong estimate at PAT_Init)'}",
            f"- load average (1 min) at the runs' starts: {min(r['load1'] for r in runs):.2f} - "
            f"{max(r['load1'] for r in runs):.2f}", ""]
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("\n".join(head + lines) + "\n")


# ---- main -----------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", choices=("nbody", "heat1d", "bfs"), default="nbody", help="example (default nbody)")
    ap.add_argument("-P", type=int, default=4, help="processes (default 4)")
    ap.add_argument("-r", "--reps", type=int, default=5, help="runs per configuration (default 5)")
    ap.add_argument("--configs", default=None,
                    help=f"comma list: native, preload[-ALG], model[-ALG], pat[-ALG] (default {DEFAULT_CONFIGS}, "
                         f"without pat for {', '.join(PLAIN_ONLY)}; NATIVE always runs)")
    ap.add_argument("--model", help="model file for the model[-ALG] configurations")
    ap.add_argument("--controls", action="store_true", help=f"add {CONTROL_CONFIGS} (libpat with PAT_ALG=native)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (default build/)")
    ap.add_argument("--mpirun-args", default="", help="extra mpirun arguments (e.g. a hostfile)")
    ap.add_argument("--launcher", default=LAUNCHER,
                    help="command that starts P ranks; {P} = processes, {timeout} = --timeout (default: %(default)s)")
    ap.add_argument("--cluster", action="store_true", help=f"the emulated cluster: --launcher '{CLUSTER_LAUNCHER}'")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run before it is killed (default 600)")
    ap.add_argument("--out", help="folder for runs.csv, summary.csv, sites.csv, table.md and logs/")
    ap.add_argument("--show-commands", action="store_true", help="print every command")
    ap.add_argument("app_args", nargs="*", help="options of the application, after --")
    a = ap.parse_args()
    if a.cluster:
        a.launcher = CLUSTER_LAUNCHER
    if a.reps < 1:
        ap.error("--reps must be at least 1")
    if a.configs is None:
        a.configs = DEFAULT_CONFIGS.replace(",pat", "") if a.app in PLAIN_ONLY else DEFAULT_CONFIGS
    keys = ["native"] + [k for k in a.configs.split(",") if k and k != "native"]
    if a.controls:
        keys += [k for k in CONTROL_CONFIGS.split(",") if k not in keys and not (a.app in PLAIN_ONLY and k.startswith("pat"))]
    try:
        a.cfgs = [config(k, a.app, os.path.abspath(a.build), a.model) for k in dict.fromkeys(keys)]
    except ValueError as e:
        ap.error(str(e))
    return a


def run_all(a):
    """Every configuration a.reps times, round-robin with a rotating start."""
    results = {c[0]: [] for c in a.cfgs}
    logs = os.path.join(a.out, "logs") if a.out else None
    if logs:
        os.makedirs(logs, exist_ok=True)
    for rnd in range(a.reps):
        for i in range(len(a.cfgs)):
            cfg = a.cfgs[(rnd + i) % len(a.cfgs)]
            r = run_once(a, cfg, os.path.join(logs, f"{cfg[0]}-{rnd}.txt") if logs else None)
            r["round"] = rnd
            results[cfg[0]].append(r)
            if a.show_commands:
                print("#", r["cmd"], flush=True)
            print(f"round {rnd + 1}/{a.reps} {cfg[0]:16s} total {r['total']:.3f} s, all-gather max "
                  f"{r['ag_max']:.3f} s, checksum {r['checksum']}", file=sys.stderr, flush=True)
    return results


def main():
    a = parse_args()
    results = run_all(a)
    sums = {r["checksum"] for rs in results.values() for r in rs}
    rows = summarise(a.cfgs, results)
    sites = summarise_sites(a.cfgs, results)
    if len(sums) != 1:
        print(f"CHECKSUMS DIFFER: {sorted(sums)}")
        for key, rs in results.items():
            print(f"  {key}: {' '.join(r['checksum'] for r in rs)}")
        sys.exit(1)
    lines = markdown(a, rows, sites, sums.pop(), sum(len(rs) for rs in results.values()))
    print("\n".join(lines))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        write_outputs(a, a.cfgs, results, rows, sites, lines)
        print(f"\nwritten: {a.out}/table.md, runs.csv, summary.csv, sites.csv, logs/")


if __name__ == "__main__":
    main()
