#!/usr/bin/env python3
"""Print the per-op timeline that PAT_TIMELINE=PREFIX recorded (one file
PREFIX.<world rank> per rank), for one call, beside the model's replay of
the same schedule.

    timeline.py PREFIX [--call K] [--ops] [--tau-ms T --pat-schedule build/pat-schedule]

Per rank: arrival, when the foreground took the schedule over (handover,
after the exchange and the plan), exit, e_i = exit - arrival, how many of
its ops the background thread posted and completed before the rank
arrived, the time its receive port was busy (union of its receives'
post..completion intervals after the data could flow), and the idle gaps
of its send side.  Times in ms from the earliest arrival.  --ops lists
every op; --tau-ms with pat-schedule prints the model's e_i (in tau, alpha
= 0, its own replay of the schedule the algorithm builds for these
arrivals) beside the measured e_i / tau.  Call numbers are per process
(the K-th recorded call of each rank): the ranks of one communicator record
the same calls in the same order.
"""
import argparse
import glob
import subprocess
import sys


def read(prefix):
    ranks = {}
    for path in glob.glob(prefix + ".*"):
        calls, cur = [], None
        with open(path) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if w[0] == "call":
                    kv = {w[i]: w[i + 1] for i in range(0, min(len(w), 20) - 1, 2)}
                    cur = {"rank": int(kv["rank"]), "P": int(kv["P"]), "alg": kv["alg"], "window": int(kv["window"]),
                           "bytes": int(kv["bytes"]), "arrival": int(kv["arrival"]), "handover": int(kv["handover"]),
                           "exit": int(kv["exit"]), "ops": []}
                    if "predicted" in w:
                        cur["predicted"] = [int(x) for x in w[w.index("predicted") + 1].split(",")]
                    calls.append(cur)
                elif w[0] == "op" and cur is not None:
                    cur["ops"].append({"step": int(w[3]), "kind": w[4], "peer": int(w[6]), "blocks": float(w[8]),
                                       "post": int(w[10]), "post_by": w[11], "done": int(w[13]), "done_by": w[14]})
        if calls:
            ranks[calls[0]["rank"]] = calls
    return ranks


def union_ms(intervals):
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("--call", type=int, default=-1, help="call number (default: the last one every rank recorded)")
    ap.add_argument("--ops", action="store_true", help="list every op")
    ap.add_argument("--tau-ms", type=float, default=0.0)
    ap.add_argument("--pat-schedule", default="build/pat-schedule")
    a = ap.parse_args()
    ranks = read(a.prefix)
    if not ranks:
        sys.exit(f"no timeline files {a.prefix}.*")
    n = min(len(c) for c in ranks.values())
    k = a.call if a.call >= 0 else n - 1
    calls = {r: c[k] for r, c in ranks.items()}
    c0 = next(iter(calls.values()))
    t0 = min(c["arrival"] for c in calls.values())
    ms = lambda t: (t - t0) / 1e6 if t else float("nan")
    print(f"call {k}: {c0['alg']} P={c0['P']} window={c0['window']} block={c0['bytes']} B, ranks recorded: {len(calls)}")
    e = {}
    print(" rank  arrive  handover   exit     e_i   bg-posted bg-done  recv-busy  last-recv  sends-by-fg")
    for r in sorted(calls):
        c = calls[r]
        ops = c["ops"]
        bg_post = sum(1 for o in ops if o["post_by"] == "bg")
        bg_done = sum(1 for o in ops if o["done_by"] == "bg")
        recv = [(o["post"], o["done"]) for o in ops if o["kind"] in ("recv", "srecv") and o["done"]]
        last_recv = max((d for _, d in recv), default=0)
        e[r] = (c["exit"] - c["arrival"]) / 1e6
        print(f"{r:5d} {ms(c['arrival']):7.2f} {ms(c['handover']):9.2f} {ms(c['exit']):7.2f} {e[r]:7.2f}"
              f" {bg_post:7d} {bg_done:8d} {union_ms(recv):10.2f} {ms(last_recv):10.2f}"
              f" {sum(1 for o in ops if o['kind'] in ('send', 'ssend') and o['post_by'] == 'fg'):8d}")
    ebar = sum(e.values()) / len(e)
    print(f"measured e-bar {ebar:.2f} ms")
    if a.ops:
        for r in sorted(calls):
            print(f"-- rank {r}")
            for i, o in enumerate(calls[r]["ops"]):
                print(f"  {i:4d} step {o['step']:4d} {o['kind']:5s} peer {o['peer']:3d} {o['blocks']:.3f} blk"
                      f"  post {ms(o['post']):8.2f} ({o['post_by']})  done {ms(o['done']):8.2f} ({o['done_by']})"
                      f"  {(o['done'] - o['post']) / 1e6:7.2f} ms")
    if a.tau_ms > 0:
        arr = ",".join(f"{(calls[r]['arrival'] - t0) / 1e6 / a.tau_ms:.3f}" for r in sorted(calls))
        cmd = [a.pat_schedule, "--alg", c0["alg"], "-P", str(c0["P"]), "--arrivals", arr, "--times"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        print("model (pat-schedule, alpha = 0, lockstep replay), in tau =", a.tau_ms, "ms:")
        print(out.stdout.rstrip() or out.stderr.rstrip())
        print("measured e_i / tau:", " ".join(f"{e[r] / a.tau_ms:.2f}" for r in sorted(e)))


if __name__ == "__main__":
    main()
