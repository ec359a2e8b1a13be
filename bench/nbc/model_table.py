#!/usr/bin/env python3
"""Measured against modelled: the overlap cells of bench/nbc/run.sh (nbc.csv, cells.csv) beside what
the cost model's non-blocking form predicts for them (pat-model --overlap, src/model/model_nbc.h):
MPI's own non-blocking all-gather (native; modelled as RING's blocking call after the compute) and
auto (modelled as ALG, RELAY with a rank a host, HRELAY with K ranks a host), per cell e-bar in ms and
auto / MPI's own. The model's pattern: maxDelay uniform, REPS seeds (default 20); the mini-benchmark's
calls draw their own delays, so the delayed cells compare means over different draws.

  python3 bench/nbc/model_table.py nbc.csv cells.csv MODEL_FILE [K] > model.md
  PAT_MODEL_TOOL=build/pat-model (default) REPS=20 P=8
  DAT=model.dat ...   also writes per cell "N/delay/compute modelled measured" (auto / MPI's own) for
                      bench/nbc/model_vs_measured.gp
"""
import csv
import os
import subprocess
import sys
from collections import defaultdict


def predict(tool, model, P, K, N, delay_ms, compute_ms, alg, reps):
    cmd = [tool, "--model", model, "--P", str(P), "--N", N, "--max-delay", "%gms" % delay_ms,
           "--reps", str(reps), "--overlap", "%gms" % compute_ms, "--algs", alg]
    if K > 1:
        cmd += ["--ppn", str(K)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] in ("mpi-own", alg):
            rows[f[0]] = to_ms(f[1], f[2])
    return rows["mpi-own"], rows[alg], " ".join(cmd[1:])


def to_ms(value, unit):
    return float(value) * {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[unit]


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    K = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    tool = os.environ.get("PAT_MODEL_TOOL", "build/pat-model")
    reps, P = int(os.environ.get("REPS", "20")), int(os.environ.get("P", "8"))
    alg = "relay" if K == 1 else "hrelay"
    compute = {}
    for row in csv.DictReader(open(sys.argv[2], newline="")):
        compute[(row["N"], row["delay_ms"], row["compute_pct"])] = float(row["compute_ms"])
    cells = defaultdict(dict)
    for row in csv.DictReader(open(sys.argv[1], newline="")):
        n, delay, pct, mode = row["label"].split("/")
        if mode == "overlap" and row["status"] == "ok" and row["alg"] in ("native", "auto"):
            cells[(n, delay, pct)][row["alg"]] = float(row["ebar_us"]) / 1e3
    print("| N | maxDelay ms | compute ms | MPI's own measured | modelled | auto measured | modelled (%s) |"
          " auto/own measured | modelled |" % alg)
    print("|---|---|---|---|---|---|---|---|---|")
    last_cmd, dat = "", []
    for (n, delay, pct), m in cells.items():
        if "native" not in m or "auto" not in m:
            continue
        T = compute[(n, delay, pct)]
        own, ours, last_cmd = predict(tool, sys.argv[3], P, K, n, float(delay), T, alg, reps)
        print("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f |" %
              (n, delay, T, m["native"], own, m["auto"], ours, m["auto"] / m["native"], ours / own))
        dat.append("%s/%s/%.0f %.4f %.4f" % (n, delay, T, ours / own, m["auto"] / m["native"]))
    if os.environ.get("DAT"):
        with open(os.environ["DAT"], "w") as f:
            f.write("# cell modelled measured (auto / MPI's own e-bar)\n" + "\n".join(dat) + "\n")
    print("\nModel: `pat-model %s` (per cell its N, maxDelay and compute)" % last_cmd)


if __name__ == "__main__":
    main()
