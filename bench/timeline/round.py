#!/usr/bin/env python3
"""Print a persistent or non-blocking all-gather's round from the files
PAT_TIMELINE=PREFIX recorded (PREFIX.<world rank>; their format in
src/runtime/round_trace.h), or check them (tests/mpi/timeline_check.sh).

    round.py PREFIX                      list the recorded calls and their rounds
    round.py PREFIX --call ID            a line per round of a persistent call
    round.py PREFIX --call ID --round N
    round.py PREFIX --nbc ID [--msgs]
    round.py PREFIX --check relay=6,ring=2,mpi-own=2,nbc=14 [--late]

A round, per rank, in ms from the earliest start: start (the rank's
arrival; spread: the latest start - the earliest), done (the background
thread saw it complete), waited (the application saw the request complete:
PAT_Waited; for a non-blocking call its wait or test), e_i = completion -
start (the application's completion where known).  A round run on the
queue is also a non-blocking call (--nbc), with its ops: the receive
port's busy time (union of the receives' post..done intervals after the
start) and its longest idle gap; --msgs lists every op.
"""
import argparse
import glob
import sys

ROUND_INTS = ("start", "done", "signal", "waited", "bytes", "P", "rank")


def kv(words, keys):
    out = {}
    for k in keys:
        if k in words:
            out[k] = int(words[words.index(k) + 1])
    return out


def read(prefix):
    """{rank: {"rounds": {(id, n): round}, "nbc": {id: call}}}"""
    ranks = {}
    for path in glob.glob(prefix + ".*"):
        try:
            rank = int(path.rsplit(".", 1)[1])
        except ValueError:
            continue
        rounds, nbc, waited, cur = {}, {}, {}, None
        with open(path) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if w[0] == "round":
                    cur = kv(w[:4] + w[5:], ROUND_INTS)  # "what" names the schedule: not a key of its own
                    cur.update({"id": int(w[1]), "n": int(w[2]), "what": w[4]})
                    key = (cur["id"], cur["n"])
                    if key in rounds:
                        raise ValueError(f"{path}: round {key} twice")
                    rounds[key] = cur
                elif w[0] == "nbc":
                    cur = kv(w, ("rank", "P", "bytes", "post", "start", "done", "waited"))
                    cur.update({"id": int(w[1]), "alg": w[w.index("alg") + 1], "ops": []})
                    nbc[cur["id"]] = cur
                elif w[0] == "nbcop" and cur is not None and "alg" in cur and len(w) == 17:
                    cur["ops"].append({"kind": w[4], "peer": int(w[6]), "post": int(w[10]), "done": int(w[13]),
                                       "bytes": int(w[16])})
                elif w[0] == "waited":
                    waited[(int(w[1]), int(w[2]))] = int(w[4])
                else:
                    cur = None  # a blocking call's lines (timeline.py)
        for key, t in waited.items():
            if key in rounds:
                rounds[key]["waited"] = t
        ranks[rank] = {"rounds": rounds, "nbc": nbc}
    return ranks


def union_and_gap(intervals, since):
    """Busy time of the union of intervals after since, and its longest idle gap (ns)."""
    busy, gap, end = 0, 0, since
    for a, b in sorted((max(a, since), b) for a, b in intervals if b > since):
        if a > end:
            gap = max(gap, a - end)
        if b > end:
            busy += b - max(a, end)
            end = b
    return busy, gap


def ms(ns):
    return ns / 1e6


def show_round(ranks, cid, n):
    rows = {r: d["rounds"][(cid, n)] for r, d in sorted(ranks.items()) if (cid, n) in d["rounds"]}
    if not rows:
        sys.exit(f"no round {n} of call {cid}")
    t0 = min(t["start"] for t in rows.values())
    any_t = next(iter(rows.values()))
    print(f"call {cid} round {n}: {any_t['what']}, P = {any_t['P']}; ms from the earliest start")
    print(f"{'rank':>4} {'start':>9} {'done':>9} {'waited':>9} {'e_i':>8}")
    for r, t in rows.items():
        end = t["waited"] or t["done"]
        waited = f"{ms(t['waited'] - t0):9.3f}" if t["waited"] else f"{'-':>9}"
        print(f"{r:>4} {ms(t['start'] - t0):9.3f} {ms(t['done'] - t0):9.3f} {waited} {ms(end - t['start']):8.3f}")
    print(f"e-bar {sum(ms((t['waited'] or t['done']) - t['start']) for t in rows.values()) / len(rows):.3f} ms")


def show_rounds(ranks, cid):
    """A line per round: what it ran, e-bar over ranks, the largest e_i, the starts' spread."""
    ns = sorted({n for d in ranks.values() for (c, n) in d["rounds"] if c == cid})
    if not ns:
        sys.exit(f"no rounds of call {cid}")
    print(f"call {cid}: ms; e_i = completion (the application's where known) - start")
    print(f"{'round':>5} {'what':>9} {'ranks':>5} {'e-bar':>8} {'max e_i':>8} {'spread':>8}")
    for n in ns:
        rows = [d["rounds"][(cid, n)] for d in ranks.values() if (cid, n) in d["rounds"]]
        e = [ms((t["waited"] or t["done"]) - t["start"]) for t in rows]
        starts = [t["start"] for t in rows]
        print(f"{n:>5} {rows[0]['what']:>9} {len(rows):>5} {sum(e) / len(e):8.3f} {max(e):8.3f} "
              f"{ms(max(starts) - min(starts)):8.3f}")


def show_nbc(ranks, cid, msgs):
    rows = {r: d["nbc"][cid] for r, d in sorted(ranks.items()) if cid in d["nbc"]}
    if not rows:
        sys.exit(f"no non-blocking call {cid}")
    t0 = min(c["post"] for c in rows.values())
    print(f"non-blocking call {cid}: {next(iter(rows.values()))['alg']}; ms from the earliest post")
    print(f"{'rank':>4} {'post':>9} {'bg start':>9} {'done':>9} {'waited':>9} {'e_i':>8} {'rx busy':>8} {'rx gap':>8}")
    for r, c in rows.items():
        end = c["waited"] or c["done"]
        busy, gap = union_and_gap([(o["post"], o["done"]) for o in c["ops"] if o["kind"] == "recv"], c["start"])
        print(f"{r:>4} {ms(c['post'] - t0):9.3f} {ms(c['start'] - t0):9.3f} {ms(c['done'] - t0):9.3f} "
              f"{ms(c['waited'] - t0):9.3f} {ms(end - c['post']):8.3f} {ms(busy):8.3f} {ms(gap):8.3f}")
        if msgs:
            for o in c["ops"]:
                print(f"  {o['kind']} peer {o['peer']} {o['bytes']} B post {ms(o['post'] - t0):9.3f} "
                      f"done {ms(o['done'] - t0):9.3f}")


def listing(ranks):
    calls = {}
    for d in ranks.values():
        for (cid, n), t in d["rounds"].items():
            calls.setdefault(("persistent", cid, t["what"]), set()).add(n)
        for cid, c in d["nbc"].items():
            calls.setdefault(("non-blocking", cid, c["alg"]), set()).add(0)
    for (form, cid, what), ns in sorted(calls.items()):
        print(f"{form} call {cid} ({what}): {len(ns)} round(s)" if form == "persistent" else
              f"{form} call {cid} ({what})")


CHOSEN = {"relay", "direct", "mpi-own"}


def check(ranks, spec, late):
    """Errors in the files against the calls tests/mpi/test_timeline_nbc.c makes."""
    errors = []
    want = {k: int(v) for k, v in (item.split("=") for item in spec.split(","))}
    P = len(ranks)
    if sorted(ranks) != list(range(P)):
        errors.append(f"files of ranks {sorted(ranks)}")
    for r, d in sorted(ranks.items()):
        by_call, call_what = {}, {}  # a start that completed inside PAT_Start is "in-start" in any call
        for (cid, n), t in d["rounds"].items():
            by_call.setdefault(cid, []).append(n)
            if t["what"] != "in-start" or cid not in call_what:
                # auto's starts (runtime/persist.c) may mix RELAY with DIRECT or MPI's own
                mixed = call_what.get(cid) == "rounds" or (
                    cid in call_what and {call_what[cid], t["what"]} <= CHOSEN and call_what[cid] != t["what"])
                if call_what.get(cid, "in-start") not in ("in-start", t["what"]) and not mixed:
                    errors.append(f"rank {r} call {cid}: rounds of {call_what[cid]} and {t['what']}")
                call_what[cid] = "rounds" if mixed else t["what"]
            if t["rank"] != r or t["P"] != P:
                errors.append(f"rank {r} round {cid}/{n}: rank {t['rank']} P {t['P']}")
            if not t["start"] or t["done"] < t["start"] or t["signal"] < t["done"]:
                errors.append(f"rank {r} round {cid}/{n}: start {t['start']} done {t['done']} signal {t['signal']}")
            if t["waited"] and t["waited"] < t["done"]:
                errors.append(f"rank {r} round {cid}/{n}: waited before done")
            if not t["waited"]:
                errors.append(f"rank {r} round {cid}/{n}: no waited time (the test calls PAT_Waited)")
        for cid, ns in by_call.items():
            what = call_what[cid]
            if late and what in ("rounds", "relay") and P > 2:  # after a round with a late rank, RELAY started ahead
                errors += [f"rank {r} call {cid} round {n}: {d['rounds'][(cid, n)]['what']}, not relay"
                           for n in ns if n > 0 and d["rounds"][(cid, n)]["what"] != "relay"]
            if sorted(ns) != list(range(len(ns))):
                errors.append(f"rank {r} {what} call {cid}: rounds {sorted(ns)}")
            if what in want and len(ns) != want[what]:
                errors.append(f"rank {r} {what} call {cid}: {len(ns)} rounds, want {want[what]}")
        for what in want:  # a call of MPI's own whose every start completed inside PAT_Start: in-start
            if what != "nbc" and what not in call_what.values() and (what != "mpi-own" or
                                                                      "in-start" not in call_what.values()):
                errors.append(f"rank {r}: no {what} round")
        if "nbc" in want and len(d["nbc"]) != want["nbc"]:
            errors.append(f"rank {r}: {len(d['nbc'])} non-blocking calls, want {want['nbc']}")
        for cid, c in d["nbc"].items():
            if not (0 < c["post"] <= c["start"] <= c["done"] <= c["waited"]) or c["rank"] != r or c["P"] != P:
                errors.append(f"rank {r} non-blocking call {cid}: {c}")
            if not c["ops"] or any(not o["post"] or o["done"] < o["post"] for o in c["ops"]):
                errors.append(f"rank {r} non-blocking call {cid}: ops {c['ops']}")
            if sum(o["bytes"] for o in c["ops"] if o["kind"] == "recv") != (P - 1) * c["bytes"]:
                errors.append(f"rank {r} non-blocking call {cid}: received bytes")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("--call", type=int, help="a persistent call's number")
    ap.add_argument("--round", type=int)
    ap.add_argument("--nbc", type=int, help="a non-blocking call's number")
    ap.add_argument("--msgs", action="store_true")
    ap.add_argument("--check", help="what=rounds,...,nbc=calls: check the files (tests)")
    ap.add_argument("--late", action="store_true", help="with --check: each round's rank n %% P was last")
    a = ap.parse_args()
    ranks = read(a.prefix)
    if not ranks:
        sys.exit(f"no timeline files {a.prefix}.*")
    if a.check:
        errors = check(ranks, a.check, a.late)
        for e in errors[:30]:
            print("FAIL", e)
        print(f"timeline of {len(ranks)} ranks: {len(errors)} error(s)")
        sys.exit(1 if errors else 0)
    if a.call is not None and a.round is None:
        show_rounds(ranks, a.call)
    elif a.call is not None:
        show_round(ranks, a.call, a.round)
    elif a.nbc is not None:
        show_nbc(ranks, a.nbc, a.msgs)
    else:
        listing(ranks)


if __name__ == "__main__":
    main()
