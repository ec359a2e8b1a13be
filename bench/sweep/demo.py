#!/usr/bin/env python3
"""The main job's driver, run by bench/demo.sh once it has chosen the platform
(the emulated cluster, or local ranks on shared memory). Python 3 standard
library only.

1. Calibration, cached: pat-calibrate under the launcher (P ranks), then
   pat-fit, give a model file for PAT_MODEL.  It is stored in the cache
   folder under a name holding a hash of everything it depends on (host, CPU,
   libpat version and commit, build type, MPI, P, the platform's settings,
   the calibration options; the text is kept beside it as <name>.key), and
   reused while that key holds.
2. The grid: sweep.py runs pat-minibench once per (N, maxDelay) cell, every
   algorithm on its own communicator (--order blocked: as in an application,
   libpat's per-call-site state then belongs to one algorithm setting), auto
   selecting with that model, then (--also-chosen) every algorithm auto ran
   that the list lacks, so that the table has a column for each.
3. The demo table: mean time in the all-gather of every algorithm per cell,
   the fastest, what auto ran and auto's speed-up over NATIVE with a 95%
   interval; and a plot, mean e against maxDelay for NATIVE, auto and ARD.

One progress bar spans 1 and 2 (sweep.Progress: redrawn in place on a
terminal, one line per finished step elsewhere, as each calibrated size or
cell ends).

  demo.py --platform shm --P 4 --launcher "mpirun -np {P} --oversubscribe" \\
          --N 128K --delays 0,20 --algs native,ard,auto --cache build/demo-cache [-- sweep.py options]
"""
import argparse
import datetime
import hashlib
import math
import os
import platform
import re
import select
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import pat_results  # noqa: E402
import sweep  # noqa: E402

PLOT_ALGS = ("native", "auto", "ard")


def show_path(p):
    """Relative to the current folder when inside it, else absolute."""
    r = os.path.relpath(p)
    return os.path.abspath(p) if r.startswith("..") else r


def say(prog, text):
    if prog is not None:
        prog.message(text)
    else:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def human_bytes(b):
    b = int(b)
    for div, suf in ((1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, suf)
    return "%d B" % b


def fmt_ms(us):
    """Microseconds as milliseconds with 3 significant digits (31.7, 105, 0.412)."""
    ms = us / 1000.0
    return "%.0f" % ms if ms >= 100 else "%.3g" % ms


def fmt_time(s):
    return "%d:%02d" % divmod(int(round(s)), 60)


# ---------------------------------------------------------------- cache key

def run_text(cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


MODEL_PATHS = ["src", "pat", "algorithms", "include", "CMakeLists.txt", "cmake", "bench/calibrate"]


def libpat_identity(build):
    """'libpat 0.1.0, commit <sha>': the last commit that changed what a model
    depends on (the library, its build, pat-calibrate), plus a hash of such
    changes not yet committed; outside a git checkout, the library file's hash."""
    version = "?"
    try:
        with open(os.path.join(REPO, "include", "pat.h")) as f:
            v = dict(re.findall(r"#define PAT_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
        version = "%s.%s.%s" % (v["MAJOR"], v["MINOR"], v["PATCH"])
    except (OSError, KeyError):
        pass
    text = "libpat %s" % version
    commit = ""
    if shutil.which("git"):
        commit = run_text(["git", "-C", REPO, "log", "-1", "--format=%H", "--"] + MODEL_PATHS)
    if re.fullmatch(r"[0-9a-f]{40}", commit):
        text += ", commit %s" % commit
        try:
            diff = subprocess.run(["git", "-C", REPO, "diff", "HEAD", "--"] + MODEL_PATHS, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            diff = b""
        if diff:
            text += " + uncommitted changes %s" % hashlib.sha256(diff).hexdigest()[:12]
    else:
        lib = os.path.join(build, "libpat.so")
        text += ", library sha256 %s" % (file_sha(lib)[:16] if os.path.exists(lib) else "?")
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            bt = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", f.read(), re.M)
        text += ", build type %s" % ((bt.group(1) if bt else "") or "none")
    except OSError:
        pass
    return text


def cache_key(args, build):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mpi = run_text(["mpirun", "--version"]).splitlines()
    lines = ["libpat demo calibration (bench/sweep/demo.py)",
             "host: %s" % platform.node(),
             "cpu: %s, %s logical CPUs" % (cpu, os.cpu_count()),
             "library: %s" % libpat_identity(build),
             "mpi: %s" % (mpi[0] if mpi else "?"),
             "platform: %s" % args.platform,
             "P: %d" % args.P]
    lines += ["setting: %s" % k for k in args.key]
    lines.append("calibration: pat-calibrate %s" % args.calibrate)
    text = "\n".join(lines) + "\n"
    return text, hashlib.sha256(text.encode()).hexdigest()[:12]


# -------------------------------------------------------------- calibration

def calibration_options(opts):
    """pat-calibrate's options that set its work (its defaults otherwise;
    13 algorithms assumed until its header says)."""
    o = {"min": 1, "max": 1 << 20, "points": 11, "max_s": 10.0, "nalgs": 13, "max_reps": 200, "gap": 2e-3,
         "b2b_max": 16384}
    toks = shlex.split(opts)
    if "--quick" in toks:
        o["max_s"], o["max_reps"] = 1.0, 50
    for i, t in enumerate(toks[:-1]):
        v = toks[i + 1]
        try:
            if t == "--min-bytes":
                o["min"] = sweep.parse_count(v)
            elif t == "--max-bytes":
                o["max"] = sweep.parse_count(v)
            elif t == "--points":
                o["points"] = int(v)
            elif t == "--max-seconds":
                o["max_s"] = float(v.rstrip("s"))
            elif t == "--max-reps":
                o["max_reps"] = int(v)
            elif t == "--algs":
                o["nalgs"] = len([a for a in v.split(",") if a])
            elif t == "--gap":
                o["gap"] = float(v[:-2]) * 1e-3 if v.endswith("ms") else float(v.rstrip("s"))
            elif t == "--b2b-max":
                o["b2b_max"] = sweep.parse_count(v)
        except ValueError:
            pass
    return o


B2B_CALLS = 8  # pat-calibrate's calls per back-to-back repetition


def calibration_plan(o, P, ns_per_byte, call_ms):
    """pat-calibrate's block sizes and the estimated seconds of each (a
    progress estimate: the bar's ETA scales it by how fast it really goes)."""
    lo, hi, points = o["min"], o["max"], max(o["points"], 2)
    sizes = []
    for k in range(points):  # as pat-calibrate: log-spaced, rounded, no repeats
        b = int(round(lo * (hi / lo) ** (k / (points - 1))))
        if not sizes or b > sizes[-1]:
            sizes.append(b)

    def point(rep, call):
        # an untimed call, then repetitions until the CI is reached (small
        # blocks rarely reach it on a busy platform: max_reps) or max_s
        return call + min(o["max_reps"] * rep, o["max_s"] + rep)

    costs = []
    for b in sizes:
        call = 1e-3 * call_ms + 1e-9 * ns_per_byte * b * P
        around = 2e-3 * call_ms + o["gap"]  # a repetition's barrier, compute gap and reduction
        cost = point(around + call, call)
        if b <= o["b2b_max"]:  # the same again, B2B_CALLS calls a repetition
            cost += point(around + B2B_CALLS * call, call)
        costs.append(o["nalgs"] * cost)
    return sizes, costs


HEADER = re.compile(r"pat-calibrate: P=(\d+), (\d+) algorithms x (\d+) sizes \((\d+)\.\.(\d+) B\), "
                    r"at most ([\d.]+) s per point")
# an algorithm's row, printed when its size is done; not the link's rows
# ("one way, ranks 0 and 4 alone"), which come first, at the largest size
ROW = re.compile(r"^\s+(\S+)\s+(\d+) B\s+[\d.]+ us\s+\(\d+ reps\)( back to back)?")


def lines_of(proc, deadline):
    """The lines of proc's output as they come (None when it has gone past
    deadline).  From the descriptor itself: select() on a buffered file says
    nothing of the lines its buffer already holds, which then wait for the
    next write, or for the end."""
    fd, pending = proc.stdout.fileno(), b""
    while True:
        if time.time() > deadline:
            yield None
            return
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            if pending:
                yield pending.decode(errors="replace")
            return
        pending += chunk
        *done, pending = pending.split(b"\n")
        for line in done:
            yield line.decode(errors="replace") + "\n"


def calibrate(args, prog, launcher, bench_dir, csv_tmp, log_path):
    """pat-calibrate under the launcher, its rows on the progress bar.
    Returns None or the reason it failed."""
    cmd = sweep.launcher_cmd(launcher, args.P) + [os.path.join(bench_dir, "calibrate", "pat-calibrate"),
                                                  "--out", csv_tmp] + shlex.split(args.calibrate)
    env = dict(os.environ)
    env.pop("PAT_MODEL", None)  # the calibration times the algorithms, not a model's choice
    opts = calibration_options(args.calibrate)
    sizes, costs = calibration_plan(opts, args.P, args.est_ns_per_byte, args.est_call_ms)
    planned = sum(costs)
    prog.add(planned, len(sizes))
    cur = 0
    what = lambda k: "calibrating on %d ranks: %s blocks (%d/%d sizes)" % (
        args.P, human_bytes(sizes[min(k, len(sizes) - 1)]), min(k + 1, len(sizes)), len(sizes))
    prog.begin(costs[0], what(0))
    deadline = time.time() + args.calibrate_timeout
    with open(log_path, "w") as log:
        log.write("$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        log.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL, start_new_session=True, bufsize=0)
        try:
            for line in lines_of(proc, deadline):
                if line is None:
                    sweep.stop(proc)
                    return "timed out after %d s" % args.calibrate_timeout
                log.write("%8.1f %s" % (time.time() - prog.t0, line))
                log.flush()
                m = HEADER.search(line)
                if m:  # what it will really do: re-plan the rest
                    opts.update(nalgs=int(m.group(2)), points=int(m.group(3)), min=int(m.group(4)),
                                max=int(m.group(5)), max_s=float(m.group(6)))
                    new_sizes, new_costs = calibration_plan(opts, args.P, args.est_ns_per_byte, args.est_call_ms)
                    prog.add(sum(new_costs) - planned, len(new_sizes) - len(sizes))
                    sizes, costs, planned = new_sizes, new_costs, sum(new_costs)
                    prog.begin(costs[0], what(0))
                    continue
                m = ROW.match(line)
                if m and int(m.group(2)) in sizes:
                    k = sizes.index(int(m.group(2)))
                    if sizes[k] <= opts["b2b_max"] and not m.group(3):
                        k -= 1  # its back-to-back pass is still to come
                    while cur <= k and cur < len(sizes):  # rows come when their size is done
                        prog.advance(costs[cur], what(cur))
                        cur += 1
                        if cur < len(sizes):
                            prog.begin(costs[cur], what(cur))
            code = proc.wait()
        except BaseException:
            sweep.stop(proc)
            raise
    while cur < len(sizes):  # the last size (or sizes skipped by a failure)
        prog.advance(costs[cur], what(cur))
        cur += 1
    if code != 0:
        return "pat-calibrate exited with status %d" % code
    return None


def fit_model(prog, build, tmp, base):
    """pat-fit on the calibration's CSV tmp.csv into tmp.model (its report: base.fit.txt).
    Returns (None, False) when there is a model, else (why not, whether measuring again may
    help: every fit rejected, which a disturbance during one of a quick calibration's few sizes
    does to all the algorithms measured at it together)."""
    fit = subprocess.run([os.path.join(build, "pat-fit"), "--in", tmp + ".csv", "--out", tmp + ".model"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    with open(base + ".fit.txt", "w") as f:
        f.write(fit.stdout)
    if fit.returncode == 0:
        return None, False
    # exit 1: the model was written, but some algorithms' fits were rejected (a quick
    # calibration's few noisy points can fall with the size); the model still holds
    # every measured time and the other fits, which is what the demo needs
    if fit.returncode == 1 and os.path.exists(tmp + ".model"):
        rejected = [ln.split()[0] for ln in fit.stdout.splitlines() if " fit failed:" in ln]
        say(prog, "demo: pat-fit rejected the fit of %s (noisy calibration points, %s); the model "
                  "keeps their measured times" % (", ".join(rejected) or "some algorithms",
                                                  show_path(base + ".fit.txt")))
        return None, False
    # keep what pat-fit read: a failed fit is otherwise unexplainable afterwards
    shutil.copyfile(tmp + ".csv", base + ".failed.csv")
    said = [ln for ln in fit.stdout.splitlines() if ln.startswith("pat-fit:")]
    why = "pat-fit failed (exit %d): %s; its input kept as %s" % (
        fit.returncode, " / ".join(said) or "see " + show_path(base + ".fit.txt"), show_path(base + ".failed.csv"))
    return why, any("no algorithm could be fitted" in ln for ln in said)


def get_model(args, prog, launcher, build):
    """The model file: reused from the cache or made now.  Returns its path, or exits."""
    key_text, key_hash = cache_key(args, build)
    os.makedirs(args.cache, exist_ok=True)
    base = os.path.join(args.cache, "%s-p%d-%s" % (args.platform, args.P, key_hash))
    model = base + ".model"
    if os.path.exists(model) and not args.recalibrate:
        made = datetime.datetime.fromtimestamp(os.path.getmtime(model)).strftime("%Y-%m-%d %H:%M")
        took = ""
        try:
            with open(base + ".csv") as f:
                m = re.search(r"# calibration took ([\d.]+) s", f.read())
            took = ", took %s" % fmt_time(float(m.group(1))) if m else ""
        except OSError:
            pass
        say(prog, "demo: calibration reused: %s (made %s%s; same machine, libpat and settings: %s.key); "
                  "to recalibrate: bench/demo.sh --recalibrate, or delete it"
            % (show_path(model), made, took, os.path.basename(base)))
        return model, True
    say(prog, "demo: calibrating the cost model on %d ranks (every algorithm, pat-calibrate %s); "
              "cached as %s" % (args.P, args.calibrate, show_path(model)))
    tmp = "%s.tmp%d" % (base, os.getpid())
    t0 = time.time()
    try:
        for attempt in (1, 2):
            why = calibrate(args, prog, launcher, os.path.join(build, "bench"), tmp + ".csv", base + ".log")
            noisy = False
            if why is None:
                why, noisy = fit_model(prog, build, tmp, base)
            if why is None or not noisy or attempt == 2:
                break
            say(prog, "demo: %s; calibrating again (once)" % why)
        if why is not None:
            prog.close()
            sys.stderr.write("demo: calibration failed: %s; log: %s\n" % (why, base + ".log"))
            sys.exit(1)
        with open(base + ".key", "w") as f:
            f.write(key_text)
        os.replace(tmp + ".csv", base + ".csv")
        os.replace(tmp + ".model", model)  # last: a model file in the cache is always complete
    finally:
        for suffix in (".csv", ".model"):
            if os.path.exists(tmp + suffix):
                os.remove(tmp + suffix)
    say(prog, "demo: calibrated in %s" % fmt_time(time.time() - t0))
    return model, False


# --------------------------------------------------------------- the report

def chosen_text(row):
    """'ard=10;bruck=2' -> 'ard 10, bruck 2'; one algorithm alone -> its name."""
    parts = [p.split("=") for p in (row.get("chosen") or "").split(";") if "=" in p]
    if len(parts) == 1:
        return parts[0][0]
    return ", ".join("%s %s" % (a, n) for a, n in sorted(parts, key=lambda p: -int(p[1])))


def speedup(native, auto):
    """NATIVE's mean e over auto's, and the half-width of its 95% interval
    (the two means' intervals combined, as independent)."""
    n, a = pat_results.fnum(native.get("ebar_us")), pat_results.fnum(auto.get("ebar_us"))
    if not n or not a:
        return None, None
    cn = pat_results.fnum(native.get("ebar_ci95_us")) or 0.0
    ca = pat_results.fnum(auto.get("ebar_ci95_us")) or 0.0
    s = n / a
    return s, s * math.sqrt((cn / n) ** 2 + (ca / a) ** 2)


def table_algs(by_cell, keys, listed):
    """The table's columns: the listed algorithms that have rows, then those
    that only pat-minibench --also-chosen ran (what auto ran that the list
    lacks), then auto last, next to what it ran."""
    present = {a for k in keys for a in by_cell[k]}
    extra = sorted(present - set(listed), key=pat_results.alg_key)
    cols = [a for a in listed if a in present and a != "auto"] + extra
    return cols + (["auto"] if "auto" in present else [])


def demo_table(rows, P, algs):
    """The table (text) and a summary of auto against NATIVE."""
    by_cell = pat_results.cells(rows)
    keys = sorted((k for k in by_cell if k[0] == P), key=lambda k: (k[1], k[2]))
    algs = table_algs(by_cell, keys, algs)
    head = ["N", "block", "maxDelay"] + algs + ["auto ran", "auto vs NATIVE"]
    out, balanced, imbalanced = [], [], []
    for k in keys:
        cell = by_cell[k]
        w = pat_results.winner(cell)
        any_row = next(iter(cell.values()))
        line = [pat_results.human_count(k[1]), human_bytes(any_row.get("block_bytes") or 0) if any_row.get(
            "block_bytes") else "", pat_results.fmt_delay(k[2], k[3])]
        for a in algs:
            r = cell.get(a)
            if r is None:
                line.append("")
            elif not pat_results.usable(r):
                line.append(r.get("status") or "?")
            else:
                line.append(("*" if w and w[0] == a else "") + fmt_ms(pat_results.fnum(r["ebar_us"])))
        auto, native = cell.get("auto"), cell.get("native")
        if auto and pat_results.usable(auto):
            line.append(chosen_text(auto))
        else:
            line.append("")
        if auto and native and pat_results.usable(auto) and pat_results.usable(native):
            s, ci = speedup(native, auto)
            line.append("%.2fx +-%.2f" % (s, ci))
            (balanced if k[2] == 0 else imbalanced).append((s, ci, k))
        else:
            line.append("")
        out.append(line)
    widths = [max(len(x[i]) for x in [head] + out) for i in range(len(head))]
    lines = ["  ".join((h.ljust(w) if i < 3 or i >= len(head) - 2 else h.rjust(w))
                       for i, (h, w) in enumerate(zip(head, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for line in out:
        lines.append("  ".join((c.ljust(w) if i < 3 or i >= len(head) - 2 else c.rjust(w))
                               for i, (c, w) in enumerate(zip(line, widths))))
    summary = []
    if balanced:
        lo, hi = min(s for s, _, _ in balanced), max(s for s, _, _ in balanced)
        summary.append("balanced arrivals (maxDelay 0): auto %s NATIVE's speed" % (
            "%.2fx" % lo if len(balanced) == 1 else "%.2f-%.2fx" % (lo, hi)))
    if imbalanced:
        s, ci, k = max(imbalanced)
        summary.append("imbalanced arrivals: at best %.2fx +-%.2f (N=%s, maxDelay %s); %d of %d cells %s"
                       % (s, ci, pat_results.human_count(k[1]), pat_results.fmt_delay(k[2], k[3]),
                          sum(1 for x in imbalanced if x[0] - x[1] > 1.0), len(imbalanced),
                          "significantly faster than NATIVE (interval above 1)"))
    return "\n".join(lines), summary


def plot(rows, P, out_dir):
    """demo.png: mean e against maxDelay for NATIVE, auto and ARD, one panel per N.
    Returns (path or None, reason)."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return None, "gnuplot not found (Debian: gnuplot-nox): no plot"
    by_cell = pat_results.cells(rows)
    Ns = sorted({k[1] for k in by_cell if k[0] == P})
    delays = sorted({k[2] for k in by_cell if k[0] == P and k[3] == "ms"})
    if len(delays) < 2:
        return None, "one maxDelay only: no plot"
    dat = os.path.join(out_dir, "demo.dat")
    blocks = []  # (N, alg) in file order
    with open(dat, "w") as f:
        for N in Ns:
            for a in PLOT_ALGS:
                pts = [(d, by_cell[(P, N, d, "ms")][a]) for d in delays
                       if a in by_cell.get((P, N, d, "ms"), {}) and pat_results.usable(by_cell[(P, N, d, "ms")][a])]
                f.write("# N=%d %s: maxDelay_ms ebar_ms ci95_ms\n" % (N, a))
                for d, r in pts:
                    f.write("%g %.4f %.4f\n" % (d, pat_results.fnum(r["ebar_us"]) / 1000,
                                                (pat_results.fnum(r.get("ebar_ci95_us")) or 0) / 1000))
                if not pts:
                    f.write("nan nan nan\n")
                f.write("\n\n")
                blocks.append((N, a))
    style = {"native": "lw 2 lc rgb '#444444' pt 7", "auto": "lw 3 lc rgb '#d62728' pt 5",
             "ard": "lw 2 dt 2 lc rgb '#1f77b4' pt 9"}
    label = {"native": "NATIVE (Open MPI)", "auto": "libpat auto", "ard": "libpat ARD (forced)"}
    gp = os.path.join(out_dir, "demo.gp")
    with open(gp, "w") as f:
        f.write("set terminal pngcairo size %d,520 noenhanced\n" % (460 * max(1, len(Ns)) + 60))
        f.write("set output 'demo.png'\n")
        f.write("set multiplot layout 1,%d title 'mean time in the all-gather vs maxDelay, P=%d "
                "(error bars: 95%% CI)'\n" % (len(Ns), P))
        f.write("set xlabel 'maxDelay (ms)'\nset ylabel 'mean e (ms)'\nset grid\nset key top left\n")
        f.write("set yrange [0:*]\nset offsets graph 0.03, graph 0.03, graph 0.05, 0\n")
        for N in Ns:
            block = next((r.get("block_bytes") for k, c in by_cell.items() if k[1] == N for r in c.values()), 0)
            f.write("set title 'N=%s floats (%s blocks)'\n" % (pat_results.human_count(N), human_bytes(block or 0)))
            parts = ["'demo.dat' index %d using 1:2:3 with yerrorlines %s title '%s'" % (i, style[a], label[a])
                     for i, (n, a) in enumerate(blocks) if n == N]
            f.write("plot " + ", \\\n     ".join(parts) + "\n")
        f.write("unset multiplot\n")
    res = subprocess.run([gnuplot, "demo.gp"], cwd=out_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=120)
    png = os.path.join(out_dir, "demo.png")
    if res.returncode != 0 or not os.path.exists(png):
        return None, "gnuplot failed: %s" % res.stdout.strip()[:300]
    return png, None


# --------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--platform", required=True, help="name in the cache key and file names (cluster, shm)")
    ap.add_argument("--describe", default="", help="one line saying what the platform is")
    ap.add_argument("--launcher", required=True, help="starts P ranks; {P} is replaced (sweep.py's --launcher)")
    ap.add_argument("--P", type=int, required=True)
    ap.add_argument("--N", required=True)
    ap.add_argument("--delays", required=True)
    ap.add_argument("--algs", required=True)
    ap.add_argument("--iters", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--base-ms", type=float, default=20.0)
    ap.add_argument("--calibrate", default="--quick", help="pat-calibrate's options (default --quick)")
    ap.add_argument("--calibrate-timeout", type=int, default=900)
    ap.add_argument("--cache", required=True, help="folder of the cached model files")
    ap.add_argument("--key", action="append", default=[], help="a platform setting the model depends on")
    ap.add_argument("--recalibrate", action="store_true")
    ap.add_argument("--model", default="", help="use this model file; no calibration")
    ap.add_argument("--no-model", action="store_true", help="no calibration, no model (auto's built-in estimate)")
    ap.add_argument("--est-ns-per-byte", type=float, default=1.0,
                    help="for the progress estimate: an all-gather's time per byte gathered, ns (sweep.py)")
    ap.add_argument("--est-call-ms", type=float, default=0.3,
                    help="for the progress estimate: a calibration repetition's fixed cost, ms")
    ap.add_argument("--build", default=os.environ.get("PAT_BUILD_DIR", os.path.join(REPO, "build")))
    ap.add_argument("--out", default=None, help="results folder (default bench/results/<date>-demo[-k])")
    ap.add_argument("sweep_args", nargs="*", help="after --: more sweep.py options (they win)")
    args = ap.parse_args(argv)
    build = os.path.abspath(args.build)
    bench = os.path.join(build, "bench", "minibench", "pat-minibench")

    out = args.out
    if out is None:
        out = os.path.join(REPO, "bench", "results", "%s-demo" % datetime.date.today().isoformat())
        k = 2
        base = out
        while os.path.exists(out):
            out, k = "%s-%d" % (base, k), k + 1
    os.makedirs(out, exist_ok=True)

    t0 = time.time()
    prog = sweep.Progress()
    launcher = args.launcher + (" -x PAT_MODEL" if not args.no_model else "")
    sweep_argv = ["--launcher", launcher, "--label", "demo", "--P", str(args.P), "--N", args.N,
                  "--delays", args.delays, "--algs", args.algs, "--iters", str(args.iters),
                  "--warmup", str(args.warmup), "--flat-iters", "0", "--base-ms", "%g" % args.base_ms,
                  "--compute", "sleep", "--bench", bench, "--bench-args", "--order blocked --also-chosen",
                  "--est-ns-per-byte", "%g" % args.est_ns_per_byte, "--errorbars", "ci",
                  "--out", out] + args.sweep_args
    sargs = sweep.parser().parse_args(sweep_argv)
    try:
        grid = sweep.grid_of(sargs)
    except ValueError as e:
        ap.error("bad grid: %s" % e)
    prog.add(sum(g[3] for g in grid), len(grid))  # the bar covers calibration and grid from the start
    if args.describe:
        say(prog, "demo: %s" % args.describe)
    reused = None
    if args.model:
        model = os.path.abspath(args.model)
        say(prog, "demo: auto selects with PAT_MODEL=%s (no calibration)" % model)
    elif args.no_model:
        model = ""
        say(prog, "demo: no calibration: auto uses its built-in estimate (a ping-pong at PAT_Init)")
    else:
        model, reused = get_model(args, prog, args.launcher, build)
    if model:
        os.environ["PAT_MODEL"] = model
    else:
        os.environ.pop("PAT_MODEL", None)

    code = sweep.main(sweep_argv, progress=prog, report=False, planned=True)
    prog.close()

    rows = sweep.read_csv(os.path.join(out, "results.csv"))
    algs = sweep.expand_algs([a.strip().lower() for a in sargs.algs.split(",") if a.strip()])
    Ps = sweep.parse_list(sargs.P, int)
    text = []
    for P in Ps:
        table, summary = demo_table(rows, P, algs)
        text.append("P = %d%s: mean time in the all-gather per rank, ms (mean over %d iterations; "
                    "* = fastest algorithm)" % (P, " (%s)" % args.platform if args.platform else "", sargs.iters))
        text.append(table)
        text.append("")
        text.append("auto vs NATIVE = NATIVE's mean time / auto's, with its 95% interval (> 1: auto is faster); "
                    "auto ran = the algorithms auto chose in the measured calls, each with a column, "
                    "measured in the same launch")
        text += ["  " + s for s in summary]
        png, why = plot(rows, P, out)
        text.append("plot: %s" % show_path(png) if png else "plot: %s" % why)
    note = pat_results.overload_note(rows)
    if note:
        text.append(note)
    bad = [r for r in rows if r.get("status") != "ok"]
    if bad:
        text.append("%d row(s) not ok (failed/crashed/timeout/errors): see %s" % (
            len(bad), show_path(os.path.join(out, "table.txt"))))
    text.append("every algorithm's numbers (mean +-95%% CI, relative to NATIVE): %s; all files: %s" % (
        show_path(os.path.join(out, "table.txt")), show_path(out)))
    if model:
        text.append("the model auto used: PAT_MODEL=%s (for your own runs on this platform with P=%d)"
                    % (show_path(model), args.P))
    text.append("demo driver: %s (%s)" % (fmt_time(time.time() - t0),
                                         "calibration reused" if reused else
                                         "with calibration" if reused is False else "no calibration"))
    report = "\n".join(text)
    print(report)
    with open(os.path.join(out, "demo.txt"), "w") as f:
        f.write(report + "\n")
    with open(os.path.join(out, "README.md"), "a") as f:
        f.write("\n## Demo (bench/demo.sh)\n\n%s\n\n```\n%s\n```\n" % (args.describe or args.platform, report))
    return code


if __name__ == "__main__":
    sweep.interrupt_on_signals()
    try:
        sys.exit(main())
    except (KeyboardInterrupt, sweep.Interrupted):
        sys.stderr.write("\ndemo: interrupted; the run in progress was stopped\n")
        sys.exit(130)
