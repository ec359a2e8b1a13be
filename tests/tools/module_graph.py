#!/usr/bin/env python3
"""The include graph of libpat's modules, for a reader (not a check).

A module is a .c file with its .h (src/runtime/plan.c + plan.h = runtime/plan).
Prints the number of modules, of arrows (module A includes a header of module
B), of arrows that point up in src/runtime's declared order (check_layers.py's
RUNTIME_ORDER: a runtime module including one above it; modules without a
place there are not counted) and the cycles (strongly connected components of
more than one module), for the folders given (default: src/runtime
src/decide).  --arrows lists every arrow.

    python3 tests/tools/module_graph.py [--root DIR] [--arrows] [FOLDER ...]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import RUNTIME_ORDER  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def module_name(folder, entry):
    """A file's module as the project's includes name its header: src/exec/flow.c
    is exec/flow, algorithms/sched/schedule.h algorithms/sched/schedule."""
    prefix = folder[len("src/"):] if folder.startswith("src/") else folder
    return prefix + "/" + entry.rsplit(".", 1)[0]


def module_includes(root, folders):
    """{module: {included module: [(file, line number), ...]}} over the .c and .h
    files of folders, the includes of modules outside them left out."""
    found = {}
    for folder in folders:
        for entry in sorted(os.listdir(os.path.join(root, folder))):
            if not entry.endswith((".c", ".h")):
                continue
            name = module_name(folder, entry)
            found.setdefault(name, {})
            with open(os.path.join(root, folder, entry), encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    other = m and m.group(1).rsplit(".", 1)[0]
                    if other and other != name:
                        found[name].setdefault(other, []).append((f"{folder}/{entry}", lineno))
    return {a: {b: at for b, at in bs.items() if b in found} for a, bs in found.items()}


def modules(root, folders):
    return {a: set(bs) for a, bs in module_includes(root, folders).items()}


def cycles(deps):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in sorted(deps):
        if start in index:
            continue
        work = [(start, iter(sorted(deps[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def arrows_up(deps):
    rank = {"runtime/" + m: i for i, m in enumerate(RUNTIME_ORDER)}
    return sorted((a, b) for a, bs in deps.items() for b in bs if a in rank and b in rank and rank[b] > rank[a])


def main():
    args = sys.argv[1:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    if args[:1] == ["--root"]:
        root, args = args[1], args[2:]
    listing = "--arrows" in args
    args = [a for a in args if a != "--arrows"]
    folders = args or ["src/runtime", "src/decide"]
    deps = modules(root, folders)
    found = cycles(deps)
    up = arrows_up(deps)
    print(f"{' '.join(folders)}: {len(deps)} modules, {sum(len(v) for v in deps.values())} arrows, "
          f"{len(up)} up, {len(found)} cycle(s)")
    if listing:
        for a in sorted(deps):
            print(f"  {a} -> {', '.join(sorted(deps[a])) or '(nothing)'}")
    for a, b in up:
        print(f"  up: {a} -> {b}")
    for comp in found:
        print("  cycle: " + ", ".join(comp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
