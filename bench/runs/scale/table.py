#!/usr/bin/env python3
"""table.md of bench/results/2026-11-26-scale from its predict/ files (run.sh table)."""
import glob
import os
import re

OUT = os.environ.get("OUT", "bench/results/2026-11-26-scale")
BETA = 8e-10  # s/B: the 10 Gbit/s link of run.sh
UNIT = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}


def ms(num, unit):
    return float(num) * UNIT[unit]


def read(path):
    rows, info = {}, {}
    for line in open(path):
        m = re.match(r"^(\w+)\s+([\d.e+-]+) (s|ms|us|ns)(?:\s+([\d.e+-]+) (s|ms|us|ns)\s+([\d.e+-]+|inf))?", line)
        if m and m.group(1) in ("ring", "hring", "hrelay", "relay", "lower"):
            rows[m.group(1)] = ms(m.group(2), m.group(3))
        m = re.match(r"# size: block ([\d.e+]+) bytes", line)
        if m:
            info["block"] = int(float(m.group(1)))
        m = re.match(r"# auto would choose: (\w+)", line)
        if m:
            info["auto"] = m.group(1)
    return rows, info


def fmt(v):
    if v is None:
        return "-"
    return f"{v / 1e3:.3g} s" if v >= 1e3 else f"{v:.3g} ms"


def key(path):
    m = re.search(r"P(\d+)-ppn(\d+)-N(\d+)M-D(\w+)\.txt$", path)
    return int(m.group(3)), int(m.group(1)), int(m.group(2)), 0 if m.group(4) == "0" else 1


print("# pat-model at scale: flat RELAY against HRELAY, HRING and RING (predicted, not measured)\n")
print("10 Gbit/s between nodes (2 us), shared memory 100 Gbit/s (1 us); nodes of ppn consecutive ranks sharing")
print("their link; one uniform pattern (seed 1) per maxDelay.  HRING and HRELAY by the node model")
print("(src/model/model_nodes.c, `--node-model`), RING by its program (exact on such maps up to P = 128, at most")
print("5% above the replay beyond), flat RELAY by the full replay where it ran (P <= 1024; 25 s a cell at 1024),")
print("else '>= X': a bound from its volume (each of a node's ranks takes in the P - ppn blocks of the other")
print("nodes through the node's link, in its own messages: the mean rank waits for (ppn + 1) / 2 of them, less")
print("the blocks relayed from inside its node, less maxDelay).  'lower' is the two-level bound")
print("(pat_lower_bound_nodes; it counts a message's latency on the link, the model does not, so a prediction")
print("can fall below it when blocks are small).  'auto' is what the selection chooses for the pattern.\n")
for N in (16, 64):
    print(f"## N = {N}M floats\n")
    print("| P | ppn | nodes | block | maxDelay | RING | HRING | HRELAY | flat RELAY | lower | HRELAY/lower | flat RELAY/HRELAY | auto |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(f"{OUT}/predict/*-N{N}M-*.txt"), key=key):
        _, P, k, D = key(path)
        rows, info = read(path)
        relay, bound = None, False
        if os.path.exists(path + ".relay"):
            r, _ = read(path + ".relay")
            relay = r.get("relay")
        if relay is None and "block" in info:
            volume = (k + 1) / 2 * (P - k) * (1 - k / P) * BETA * info["block"] * 1e3
            relay, bound = max(0.0, volume - (50.0 if D else 0.0)), True
        hrelay, lower = rows.get("hrelay"), rows.get("lower")
        ratio = f"{hrelay / lower:.2f}" if hrelay and lower else "-"
        flat = (">= " if bound else "") + fmt(relay)
        vs = (">= " if bound else "") + (f"{relay / hrelay:.1f}x" if relay is not None and hrelay else "-")
        print(f"| {P} | {k} | {P // k} | {info.get('block', 0) // 1024} KiB | {'50 ms' if D else '0'} | "
              f"{fmt(rows.get('ring'))} | {fmt(rows.get('hring'))} | {fmt(hrelay)} | {flat} | {fmt(lower)} | "
              f"{ratio} | {vs} | {info.get('auto', '-')} |")
    print()

# the selection's CPU time per call (select/), before and after
sel = {}
for path in glob.glob(f"{OUT}/select/*.txt"):
    m = re.search(r"(new|old)-P(\d+)-ppn(\d+)-D(\w+)\.txt$", path)
    text = open(path).read()
    t = re.search(r"median of round means ([\d.]+) (ms|us)", text)
    c = re.search(r"chooses (\w+)", text)
    weighed = [a for a in ("ring", "hring", "hrelay", "relay") if re.search(rf"^  {a} +[\d.]+ (ms|s)", text, re.M)]
    sel[(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))] = (
        float(t.group(1)) * (1.0 if t.group(2) == "ms" else 1e-3) if t else None,
        c.group(1) if c else "-", ",".join(weighed) or "-")
if sel:
    print("## The selection's CPU time per call (pat-model --select-timing)\n")
    print("CLOCK_THREAD_CPUTIME_ID, rounds of 20 calls on a warm cache, the median of the rounds' means; every")
    print("algorithm allowed; 'weighed' lists which of RING, HRING, HRELAY and flat RELAY got a prediction.")
    print("'before' is main 6a8f5eb's pat-model with only --select-timing added.\n")
    print("| P | ppn | maxDelay | before | chooses | weighed | after | chooses | weighed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (which, P, k, D) in sorted(sel, key=lambda x: (x[1], x[2], x[3] != "0")):
        if which != "new":
            continue
        new, old = sel[(which, P, k, D)], sel.get(("old", P, k, D), (None, "-", "-"))
        f = lambda v: "-" if v is None else (f"{v:.3g} ms" if v >= 1 else f"{v * 1e3:.3g} us")
        print(f"| {P} | {k} | {'50 ms' if D != '0' else '0'} | {f(old[0])} | {old[1]} | {old[2]} | {f(new[0])} | "
              f"{new[1]} | {new[2]} |")
    print()
