#!/usr/bin/env python3
"""The dependency direction of libpat's layers (docs/design.md §2), checked.

Every C file of a layer may include only the project headers of the layers it
is allowed to use; the pure layers (schedule IR, algorithms, cost model) may
not include MPI, threads or clocks.  Inside src/runtime, a module (a .c with
its .h) may include only the modules below it in RUNTIME_ORDER, so the
runtime has no cycle and every arrow points down.  In every folder, and
across them, no modules may include each other in a cycle (a strongly
connected component of more than one module: module_graph.py's).  Prints
every violation with file and line, and exits 1 if there is one.

    python3 tests/tools/check_layers.py [SOURCE_DIR]
    python3 tests/tools/check_layers.py --self-test   # it catches each kind of violation
"""
import os
import re
import sys

import repo_check

# layer folder -> project header folders (or single headers) it may include; "pat.h" is the public API
# An entry names a folder of headers ("algorithms" admits "algorithms/sched/..." too) or one header.
ALLOWED = {
    "algorithms/sched": {"algorithms/sched"},
    "algorithms": {"algorithms"},
    "src/model": {"algorithms", "model"},
    "src/decide": {"algorithms", "model", "decide"},
    "pat": {"pat", "pat.h"},
    "src/exec": {"algorithms/sched", "exec"},
    "src/runtime": {"algorithms", "model", "decide", "pat", "exec", "runtime", "pat.h"},
    "src/dropin": {"dropin", "pat.h", "runtime/errors.h", "runtime/settings.h", "runtime/through.h"},
    "src/fortran": {"pat.h", "dropin/fortran_sentinel.h"},
}
PURE = {"algorithms/sched", "algorithms", "src/model", "src/decide"}

# src/runtime's modules, bottom to top: each may include only those before it
# (docs/design.md §2 says what each is).  A new runtime file takes its place here.
RUNTIME_ORDER = [
    "errors", "args", "settings", "process", "bind", "wakeup", "stats", "timeline", "round_trace", "wait_nap", "netparams",
    "channels",                               # libpat's duplicates of world, every communicator it makes
    "comm_base", "run", "nbc_stamps", "plan", "retire", "report", "report_nbc",  # the parts of a communicator's state
    "comm",                                   # the state itself: identity, lock, registry, lifecycle
    "decisions",                              # the decision log (reads the state)
    "debug", "arrivals", "nbc_queue", "background", "finalize_hook", "through", "call", "callv", "nbc", "allreduce", "persist", "runtime",
]
IMPURE_SYSTEM = {"mpi.h", "pthread.h", "time.h", "sys/time.h", "unistd.h", "hwloc.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def admitted(name, allowed):
    """True if header `name` is one of `allowed` or lies in one of its folders."""
    return any(name == entry or name.startswith(entry + "/") for entry in allowed)


def check(root):
    problems = []
    for layer, allowed in ALLOWED.items():
        folder = os.path.join(root, layer)
        if not os.path.isdir(folder):
            problems.append(f"{layer}: folder missing")
            continue
        for entry in sorted(os.listdir(folder)):
            if not entry.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, entry)
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    quote, name = m.groups()
                    where = f"{layer}/{entry}:{lineno}"
                    if quote == '"':
                        if "/" not in name and name != "pat.h":
                            problems.append(f"{where}: \"{name}\": name project headers by folder (e.g. \"algorithms/sched/schedule.h\")")
                        elif not admitted(name, allowed):
                            problems.append(f"{where}: includes \"{name}\", but {layer}/ may use only: "
                                            + ", ".join(sorted(allowed)))
                    elif layer in PURE and name in IMPURE_SYSTEM:
                        problems.append(f"{where}: <{name}> in a pure layer (no MPI, threads or clocks in {layer}/)")
                    if layer == "src/runtime" and quote == '"' and name.startswith("runtime/"):
                        problems += runtime_order_problem(where, entry, name)
    return problems + cycle_problems(root, [layer for layer in ALLOWED if os.path.isdir(os.path.join(root, layer))])


def cycle_problems(root, folders):
    """Every include between two modules of one cycle, with the cycle: a
    module that includes, directly or not, one that includes it back cannot
    be read, tested or moved without the other (issue 54: three such
    circles had grown in src/decide, src/exec and src/model)."""
    from module_graph import cycles, module_includes  # it imports this file's RUNTIME_ORDER
    deps = module_includes(root, folders)
    problems = []
    for comp in cycles({a: set(bs) for a, bs in deps.items()}):
        for a in comp:
            for b in sorted(set(deps[a]) & set(comp)):
                for path, lineno in deps[a][b]:
                    problems.append(f"{path}:{lineno}: includes {b}, and the modules {', '.join(comp)} include "
                                    "each other in a cycle: move what they share to a module below them")
    return problems


def runtime_order_problem(where, entry, name):
    """[] if runtime file `entry` may include runtime header `name`, else why not."""
    me, other = entry.rsplit(".", 1)[0], name.split("/", 1)[1].rsplit(".", 1)[0]
    if me == other:
        return []
    for module in (me, other):
        if module not in RUNTIME_ORDER:
            return [f"{where}: runtime module '{module}' is not in RUNTIME_ORDER (tests/tools/check_layers.py)"]
    if RUNTIME_ORDER.index(other) > RUNTIME_ORDER.index(me):
        return [f"{where}: includes \"{name}\", a runtime module above '{me}' (RUNTIME_ORDER: "
                f"{' < '.join(RUNTIME_ORDER)})"]
    return []


def self_test():
    """A tree with one violation of each rule: every one must be reported."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for layer in ALLOWED:
            os.makedirs(os.path.join(root, layer), exist_ok=True)
        bad = {
            "algorithms/a.c": '#include "runtime/process.h"\n',
            "pat/p.c": '#include "model/model.h"\n',
            "src/model/m.c": "#include <mpi.h>\n",
            "algorithms/sched/s.c": '#include "schedule.h"\n',
            "src/exec/e.c": '#include "algorithms/algorithms.h"\n',  # the executor needs only the IR
            "src/dropin/d.c": '#include "runtime/process.h"\n',
            "src/runtime/plan.c": '#include "runtime/report.h"\n',   # an arrow up
            "src/exec/a.c": '#include "exec/b.h"\n',                 # a cycle of two modules ...
            "src/exec/b.h": '#include "exec/a.h"\n',                 # ... through a header
            "src/model/x.c": '#include "model/y.h"\n',               # and one of three
            "src/model/y.c": '#include "model/z.h"\n',
            "src/model/z.h": '#include "model/x.h"\n',
            "src/runtime/nowhere.c": '#include "runtime/errors.h"\n',  # a module without a place
        }
        good = {"src/runtime/comm.c": '#include "pat/clock.h"\n#include <mpi.h>\n#include "pat.h"\n'
                                      '#include "runtime/comm.h"\n#include "runtime/plan.h"\n',
                "src/exec/c.c": '#include "exec/a.h"\n'}  # into a cycle, not part of it
        for rel, text in {**bad, **good}.items():
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        found = check(root)
        missed = [rel for rel in bad if not any(p.startswith(rel + ":") for p in found)]
        wrong = [p for p in found if any(p.startswith(rel + ":") for rel in good)]
        for rel in missed:
            print(f"self-test: {rel} not reported")
        for p in wrong:
            print(f"self-test: false alarm {p}")
        if missed or wrong:
            return 1
    print(f"check_layers self-test: all {len(bad)} violations reported, no false alarm")
    return 0


def main():
    return repo_check.run(
        "check_layers", check, self_test,
        lambda n: f"{n} violation(s)",
        lambda root: "every layer includes only what it may")


if __name__ == "__main__":
    sys.exit(main())
