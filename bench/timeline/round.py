#!/usr/bin/env python3
"""Print a persistent or non-blocking all-gather's round from the files
PAT_TIMELINE=PREFIX recorded (PREFIX.<world rank>; their format in
src/runtime/round_trace.h), or check them (tests/mpi/timeline_check.sh).

    round.py PREFIX                      list the recorded calls and their rounds
    round.py PREFIX --call ID            a line per round of a persistent call
    round.py PREFIX --call ID --round N [--msgs]
    round.py PREFIX --nbc ID [--msgs]
    round.py PREFIX --check prefetch=6,ring=2,mpi-own=2,nbc=5 [--late-odd]

A round, per rank, in ms from the earliest start: start (the rank's
arrival; spread: the latest start - the earliest), done (the background
thread saw its last message complete),
waited (the application saw the request complete: PAT_Waited; for a
non-blocking call its wait or test), e_i = completion - start (the
application's completion where known), the receive port's busy time
(union of the receives' matched..done intervals after the start), its
longest idle gap after the start, the staging copy at the start, the
background thread's passes and longest gap between two (after / before the
start), and the relay.  --msgs lists every message.
"""
import argparse
import glob
import sys

ROUND_INTS = ("start", "done", "signal", "waited", "passes", "maxgap", "prepasses", "premaxgap", "bytes", "relay",
              "parity", "P", "rank")


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
                    cur = kv(w, ROUND_INTS)
                    cur.update({"id": int(w[1]), "n": int(w[2]), "what": w[w.index("what") + 1], "msgs": []})
                    i = w.index("copy")
                    cur["copy"] = (int(w[i + 1]), int(w[i + 2]))
                    key = (cur["id"], cur["n"])
                    if key in rounds:
                        raise ValueError(f"{path}: round {key} twice")
                    rounds[key] = cur
                elif w[0] == "msg" and cur is not None and "rank" in cur:
                    m = kv(w, ("peer", "owner", "bytes", "matched", "posted", "done", "staged"))
                    m.update({"dir": w[1], "kind": w[2]})
                    cur["msgs"].append(m)
                elif w[0] == "nbc":
                    cur = kv(w, ("rank", "P", "bytes", "post", "start", "done", "waited"))
                    cur.update({"id": int(w[1]), "alg": w[w.index("alg") + 1], "ops": []})
                    nbc[cur["id"]] = cur
                elif w[0] == "nbcop" and cur is not None and "alg" in cur:
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


def show_round(ranks, cid, n, msgs):
    rows = {r: d["rounds"][(cid, n)] for r, d in sorted(ranks.items()) if (cid, n) in d["rounds"]}
    if not rows:
        sys.exit(f"no round {n} of call {cid}")
    t0 = min(t["start"] for t in rows.values())
    any_t = next(iter(rows.values()))
    print(f"call {cid} round {n}: {any_t['what']}, P = {any_t['P']}; ms from the earliest start")
    print(f"{'rank':>4} {'start':>9} {'done':>9} {'waited':>9} {'e_i':>8} {'rx busy':>8} {'rx gap':>8} {'copy':>7} "
          f"{'passes':>6} {'maxgap':>7} {'pre':>4} {'pregap':>7} relay  recv w/p/f")
    for r, t in rows.items():
        end = t["waited"] or t["done"]
        rx = [(m["matched"], m["done"]) for m in t["msgs"] if m["dir"] == "recv" and m["done"]]
        busy, gap = union_and_gap(rx, t["start"])
        kinds = [sum(1 for m in t["msgs"] if m["dir"] == "recv" and m["kind"] == k)
                 for k in ("whole", "piece", "forwarded")]
        copy = t["copy"][1] - t["copy"][0] if t["copy"][0] else 0
        waited = f"{ms(t['waited'] - t0):9.3f}" if t["waited"] else f"{'-':>9}"
        print(f"{r:>4} {ms(t['start'] - t0):9.3f} {ms(t['done'] - t0):9.3f} {waited} {ms(end - t['start']):8.3f} "
              f"{ms(busy):8.3f} {ms(gap):8.3f} {ms(copy):7.3f} {t['passes']:>6} {ms(t['maxgap']):7.3f} "
              f"{t['prepasses']:>4} {ms(t['premaxgap']):7.3f} {t['relay']:>5}  {'/'.join(map(str, kinds))}")
    print(f"e-bar {sum(ms((t['waited'] or t['done']) - t['start']) for t in rows.values()) / len(rows):.3f} ms")
    if msgs:
        for r, t in rows.items():
            for m in sorted(t["msgs"], key=lambda m: m["posted"]):
                matched = f"{ms(m['matched'] - t0):9.3f}" if m["matched"] else f"{'-':>9}"
                print(f"  rank {r} {m['dir']} {m['kind']:>9} peer {m['peer']} owner {m['owner']} {m['bytes']:>10} B "
                      f"matched {matched} posted {ms(m['posted'] - t0):9.3f} done {ms(m['done'] - t0):9.3f}"
                      f"{' staged' if m['staged'] else ''}")


def show_rounds(ranks, cid):
    """A line per round: e-bar over ranks, the largest e_i, the largest poll gap after a start, relays."""
    ns = sorted({n for d in ranks.values() for (c, n) in d["rounds"] if c == cid})
    if not ns:
        sys.exit(f"no rounds of call {cid}")
    print(f"call {cid}: ms; e_i = completion (the application's where known) - start")
    print(f"{'round':>5} {'what':>9} {'ranks':>5} {'e-bar':>8} {'max e_i':>8} {'spread':>8} {'maxgap':>7} {'relays':>6}")
    for n in ns:
        rows = [d["rounds"][(cid, n)] for d in ranks.values() if (cid, n) in d["rounds"]]
        e = [ms((t["waited"] or t["done"]) - t["start"]) for t in rows]
        starts = [t["start"] for t in rows]
        print(f"{n:>5} {rows[0]['what']:>9} {len(rows):>5} {sum(e) / len(e):8.3f} {max(e):8.3f} "
              f"{ms(max(starts) - min(starts)):8.3f} {ms(max(t['maxgap'] for t in rows)):7.3f} "
              f"{sum(t['relay'] for t in rows):>6}")


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


def check(ranks, spec, late_odd):
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
                # under auto the prefetching schedule runs MPI's own in rounds out of spread mode
                mixed = {call_what.get(cid), t["what"]} == {"prefetch", "mpi-own"}
                if call_what.get(cid, "in-start") not in ("in-start", t["what"]) and not mixed:
                    errors.append(f"rank {r} call {cid}: rounds of {call_what[cid]} and {t['what']}")
                call_what[cid] = "prefetch" if mixed else t["what"]
            if t["rank"] != r or t["P"] != P:
                errors.append(f"rank {r} round {cid}/{n}: rank {t['rank']} P {t['P']}")
            if not t["start"] or t["done"] < t["start"] or t["signal"] < t["done"]:
                errors.append(f"rank {r} round {cid}/{n}: start {t['start']} done {t['done']} signal {t['signal']}")
            if t["waited"] and t["waited"] < t["done"]:
                errors.append(f"rank {r} round {cid}/{n}: waited before done")
            if not t["waited"]:
                errors.append(f"rank {r} round {cid}/{n}: no waited time (the test calls PAT_Waited)")
            for m in t["msgs"]:
                if not m["posted"] or m["done"] < m["posted"] or (m["dir"] == "recv" and m["posted"] < m["matched"]):
                    errors.append(f"rank {r} round {cid}/{n}: message {m}")
            if t["what"] == "prefetch":
                errors += check_prefetch_round(r, t, P, late_odd)
            elif t["msgs"]:
                errors.append(f"rank {r} round {cid}/{n}: messages in a per-start round")
        for cid, ns in by_call.items():
            what = call_what[cid]
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


def check_prefetch_round(r, t, P, late_odd):
    """Every other block arrived as one whole message or m pieces from its owner and m (P - 2)
    forwarded (m pieces per relay, m >= 1); this rank's went out whole to the P - 1 others or in a
    multiple of P - 1 pieces; every piece received was forwarded to the P - 2 others."""
    errors, where = [], f"rank {r} prefetch round {t['n']}"
    count = lambda d, k, **f: sum(1 for m in t["msgs"] if m["dir"] == d and m["kind"] == k
                                  and all(m[x] == v for x, v in f.items()))
    for o in range(P):
        if o == r:
            continue
        whole, piece, fwd = count("recv", "whole", owner=o), count("recv", "piece", owner=o), count(
            "recv", "forwarded", owner=o)
        if (whole, piece, fwd) != (1, 0, 0) and not (whole == 0 and piece >= 1 and fwd == piece * (P - 2)):
            errors.append(f"{where}: block of {o} as {whole} whole, {piece} piece, {fwd} forwarded")
        if count("send", "forwarded", owner=o) != piece * (P - 2):
            errors.append(f"{where}: pieces of {o} forwarded {count('send', 'forwarded', owner=o)} times")
    sent = (count("send", "whole", owner=r), count("send", "piece", owner=r))
    if not ((sent[0] == 0 and sent[1] >= P - 1 and sent[1] % (P - 1) == 0) if t["relay"] else sent == (P - 1, 0)):
        errors.append(f"{where}: own block sent as {sent} (whole, pieces), relay {t['relay']}")
    if late_odd and P > 2 and t["n"] % 2 == 1 and t["n"] % P == r and not t["relay"]:
        errors.append(f"{where}: the last rank did not relay")
    if t["passes"] < 1:
        errors.append(f"{where}: no pass of the background thread counted")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("--call", type=int, help="a persistent call's number")
    ap.add_argument("--round", type=int)
    ap.add_argument("--nbc", type=int, help="a non-blocking call's number")
    ap.add_argument("--msgs", action="store_true")
    ap.add_argument("--check", help="what=rounds,...,nbc=calls: check the files (tests)")
    ap.add_argument("--late-odd", action="store_true", help="with --check: odd rounds' rank n %% P was last")
    a = ap.parse_args()
    ranks = read(a.prefix)
    if not ranks:
        sys.exit(f"no timeline files {a.prefix}.*")
    if a.check:
        errors = check(ranks, a.check, a.late_odd)
        for e in errors[:30]:
            print("FAIL", e)
        print(f"timeline of {len(ranks)} ranks: {len(errors)} error(s)")
        sys.exit(1 if errors else 0)
    if a.call is not None and a.round is None:
        show_rounds(ranks, a.call)
    elif a.call is not None:
        show_round(ranks, a.call, a.round, a.msgs)
    elif a.nbc is not None:
        show_nbc(ranks, a.nbc, a.msgs)
    else:
        listing(ranks)


if __name__ == "__main__":
    main()
