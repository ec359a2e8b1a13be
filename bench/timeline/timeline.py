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
                                       "post": int(w[10]), "post_by": w[11], "done": int(w[13]), "done_by": w[14],
                                       "bytes": int(w[16]) if len(w) > 16 else None})
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


def profile(calls, ms, bin_ms, link_mbit):
    """Where a port idles: a receive's bytes count in the bin where it completed (an upper
    bound on that bin's rate, so bins above 100% follow a gap the message took to cross)."""
    per_bin = link_mbit * 1e6 / 8 * bin_ms / 1e3
    print(f"bytes completed per {bin_ms:g} ms bin, % of {link_mbit:g} Mbit/s; a = the rank's arrival, x = its exit")
    for r in sorted(calls):
        c = calls[r]
        nbins = int(ms(c["exit"]) // bin_ms) + 1
        for kinds, name in ((("recv",), "r"), (("send",), "s")):
            got = [0.0] * nbins
            for o in c["ops"]:
                if o["kind"] in kinds and o["done"] and o["bytes"] is not None:
                    got[min(int(ms(o["done"]) // bin_ms), nbins - 1)] += o["bytes"]
            marks = {int(ms(c["arrival"]) // bin_ms): "a", nbins - 1: "x"}
            print(f"{r:4d} {name} " + " ".join(f"{round(100 * g / per_bin):3d}{marks.get(i, ' ')}"
                                                 for i, g in enumerate(got)))


def scatter_receives(calls):
    """RELAY's first hop: per owner, the receives of its scattered pieces at their relays (a
    receive alone in its step is a scatter's; relays receive one piece from each other rank)."""
    got = {}
    for c in calls.values():
        per_step = {}
        for o in c["ops"]:
            if o["kind"] == "recv":
                per_step[o["step"]] = per_step.get(o["step"], 0) + 1
        for o in c["ops"]:
            if o["kind"] == "recv" and per_step[o["step"]] == 1 and o["done"]:
                got.setdefault(o["peer"], []).append(o)
    return got


def first_hop(calls, ms):
    got = scatter_receives(calls)
    print("first hop (RELAY's scatters), by arrival: owner, arrival, its pieces' arrival at the relays (ms)")
    for o in sorted(got, key=lambda o: calls[o]["arrival"]):
        d = sorted(ms(r["done"]) for r in got[o])
        a = ms(calls[o]["arrival"])
        print(f"{o:5d} {a:8.2f}  {len(d):3d} pieces  first {d[0]:7.2f}  median {d[len(d) // 2]:7.2f}  last {d[-1]:7.2f}"
              f"  (last - arrival {d[-1] - a:6.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("--call", type=int, default=-1, help="call number (default: the last one every rank recorded)")
    ap.add_argument("--ops", action="store_true", help="list every op")
    ap.add_argument("--tau-ms", type=float, default=0.0)
    ap.add_argument("--pat-schedule", default="build/pat-schedule")
    ap.add_argument("--profile-ms", type=float, default=0.0,
                    help="per rank, the bytes its receives (r) and sends (s) completed in bins of this many ms, "
                         "in percent of --link-mbit")
    ap.add_argument("--link-mbit", type=float, default=500.0)
    ap.add_argument("--first-hop", action="store_true",
                    help="RELAY: per owner, when the pieces it scattered reached their relays (a receive alone "
                         "in its step is a scatter's; relays receive one piece from each other rank per step)")
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
    if a.profile_ms > 0:
        profile(calls, ms, a.profile_ms, a.link_mbit)
    if a.first_hop:
        first_hop(calls, ms)
    if a.tau_ms > 0:
        arr = ",".join(f"{(calls[r]['arrival'] - t0) / 1e6 / a.tau_ms:.3f}" for r in sorted(calls))
        cmd = [a.pat_schedule, "--alg", c0["alg"], "-P", str(c0["P"]), "--arrivals", arr, "--times"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        print("model (pat-schedule, alpha = 0, lockstep replay), in tau =", a.tau_ms, "ms:")
        print(out.stdout.rstrip() or out.stderr.rstrip())
        print("measured e_i / tau:", " ".join(f"{e[r] / a.tau_ms:.2f}" for r in sorted(e)))


if __name__ == "__main__":
    main()
