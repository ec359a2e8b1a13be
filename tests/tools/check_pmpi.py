#!/usr/bin/env python3
"""libpat's own MPI traffic never enters its own interposed functions.

The drop-in (src/dropin) defines MPI functions (MPI_Allgather, MPI_Cancel,
MPI_Request_free, ...) over MPI's PMPI names.  Where the library itself calls
one of those by its MPI_ name, a program run under the drop-in sends
libpat's own requests through the drop-in's wrapper (a loop from the
library up to the drop-in, counted as the application's call).  This check
reads the names the drop-in defines and fails on every call to one of them
by its MPI_ name in the library's sources (everything but src/dropin and
the tools, which are programs).

    python3 tests/tools/check_pmpi.py [SOURCE_DIR]
    python3 tests/tools/check_pmpi.py --self-test
"""
import os
import re
import sys

import repo_check

LIBRARY = ["algorithms", "pat", "src/exec", "src/model", "src/decide", "src/runtime", "src/fortran"]
DEFINITION = re.compile(r"^\s*(?:int|double)\s+(MPI_[A-Za-z_]+)\s*\(", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def interposed(root):
    """The MPI functions the drop-in defines."""
    names = set()
    folder = os.path.join(root, "src/dropin")
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".c"):
            with open(os.path.join(folder, entry), encoding="utf-8") as f:
                names.update(DEFINITION.findall(f.read()))
    return names


def code_only(text):
    """text with comments and string literals blanked, lines kept."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    return STRING.sub(blank, COMMENT.sub(blank, text))


def violations(path, text, names):
    found = []
    code = code_only(text)
    for lineno, line in enumerate(code.split("\n"), 1):
        for m in re.finditer(r"(?<![A-Za-z0-9_])(MPI_[A-Za-z_]+)\s*\(", line):
            if m.group(1) in names:
                found.append(f"{path}:{lineno}: calls {m.group(1)}, which the drop-in interposes: call P{m.group(1)}")
    return found


def check(root):
    names = interposed(root)
    if not names:
        return [f"{root}/src/dropin: no MPI function definitions found"]
    problems = []
    for layer in LIBRARY:
        for folder, _, files in os.walk(os.path.join(root, layer)):
            for entry in sorted(files):
                if entry.endswith((".c", ".h")):
                    path = os.path.join(folder, entry)
                    with open(path, encoding="utf-8") as f:
                        problems += violations(os.path.relpath(path, root), f.read(), names)
    return problems


def self_test():
    names = {"MPI_Cancel", "MPI_Request_free"}
    bad = "void f(MPI_Request *r) {\n  MPI_Cancel(r);\n}\n"
    good = ("/* MPI_Cancel(r) in a comment */\nvoid f(MPI_Request *r) {\n  PMPI_Cancel(r);\n"
            "  puts(\"MPI_Request_free(\");\n  MPI_Test(r, 0, 0);\n}\n")
    assert len(violations("bad.c", bad, names)) == 1, "a call by the MPI_ name is found"
    assert violations("good.c", good, names) == [], "PMPI_ calls, comments, strings and other MPI calls pass"
    assert DEFINITION.findall("int MPI_Cancel(MPI_Request *r) {\n") == ["MPI_Cancel"]
    print("check_pmpi self-test passed")
    return 0


def main():
    return repo_check.run(
        "check_pmpi", check, self_test,
        lambda n: f"{n} call(s) of interposed MPI functions in the library",
        lambda root: "0 call(s) of interposed MPI functions in the library")


if __name__ == "__main__":
    sys.exit(main())
