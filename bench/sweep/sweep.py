#!/usr/bin/env python3
"""Sweep driver for pat-minibench (Python 3 standard library only).

Runs the grid P x N x maxDelay; each point is one launch of pat-minibench that
runs every requested algorithm on the same data and the same per-rank delay
sequence (fair comparison).  Writes every row to one CSV, prints the
paper-style table and draws PNG plots with gnuplot.  See bench/README.md.

  python3 bench/sweep/sweep.py --P 4 --N 128K,512K --delays 0,10,50 --algs all

A launch that crashes or times out does not stop the sweep: the algorithms
it did not report are retried one by one, and any still missing get a row
with status 'crashed' or 'timeout'.
"""
import argparse
import csv
import datetime
import os
import platform
import shlex
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))  # bench/sweep/ -> the repository
sys.path.insert(0, HERE)
import pat_results  # noqa: E402

EXTRA_COLUMNS = ["delay_req", "delay_unit", "launch"]
DEFAULT_LAUNCHER = "mpirun -np {P} --oversubscribe --bind-to none"


def parse_count(s):
    s = s.strip()
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(s[-1:].lower(), 1)
    return int(s[:-1] if mult > 1 else s) * mult


def parse_list(s, conv):
    return [conv(x) for x in s.split(",") if x.strip()]


def default_bench():
    build = os.environ.get("PAT_BUILD_DIR", os.path.join(REPO, "build"))
    if not os.path.isabs(build):
        build = os.path.join(REPO, build)
    return os.path.join(build, "bench", "minibench", "pat-minibench")


def machine_info():
    info = {"nproc": str(os.cpu_count()), "cpu": "?", "mpi": "?", "kernel": platform.platform(),
            "host": platform.node()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        out = subprocess.run(["mpirun", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=30).stdout
        info["mpi"] = out.strip().splitlines()[0] if out.strip() else "?"
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        info["load"] = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        info["load"] = "?"
    try:
        rev = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               universal_newlines=True).stdout.strip()
        info["git"] = (rev or "?") + (" (uncommitted changes)" if dirty else "")
    except OSError:
        info["git"] = "?"
    return info


class Progress:
    """A progress bar on stderr: on a terminal one line redrawn in place (every
    second, moving within a step by the step's estimated cost), elsewhere (a log,
    CI) one plain line per finished step.  Costs are estimated seconds; the ETA
    scales the estimate by how fast the finished part went.  Several phases may
    share one bar (bench/sweep/demo.py: calibration, then the sweep): add() them."""

    def __init__(self, total_cost=0.0, steps=0, quiet=False, stream=None):
        self.total, self.done, self.steps, self.step = float(total_cost), 0.0, steps, 0
        self.t0 = time.time()
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.quiet = quiet
        self.what, self.cur_cost, self.cur_t0 = "", 0.0, None
        self.lock = threading.Lock()
        self.ticker = None
        self.closed = False

    def add(self, cost, steps):
        """More work on the same bar."""
        with self.lock:
            self.total += cost
            self.steps += steps

    def _line(self):
        now = time.time()
        done = self.done
        if self.cur_t0 is not None and self.cur_cost > 0:  # within the current step, by its estimate
            done += min(now - self.cur_t0, 0.95 * self.cur_cost)
        frac = min(1.0, done / self.total) if self.total > 0 else 1.0
        elapsed = now - self.t0
        eta = elapsed / frac - elapsed if frac > 0.02 else float("nan")
        width = 30
        n = int(round(frac * width))
        eta_s = "?" if eta != eta else "%d:%02d" % divmod(int(eta), 60)
        return "[%s] %3d%% %d/%d  %s  elapsed %d:%02d  eta %s" % (
            "#" * n + "." * (width - n), int(100 * frac), self.step, self.steps, self.what,
            *divmod(int(elapsed), 60), eta_s)

    def _tick(self):
        while not self.closed:
            time.sleep(1.0)
            with self.lock:
                if not self.closed:
                    self.stream.write("\r\033[K" + self._line())
                    self.stream.flush()

    def show(self, what, final=False):
        if self.quiet:
            return
        with self.lock:
            self.what = what
            line = self._line()
            if self.tty:
                self.stream.write("\r\033[K" + line)
                if self.ticker is None:
                    self.ticker = threading.Thread(target=self._tick, daemon=True)
                    self.ticker.start()
            elif final:  # a log file: one line per finished step
                self.stream.write(line + "\n")
            self.stream.flush()

    def begin(self, cost, what):
        """A step starts; `cost` is its estimate (the bar moves within it on a terminal)."""
        with self.lock:
            self.cur_cost, self.cur_t0 = cost, time.time()
        self.show(what)

    def advance(self, cost, what):
        with self.lock:
            self.done += cost
            self.step += 1
            self.cur_cost, self.cur_t0 = 0.0, None
        self.show(what, True)

    def message(self, text):
        """A line of text that does not garble the bar."""
        with self.lock:
            if self.tty and not self.quiet and not self.closed:
                self.stream.write("\r\033[K" + text + "\n" + self._line())
            else:
                self.stream.write(text + "\n")
            self.stream.flush()

    def close(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
            if self.tty and not self.quiet:
                self.stream.write("\r\033[K" + self._line() + "\n")
                self.stream.flush()


def launcher_cmd(launcher, P):
    parts = shlex.split(launcher)
    if any("{P}" in p for p in parts):
        return [p.replace("{P}", str(P)) for p in parts]
    return parts + ["-np", str(P)]


def descendants(pid):
    """Every process below pid (from /proc; [] where there is none)."""
    children = {}
    for d in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def stop(proc, grace=10.0):
    """Stop a launch that leads a process group of its own (start_new_session=True): SIGTERM to its group
    and to every process below it (a launcher such as `timeout` may have made
    its own group), then SIGKILL to what is left after `grace` seconds."""
    tree = descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for p in tree:
            try:
                os.kill(p, sig)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            pass
    proc.wait()


class Interrupted(Exception):
    """SIGTERM (or SIGHUP) arrived: stop the launch in progress and leave."""


def interrupt_on_signals():
    """Make SIGTERM and SIGHUP raise Interrupted (SIGINT already raises
    KeyboardInterrupt), so that a launch in progress is stopped, not orphaned."""
    def handler(signum, frame):
        raise Interrupted("signal %d" % signum)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)


def run_launch(cmd, log_path, timeout, env):
    """Run one launch; returns (exit code or None, 'timeout'|None).  Kills
    everything it started on timeout, or when interrupted (then re-raises)."""
    with open(log_path, "a") as log:
        log.write("$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        log.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout), None
        except subprocess.TimeoutExpired:
            stop(proc)
            log.write("\n[sweep] killed after %.0f s (timeout)\n" % timeout)
            return None, "timeout"
        except BaseException:
            stop(proc)
            log.write("\n[sweep] interrupted: launch stopped\n")
            raise


def read_csv(path):
    if not os.path.exists(path):
        return []
    try:
        return pat_results.read_rows(path)
    except (OSError, csv.Error):
        return []


def expand_algs(algs):
    """The labels the benchmark will report: 'all' expanded, a repeated name as name#2, #3..."""
    names = []
    for a in algs:
        if a == "all":
            names += list(pat_results.CLASSIC + pat_results.ARRIVAL_AWARE) + ["auto"]
        else:
            names.append(a)
    out = []
    for a in names:
        k = sum(1 for b in out if pat_results.base_alg(b) == a)
        out.append(a if k == 0 else "%s#%d" % (a, k + 1))
    return out


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Each grid point is one launch: <launcher> pat-minibench -N n "
                                        "--max-delay d --alg <algs> ...")
    ap.add_argument("--algs", default="all", help="comma list for --alg, or 'all' (default all)")
    ap.add_argument("--N", default="128K,512K", help="comma list of total floats, suffixes K M (default 128K,512K)")
    ap.add_argument("--delays", default="0,10,50", help="comma list of maxDelay values (default 0,10,50)")
    ap.add_argument("--delay-unit", choices=("ms", "tau"), default="ms")
    ap.add_argument("--P", default="4", help="comma list of process counts (default 4)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--flat-iters", type=int, default=None, help="passed on (default: the benchmark's)")
    ap.add_argument("--base-ms", type=float, default=100.0)
    ap.add_argument("--compute", choices=("sleep", "busy"), default="sleep")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--launcher", default=DEFAULT_LAUNCHER,
                    help="command prefix that starts P ranks; {P} is replaced by the process count, and "
                         "'-np P' is appended when there is no {P} (default: %(default)s)")
    ap.add_argument("--bench", default=default_bench(),
                    help="pat-minibench binary (default $PAT_BUILD_DIR or build/, then bench/minibench/)")
    ap.add_argument("--bench-args", default="", help="extra arguments for every launch (one string)")
    ap.add_argument("--out", default=None, help="output folder (default bench/results/<date>-<label>/)")
    ap.add_argument("--label", default="sweep")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per launch (default: 10x the estimate + 120)")
    ap.add_argument("--errorbars", choices=("sd", "ci"), default="sd",
                    help="plot error bars: +-sigma over iterations (sd) or the 95%% CI")
    ap.add_argument("--stat", choices=("mean", "median"), default="mean",
                    help="statistic that picks the fastest algorithm in the table (default mean, the headline "
                         "metric; median resists outliers on a busy machine)")
    ap.add_argument("--trace", action="store_true",
                    help="keep every iteration's per-rank arrivals (raw/<launch>.trace.csv), e.g. for compare_model.py")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--est-ns-per-byte", type=float, default=1.0,
                    help="estimated time of one all-gather per byte gathered, in ns, for the progress bar's "
                         "estimate and the default timeouts (default 1: shared memory; ~30 on 500 Mbit/s links)")
    return ap


def grid_of(args):
    """The grid [(P, N, maxDelay, estimated seconds)] of parsed arguments (ValueError on a bad list)."""
    Ns = parse_list(args.N, parse_count)
    delays = parse_list(args.delays, float)
    Ps = parse_list(args.P, int)
    nalgs = len(expand_algs([a.strip().lower() for a in args.algs.split(",") if a.strip()]))
    grid = []
    for P in Ps:
        for N in Ns:
            for d in delays:
                d_ms = d if args.delay_unit == "ms" else 0.0
                nflat = args.flat_iters if args.flat_iters is not None else (max(5, args.iters // 4) if d > 0 else 0)
                per_iter = (2 * args.base_ms + d_ms) / 1000.0 + 0.002 + 4e-9 * N * args.est_ns_per_byte
                cost = 3.0 + nalgs * (args.warmup + nflat + args.iters) * per_iter
                grid.append((P, N, d, cost))
    return grid


def main(argv=None, progress=None, report=True, planned=False):
    """The sweep; returns the exit status.  progress: a Progress to continue
    (the caller closes it; its add() gets this sweep's work unless the caller
    `planned` it, with grid_of); report=False leaves the tables and file names
    out of the standard output (they are written all the same)."""
    ap = parser()
    args = ap.parse_args(argv)

    try:
        Ns = parse_list(args.N, parse_count)
        delays = parse_list(args.delays, float)
        Ps = parse_list(args.P, int)
    except ValueError as e:
        ap.error("bad list: %s" % e)
    algs = expand_algs([a.strip().lower() for a in args.algs.split(",") if a.strip()])
    if not (Ns and delays and Ps and algs):
        ap.error("empty grid")
    if not os.access(args.bench, os.X_OK):
        sys.stderr.write("sweep: %s is not an executable; build first (cmake -S . -B build && cmake --build build)"
                         " or give --bench / PAT_BUILD_DIR\n" % args.bench)
        return 3

    date = datetime.date.today().isoformat()
    out = args.out or os.path.join(REPO, "bench", "results", "%s-%s" % (date, args.label))
    if args.out is None and os.path.exists(out):
        i = 2
        while os.path.exists("%s-%d" % (out, i)):
            i += 1
        out = "%s-%d" % (out, i)
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    results_csv = os.path.join(out, "results.csv")

    env = dict(os.environ)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")

    info = machine_info()
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    command = " ".join(shlex.quote(a) for a in ["python3", os.path.relpath(os.path.abspath(__file__))] +
                       (sys.argv[1:] if argv is None else list(argv)))

    # the grid, with a cost estimate per launch (seconds) for the progress bar
    flat = args.flat_iters
    grid = grid_of(args)
    total = sum(g[3] for g in grid)

    def bench_cmd(P, N, d, alg_list, csv_path, trace_path=None):
        cmd = launcher_cmd(args.launcher, P) + [
            args.bench, "-N", str(N), "--max-delay", "%g" % d, "--delay-unit", args.delay_unit,
            "--alg", ",".join(pat_results.base_alg(a) for a in alg_list), "--iters", str(args.iters), "--warmup", str(args.warmup),
            "--base-ms", "%g" % args.base_ms, "--compute", args.compute, "--seed", str(args.seed),
            "--csv", csv_path, "--label", args.label]
        if flat is not None:
            cmd += ["--flat-iters", str(flat)]
        if trace_path:
            cmd += ["--trace", trace_path]
        return cmd + shlex.split(args.bench_args)

    header = None
    all_rows = []

    def append_rows(rows, d, launch):
        nonlocal header
        for r in rows:
            r["delay_req"], r["delay_unit"], r["launch"] = "%g" % d, args.delay_unit, launch
        if header is None:
            if rows and "timestamp" in rows[0]:
                header = [c for c in rows[0].keys() if c not in EXTRA_COLUMNS] + EXTRA_COLUMNS
        all_rows.extend(rows)
        if header is not None:
            with open(results_csv, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
                w.writeheader()
                for r in all_rows:
                    w.writerow(r)

    if progress is None:
        prog = Progress(total, len(grid), args.quiet)
        prog.show("starting")
    else:
        prog = progress
        if not planned:
            prog.add(total, len(grid))
    failures = 0
    for idx, (P, N, d, cost) in enumerate(grid):
        launch = "L%03d" % idx
        what = "P=%d N=%s maxDelay=%g%s" % (P, pat_results.human_count(N), d, args.delay_unit)
        prog.begin(cost, what)
        csv_path = os.path.join(raw, "%s.csv" % launch)
        log_path = os.path.join(raw, "%s.log" % launch)
        timeout = args.timeout or (10 * cost + 120)
        trace_path = os.path.join(raw, "%s.trace.csv" % launch) if args.trace else None
        code, why = run_launch(bench_cmd(P, N, d, algs, csv_path, trace_path), log_path, timeout, env)
        rows = read_csv(csv_path)
        have = {r.get("alg") for r in rows}
        missing = [a for a in algs if a not in have]
        # retry what the launch did not report, one algorithm at a time
        for a in missing:
            one = os.path.join(raw, "%s-%s.csv" % (launch, a))
            c1, why1 = run_launch(bench_cmd(P, N, d, [a], one), log_path, args.timeout or (10 * cost / len(algs) + 120),
                                  env)
            got = [r for r in read_csv(one) if r.get("alg") == pat_results.base_alg(a)]
            for r in got:
                r["alg"] = a  # a twin retried alone comes back under its base name
            if got:
                rows += got
            else:
                failures += 1
                status = "timeout" if why1 == "timeout" else "crashed"
                rows.append({"P": str(P), "N_requested": str(N), "alg": a, "status": status,
                             "max_delay_ms": "%g" % d if args.delay_unit == "ms" else "",
                             "message": "launch %s (exit %s); see %s" % (status, c1, os.path.relpath(log_path, out))})
        append_rows(rows, d, launch)
        prog.advance(cost, what)
    if progress is None:
        prog.close()

    if header is None:  # nothing ran at all: still leave a CSV
        header = ["P", "N_requested", "alg", "status", "max_delay_ms", "message"] + EXTRA_COLUMNS
        append_rows([], 0, "")

    table = pat_results.paper_table(all_rows, args.stat)
    full = pat_results.full_table(all_rows, args.stat)
    rel = pat_results.relative_table(all_rows)
    if rel:
        full += "\n" + rel
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(table + "\n" + full)
    made, reason = ([], "plots disabled (--no-plots)") if args.no_plots else pat_results.plots(
        all_rows, os.path.join(out, "plots"), args.errorbars)

    finished = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    try:
        load_end = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load_end = "?"
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("# Sweep %s\n\n" % os.path.basename(out.rstrip("/")))
        f.write("Command (from %s):\n\n    %s\n\n" % (os.getcwd(), command))
        f.write("| | |\n|---|---|\n")
        f.write("| started | %s |\n| finished | %s |\n" % (started, finished))
        f.write("| host | %s |\n| nproc | %s |\n| CPU | %s |\n| MPI | %s |\n| kernel | %s |\n" % (
            info["host"], info["nproc"], info["cpu"], info["mpi"], info["kernel"]))
        f.write("| libpat commit | %s |\n| load average at start / end | %s / %s |\n" % (
            info["git"], info["load"], load_end))
        f.write("| launcher | `%s` |\n| benchmark | `%s` |\n" % (args.launcher, args.bench))
        f.write("| grid | P=%s N=%s maxDelay=%s %s, algorithms %s |\n" % (
            args.P, args.N, args.delays, args.delay_unit, ",".join(algs)))
        f.write("| per point | %d iterations + %d warm-up, compute %s, base %g ms per half, seed %d |\n\n" % (
            args.iters, args.warmup, args.compute, args.base_ms, args.seed))
        f.write("Files: `results.csv` (all rows; columns in bench/README.md), `table.txt` (the tables "
                "below), `plots/*.png` (+ their .dat/.gp), `raw/` (per-launch CSV and log).\n\n")
        f.write("```\n%s\n%s```\n" % (table, full))
        if made:
            f.write("\nPlots:\n\n" + "".join("- plots/%s\n" % os.path.basename(p) for p in made))
        if reason:
            f.write("\n%s\n" % reason)
        note = pat_results.overload_note(all_rows)
        if note:
            f.write("\n**%s**\n" % note)

    if report:  # else the caller reports (the files are written all the same)
        print(table)
        print(full)
        print("results: %s" % out)
        print("  CSV:    %s" % results_csv)
        print("  table:  %s" % os.path.join(out, "table.txt"))
        if made:
            print("  plots:  %d PNG in %s" % (len(made), os.path.join(out, "plots")))
        if reason:
            print("  plots:  %s" % reason)
        bad = [r for r in all_rows if r.get("status") != "ok"]
        if bad:
            print("  %d row(s) not ok (failed/crashed/timeout/errors): see table.txt" % len(bad))
        late = pat_results.overload_note(all_rows)
        if late:
            print("  " + late)
    wrong = [r for r in all_rows if r.get("status") == "errors"]
    return 1 if wrong else 0


if __name__ == "__main__":
    interrupt_on_signals()
    try:
        sys.exit(main())
    except (KeyboardInterrupt, Interrupted):
        sys.stderr.write("\nsweep: interrupted; the launch in progress was stopped\n")
        sys.exit(130)
