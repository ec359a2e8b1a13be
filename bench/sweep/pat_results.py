#!/usr/bin/env python3
"""Tables and plots from pat-minibench CSV rows (Python standard library only).

Used by sweep.py; also runs on its own to redraw a results folder:

    python3 bench/sweep/pat_results.py [--stat mean|median] bench/results/2026-01-01-sweep

reads <dir>/results.csv and rewrites <dir>/table.txt and <dir>/plots/*.png.

The paper-style table (Proficz 2021, Table 3): for each N x maxDelay cell the
fastest algorithm by mean elapsed time; when it is arrival-aware (bdr, bslb,
ard), its speed-up over the best classic algorithm (NATIVE included).
With --stat median the winner is chosen by the median per-iteration ebar
(robust to outliers on a busy machine).  `auto` is not a contender (it runs one of the others); its own column in the
full table says how close it came to the fastest.
"""
import csv
import math
import os
import shutil
import subprocess
import sys

ARRIVAL_AWARE = ("bdr", "bslb", "ard", "relay")
CLASSIC = ("native", "ring", "nex", "rdb", "bruck", "lnbc", "direct")
ORDER = CLASSIC + ARRIVAL_AWARE + ("auto",)


def base_alg(name):
    """'native#2' (a twin run, a noise control) -> 'native'."""
    return (name or "").split("#")[0]


def alg_key(name):
    b = base_alg(name)
    return (ORDER.index(b) if b in ORDER else len(ORDER), name)


def human_count(n):
    """131072 -> '128K', 2097152 -> '2M', 1000 -> '1000'."""
    n = int(n)
    for div, suf in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, suf)
    return str(n)


def fnum(s):
    try:
        v = float(s)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def delay_of(row):
    """The requested max delay and its unit: the sweep's columns when present,
    else the mini-benchmark's own (ms)."""
    if row.get("delay_req"):
        return fnum(row["delay_req"]), row.get("delay_unit") or "ms"
    return fnum(row.get("max_delay_ms")), "ms"


def fmt_delay(d, unit):
    if d is None:
        return "?"
    s = ("%g" % d)
    return s + ("tau" if unit == "tau" else "ms")


def usable(row):
    """A row that can compete: ran, gave no wrong result, has a time."""
    return row.get("status") == "ok" and fnum(row.get("ebar_us")) is not None


def cells(rows):
    """{(P, N, delay, unit): {alg: row}} (the last row wins if repeated)."""
    out = {}
    for r in rows:
        try:
            key = (int(r["P"]), int(r["N_requested"])) + delay_of(r)
        except (KeyError, TypeError, ValueError):
            continue
        out.setdefault(key, {})[r["alg"]] = r
    return out


STATS = {"mean": "ebar_us", "median": "ebar_median_us"}


def winner(algs, stat="mean"):
    """(fastest alg, its ebar, speed-up over best classic or None, best classic alg);
    stat: compare the per-iteration ebar's mean (the headline metric) or median."""
    col = STATS[stat]
    contenders = {a: fnum(r.get(col)) for a, r in algs.items()
                  if a != "auto" and "#" not in a and usable(r) and fnum(r.get(col)) is not None}
    if not contenders:
        return None
    best = min(contenders, key=lambda a: contenders[a])
    classic = {a: e for a, e in contenders.items() if a not in ARRIVAL_AWARE}
    best_classic = min(classic, key=lambda a: classic[a]) if classic else None
    speedup = None
    if best in ARRIVAL_AWARE and best_classic is not None and contenders[best] > 0:
        speedup = classic[best_classic] / contenders[best]
    return best, contenders[best], speedup, best_classic


def paper_table(rows, stat="mean"):
    """The paper-style grid, one block per P.  Returns text."""
    by_cell = cells(rows)
    lines = []
    for P in sorted({k[0] for k in by_cell}):
        keys = [k for k in by_cell if k[0] == P]
        Ns = sorted({k[1] for k in keys})
        delays = sorted({(k[2], k[3]) for k in keys}, key=lambda d: (d[1], d[0] if d[0] is not None else -1))
        head = ["N \\ maxDelay"] + [fmt_delay(d, u) for d, u in delays]
        grid = []
        for N in Ns:
            line = [human_count(N)]
            for d, u in delays:
                algs = by_cell.get((P, N, d, u))
                w = winner(algs, stat) if algs else None
                if not algs:
                    line.append("")
                elif not w:
                    line.append("(none ok)")
                elif w[2] is not None:
                    line.append("%s x%.2f" % (w[0].upper(), w[2]))
                else:
                    line.append(w[0].upper())
            grid.append(line)
        widths = [max(len(str(x[i])) for x in [head] + grid) for i in range(len(head))]
        lines.append("P = %d: fastest algorithm by %s elapsed time; 'x s' = speed-up of an arrival-aware"
                     % (P, "mean" if stat == "mean" else "median per-iteration"))
        lines.append("winner over the best classic algorithm (NATIVE included)")
        lines.append("  ".join(str(h).ljust(w) for h, w in zip(head, widths)))
        lines.append("  ".join("-" * w for w in widths))
        for line in grid:
            lines.append("  ".join(str(c).ljust(w) for c, w in zip(line, widths)))
        lines.append("")
    return "\n".join(lines)


def full_table(rows, stat="mean"):
    """Every cell, every algorithm: ebar (us) +- CI, status.  Returns text."""
    by_cell = cells(rows)
    algs = sorted({a for v in by_cell.values() for a in v}, key=alg_key)
    lines = ["mean elapsed time ebar in us (+-95%% CI); '!' marks the fastest (by %s); status other than ok shown"
             % stat,
             ""]
    head = ["P", "N", "maxDelay"] + algs
    out = []
    for key in sorted(by_cell, key=lambda k: (k[0], k[1], k[3], k[2] if k[2] is not None else -1)):
        cell = by_cell[key]
        w = winner(cell, stat)
        line = [str(key[0]), human_count(key[1]), fmt_delay(key[2], key[3])]
        for a in algs:
            r = cell.get(a)
            if r is None:
                line.append("")
            elif not usable(r):
                line.append(r.get("status") or "?")
            else:
                e, ci = fnum(r["ebar_us"]), fnum(r.get("ebar_ci95_us"))
                s = "%.1f" % e + ("+-%.1f" % ci if ci is not None else "")
                if w and a == w[0]:
                    s = "!" + s
                line.append(s)
        out.append(line)
    widths = [max(len(x[i]) for x in [head] + out) for i in range(len(head))]
    lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for line in out:
        lines.append("  ".join(c.rjust(w) for c, w in zip(line, widths)))
    problems = {}
    for r in rows:
        if r.get("status") != "ok":
            key = (r.get("alg"), r.get("status"), r.get("message", ""))
            problems.setdefault(key, []).append(r)
    if problems:
        lines.append("")
        lines.append("rows not ok (algorithm: status x count [cells]: message):")
        for (alg, status, msg), rs in sorted(problems.items(), key=lambda kv: alg_key(kv[0][0] or "")):
            where = ", ".join("P=%s N=%s d=%s" % (r.get("P"), human_count(r.get("N_requested") or 0),
                                                  fmt_delay(*delay_of(r))) for r in rs[:4])
            more = " ..." if len(rs) > 4 else ""
            lines.append("  %s: %s x%d [%s%s]: %s" % (alg, status, len(rs), where, more, msg))
    return "\n".join(lines) + "\n"


def relative_table(rows, ref="native"):
    """Every algorithm's ebar relative to `ref` in the same cell: mean (median).
    Returns text, or "" when `ref` has no usable row."""
    by_cell = cells(rows)
    algs = sorted({a for v in by_cell.values() for a in v}, key=alg_key)
    head = ["P", "N", "maxDelay"] + algs
    out = []
    for key in sorted(by_cell, key=lambda k: (k[0], k[1], k[3], k[2] if k[2] is not None else -1)):
        cell = by_cell[key]
        base = cell.get(ref)
        if not base or not usable(base):
            continue
        b_mean, b_med = fnum(base["ebar_us"]), fnum(base.get("ebar_median_us"))
        line = [str(key[0]), human_count(key[1]), fmt_delay(key[2], key[3])]
        for a in algs:
            r = cell.get(a)
            if r is None or not usable(r):
                line.append("" if r is None else (r.get("status") or "?"))
                continue
            m, md = fnum(r["ebar_us"]), fnum(r.get("ebar_median_us"))
            text = "%.2f" % (m / b_mean) if b_mean else "?"
            if md is not None and b_med:
                text += " (%.2f)" % (md / b_med)
            line.append(text)
        out.append(line)
    if not out:
        return ""
    widths = [max(len(x[i]) for x in [head] + out) for i in range(len(head))]
    lines = ["ebar relative to %s in the same cell: mean ratio (median ratio); < 1 is faster" % ref.upper(), ""]
    lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for line in out:
        lines.append("  ".join(c.rjust(w) for c, w in zip(line, widths)))
    return "\n".join(lines) + "\n"


def overload_note(rows, limit_us=1000.0):
    """A warning when compute phases ended late (CPU contention), else ""."""
    late = [r for r in rows if usable(r) and (fnum(r.get("compute_late_us")) or 0) > limit_us]
    if not late:
        return ""
    worst = max(fnum(r["compute_late_us"]) for r in late)
    return ("WARNING: %d of %d rows ran with compute phases ending more than %.0f us late on average "
            "(worst %.0f us): the machine was overloaded, times are inflated and noisy "
            "(column compute_late_us)" % (len(late), sum(1 for r in rows if usable(r)), limit_us, worst))


# ---- plots ---------------------------------------------------------------

def _series(rows, fixed, xfield, errorbars):
    """{alg: [(x, ebar, err)]} over the rows matching `fixed`."""
    out = {}
    for r in rows:
        if not usable(r):
            continue
        d, u = delay_of(r)
        vals = {"P": int(r["P"]), "N": int(r["N_requested"]), "delay": d, "unit": u}
        if any(vals[k] != v for k, v in fixed.items()):
            continue
        err = fnum(r.get("ebar_sd_us" if errorbars == "sd" else "ebar_ci95_us")) or 0.0
        out.setdefault(r["alg"], []).append((vals[xfield], fnum(r["ebar_us"]), err))
    return {a: sorted(v) for a, v in out.items() if v}


def _gp_quote(s):
    return "'" + s.replace("'", "''") + "'"


def _draw(path_png, title, xlabel, series, logx, gnuplot):
    base = os.path.splitext(path_png)[0]
    dat, gp = base + ".dat", base + ".gp"
    algs = sorted(series, key=alg_key)
    with open(dat, "w") as f:
        for a in algs:
            f.write("# %s: x ebar_us err_us\n" % a)
            for x, y, e in series[a]:
                f.write("%r %r %r\n" % (x, y, e))
            f.write("\n\n")
    plots = []
    for i, a in enumerate(algs):
        dash = "dt 2" if a in ARRIVAL_AWARE else ("dt 3" if a == "auto" else "dt 1")
        plots.append("%s index %d using 1:2:3 with yerrorlines lw 2 %s pt %d title %s" %
                     (_gp_quote(os.path.basename(dat)), i, dash, 1 + i % 12, _gp_quote(a)))
    with open(gp, "w") as f:
        f.write("set terminal pngcairo size 960,600 noenhanced\n")
        f.write("set output %s\n" % _gp_quote(os.path.basename(path_png)))
        f.write("set title %s\n" % _gp_quote(title))
        f.write("set xlabel %s\nset ylabel 'mean elapsed time (us)'\n" % _gp_quote(xlabel))
        f.write("set key outside right top\nset grid\n")
        if logx:
            xs = sorted({x for a in algs for x, _, _ in series[a]})
            f.write("set logscale x 2\n")
            f.write("set xtics (%s)\n" % ", ".join("%s %r" % (_gp_quote(human_count(x)), x) for x in xs))
        f.write("set offsets graph 0.03, graph 0.03, graph 0.05, 0\n")
        f.write("plot " + ", \\\n     ".join(plots) + "\n")
    res = subprocess.run([gnuplot, os.path.basename(gp)], cwd=os.path.dirname(gp) or ".",
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if res.returncode != 0 or not os.path.exists(path_png):
        sys.stderr.write("gnuplot failed on %s:\n%s\n" % (gp, res.stdout))
        return False
    return True


def plots(rows, outdir, errorbars="sd"):
    """ebar vs N, vs maxDelay and vs P (each where that axis has >= 2 values).
    Returns (list of PNG paths, reason if none could be drawn)."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return [], "gnuplot not found (Debian package gnuplot-nox): no plots drawn"
    os.makedirs(outdir, exist_ok=True)
    ok_rows = [r for r in rows if usable(r)]
    keys = set()
    for r in ok_rows:
        d, u = delay_of(r)
        keys.add((int(r["P"]), int(r["N_requested"]), d, u))
    Ps = sorted({k[0] for k in keys})
    Ns = sorted({k[1] for k in keys})
    Ds = sorted({(k[2], k[3]) for k in keys}, key=lambda d: (d[1], d[0]))
    bar = "+-sigma" if errorbars == "sd" else "+-95% CI"
    made = []
    if len(Ns) >= 2:
        for P in Ps:
            for d, u in Ds:
                s = _series(ok_rows, {"P": P, "delay": d, "unit": u}, "N", errorbars)
                if s:
                    png = os.path.join(outdir, "ebar_vs_N_P%d_d%s.png" % (P, fmt_delay(d, u)))
                    if _draw(png, "ebar vs N, P=%d, maxDelay=%s (error bars %s)" % (P, fmt_delay(d, u), bar),
                             "N (floats gathered, total)", s, True, gnuplot):
                        made.append(png)
    if len(Ds) >= 2:
        for P in Ps:
            for N in Ns:
                for unit in sorted({u for _, u in Ds}):
                    s = _series(ok_rows, {"P": P, "N": N, "unit": unit}, "delay", errorbars)
                    if s:
                        png = os.path.join(outdir, "ebar_vs_delay_P%d_N%s_%s.png" % (P, human_count(N), unit))
                        if _draw(png, "ebar vs maxDelay, P=%d, N=%s (error bars %s)" % (P, human_count(N), bar),
                                 "maxDelay (%s)" % unit, s, False, gnuplot):
                            made.append(png)
    if len(Ps) >= 2:
        for N in Ns:
            for d, u in Ds:
                s = _series(ok_rows, {"N": N, "delay": d, "unit": u}, "P", errorbars)
                if s:
                    png = os.path.join(outdir, "ebar_vs_P_N%s_d%s.png" % (human_count(N), fmt_delay(d, u)))
                    if _draw(png, "ebar vs P, N=%s, maxDelay=%s (error bars %s)" % (human_count(N),
                                                                                    fmt_delay(d, u), bar),
                             "P (processes)", s, False, gnuplot):
                        made.append(png)
    reason = None
    if not made:
        reason = "no axis with two or more values among the successful rows: nothing to plot"
    return made, reason


def main(argv):
    stat = "mean"
    if len(argv) == 4 and argv[1] == "--stat" and argv[2] in STATS:
        stat, argv = argv[2], [argv[0], argv[3]]
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    d = argv[1]
    rows = read_rows(os.path.join(d, "results.csv"))
    rel = relative_table(rows)
    note = overload_note(rows)
    text = paper_table(rows, stat) + "\n" + full_table(rows, stat) + ("\n" + rel if rel else "") + (
        "\n" + note + "\n" if note else "")
    with open(os.path.join(d, "table.txt"), "w") as f:
        f.write(text)
    print(text)
    made, reason = plots(rows, os.path.join(d, "plots"))
    for p in made:
        print("plot:", p)
    if reason:
        print(reason)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
