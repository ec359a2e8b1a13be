#!/usr/bin/env python3
"""docs/layout.md's inventory against the tree.

Every library source file (.c, .h, .f90 under include/, algorithms/, pat/ and
src/) must be named in docs/layout.md, in backquotes, by its name (`plan.c`)
or as a module (`plan.c/.h`, both files); every folder right under bench/
and tests/ as `name/`.  A file name in backquotes that no file of the
repository has (a file removed or renamed) is reported too, so that the
inventory stays the tree's.  The repository's files are git's list where the
source is a git checkout, else a walk of it.

    python3 tests/tools/check_layout.py [SOURCE_DIR]
    python3 tests/tools/check_layout.py --self-test   # it catches a missing and a stale entry
"""
import fnmatch
import os
import re
import subprocess
import sys

import repo_check

LIBRARY = ("include", "algorithms", "pat", "src")
SOURCE_EXT = (".c", ".h", ".f90", ".F90")
LISTED_DIRS = ("bench", "tests")
TOKEN = re.compile(r"`([^`\n]+)`")
FILE_NAME = re.compile(r"^[\w.*/-]+\.(?:c|h|f90|F90)$")


def repository_files(root):
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, check=True,
                             text=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(root):
            out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
            return [p for p in out.decode("utf-8", "replace").split("\0")
                    if p and os.path.exists(os.path.join(root, p))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")
                   and not os.path.exists(os.path.join(folder, d, "CMakeCache.txt"))]
        files += [os.path.relpath(os.path.join(folder, n), root) for n in names]
    return files


def listed_names(text):
    """The file names and folders layout.md names in backquotes; `x.c/.h` names x.c and x.h."""
    names = set()
    for token in TOKEN.findall(text):
        for part in re.split(r"[\s,]+", token):
            m = re.match(r"^([\w./*-]+)\.c/\.h$", part)
            if m:
                names |= {m.group(1) + ".c", m.group(1) + ".h"}
            elif part:
                names.add(part)
    return names


def check(root):
    with open(os.path.join(root, "docs", "layout.md"), encoding="utf-8") as f:
        names = listed_names(f.read())
    files = repository_files(root)
    problems = []
    for path in sorted(files):
        top = path.split("/", 1)[0]
        if top in LIBRARY and path.endswith(SOURCE_EXT):
            base = os.path.basename(path)
            if base not in names and path not in names:
                problems.append(f"docs/layout.md: {path} is not listed (as `{base}`)")
    dirs = sorted({p.split("/")[1] for p in files if p.split("/", 1)[0] in LISTED_DIRS and p.count("/") >= 2})
    for top in LISTED_DIRS:
        for d in dirs:
            if any(p.startswith(f"{top}/{d}/") for p in files) and f"{d}/" not in names and f"{top}/{d}/" not in names:
                problems.append(f"docs/layout.md: the folder {top}/{d}/ is not listed (as `{d}/`)")
    bases = {os.path.basename(p) for p in files}
    for name in sorted(names):
        if not FILE_NAME.match(name):
            continue
        if "/" in name:
            exists = any(fnmatch.fnmatch(p, name) or fnmatch.fnmatch(p, "*/" + name) for p in files)
        else:
            exists = any(fnmatch.fnmatch(b, name) for b in bases)
        if not exists:
            problems.append(f"docs/layout.md: `{name}` names no file of the repository")
    return problems


def self_test():
    import tempfile
    tree = ["include/pat.h", "src/runtime/plan.c", "src/runtime/plan.h", "src/runtime/new.c", "pat/clock.c",
            "bench/nbc/run.sh", "tests/unit/test_a.c"]
    layout = "`pat.h`; `plan.c/.h`; `clock.c`; `gone.c`; `nbc/`; `unit/`, `tests/unit/test_*.c`\n"
    want = {"src/runtime/new.c is not listed", "`gone.c` names no file"}
    with tempfile.TemporaryDirectory() as root:
        for rel in tree + ["docs/layout.md"]:
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(layout if rel == "docs/layout.md" else "\n")
        found = check(root)
    missed = [w for w in want if not any(w in p for p in found)]
    wrong = [p for p in found if not any(w in p for w in want)]
    for w in missed:
        print(f"self-test: not reported: {w}")
    for p in wrong:
        print(f"self-test: false alarm: {p}")
    if missed or wrong:
        return 1
    print(f"check_layout self-test: both problems reported, no false alarm")
    return 0


def main():
    return repo_check.run(
        "check_layout", check, self_test,
        lambda n: f"{n} problem(s): docs/layout.md and the tree disagree",
        lambda root: "docs/layout.md lists every library file and every bench/ and tests/ folder")


if __name__ == "__main__":
    sys.exit(main())
