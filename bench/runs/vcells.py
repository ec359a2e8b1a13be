"""The all-gatherv cells of a minibench CSV (run.sh cluster of vauto and vaware): per cell (N,
distribution, maxDelay) and algorithm, ē ms ± its 95% interval and ē/ē_lb (ē_lb with a transfer
time per block); what auto ran; and NATIVE's ē over auto's (> 1: auto faster than MPI's own
MPI_Allgatherv), the interval of that ratio from the two intervals (first order)."""
import collections


def read_cells(rows):
    """{(N, counts, delay): {alg: {e, ci, r, elb, err, chosen}}}, in the rows' order."""
    cells = collections.OrderedDict()
    for row in rows:
        counts, delay = row["label"].split("/")
        key = (row["N_requested"], counts, delay)
        cells.setdefault(key, {})[row["alg"]] = dict(e=float(row["ebar_us"]) / 1000, ci=float(row["ebar_ci95_us"]) / 1000,
                                                     r=float(row["ebar_over_elb"]), elb=float(row["elb_us"]) / 1000,
                                                     err=int(row["errors"]), chosen=row["chosen"])
    return cells


def print_table(cells, algs):
    """The markdown table: a row per cell, a column per algorithm, what auto ran, NATIVE/auto."""
    print("| N floats | blocks | maxDelay | ē_lb ms | " + " | ".join(f"{a} ē ms (ē/ē_lb)" for a in algs) +
          " | auto ran | NATIVE/auto |")
    print("|---|---|---|---|" + "---|" * len(algs) + "---|---|")
    for (N, counts, delay), v in cells.items():
        elb = next(iter(v.values()))["elb"]
        row = " | ".join(f"{v[a]['e']:.1f}±{v[a]['ci']:.1f} ({v[a]['r']:.2f})" if a in v else "-" for a in algs)
        ratio = "-"
        if "native" in v and "auto" in v:
            n, a = v["native"], v["auto"]
            q = n["e"] / a["e"]
            ci = q * ((n["ci"] / n["e"]) ** 2 + (a["ci"] / a["e"]) ** 2) ** 0.5
            ratio = f"{q:.2f}±{ci:.2f}"
        bad = sum(x["err"] for x in v.values())
        print(f"| {N} | {counts} | {delay} ms | {elb:.1f} | {row} | {v.get('auto', {}).get('chosen', '-')} | {ratio}"
              + (f" ({bad} data errors)" if bad else "") + " |")
