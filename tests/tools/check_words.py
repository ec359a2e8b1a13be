#!/usr/bin/env python3
"""No file of the project names the work periods it was built in.

How libpat was built is no part of libpat: its files name subjects, dates and
commits.  This check reads every file of the repository (`git ls-files`; a
walk of the source tree where it is not a git checkout) and reports, in the
file's path and, for a text file, in its lines:

- the word for a work period (PERIOD below), singular or plural, any case,
  as a whole word (so an identifier that contains it, such as the
  MPI_Session... names of MPI 4 or Python's start_new_session, is not one);
- an ordinal number word from 4th through 30th (spelled out, 21st-29th with or without the hyphen);
- "first", "second" or "third" followed by the word for a work period.

Each hit is printed as FILE:LINE: the word (LINE 0 for the path), and the
exit status is 1 if there is one.  The words are spelled below in pieces, so
that this file passes its own check.

    python3 tests/tools/check_words.py [SOURCE_DIR]
    python3 tests/tools/check_words.py --self-test   # it catches each kind, and no false alarm
"""
import os
import re
import subprocess
import sys

import repo_check

PERIOD = "ses" + "sion"

# the stems of the ordinals 4th-19th; then 20th, 30th and 21st-29th
_UNITS = ["four", "fif", "six", "seven", "eigh", "nin"]
_TEENS = ["ten", "eleven", "twelf", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen"]
ORDINALS = [stem + "th" for stem in _UNITS + _TEENS] + ["twentie" + "th", "thirtie" + "th"]
ORDINALS += ["twenty[- ]?" + low for low in ["first", "second", "third"] + [u + "th" for u in _UNITS]]

RULES = [
    ("the word for a work period", re.compile(r"\b" + PERIOD + r"s?\b", re.IGNORECASE)),
    ("an ordinal", re.compile(r"\b(?:" + "|".join(ORDINALS) + r")\b", re.IGNORECASE)),
    ("a counted work period", re.compile(r"\b(?:first|second|third)[\s_-]+" + PERIOD + r"s?\b", re.IGNORECASE)),
]
# one pass over a file's lower-cased bytes that finds whether any rule can hit (most files have none)
ANY = re.compile((r"\b(?:" + PERIOD + "|" + "|".join(ORDINALS) + r")").encode())


def tracked_files(root):
    """The repository's files relative to root: git's list where root is a git
    checkout, else every file below root but hidden folders and build trees."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True,
                             check=True, text=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(root):
            return [p for p in out.decode("utf-8", "replace").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not os.path.exists(os.path.join(folder, d, "CMakeCache.txt")))
        for name in sorted(names):
            files.append(os.path.relpath(os.path.join(folder, name), root))
    return files


def hits(text):
    """(offset, rule, word) for every match of every rule in text."""
    found = []
    for why, rule in RULES:
        for m in rule.finditer(text):
            found.append((m.start(), why, m.group(0)))
    return sorted(found)


def check(root):
    problems = []
    for rel in tracked_files(root):
        for _, why, word in hits(rel):
            problems.append(f"{rel}:0: {why} in the path: \"{word}\"")
        path = os.path.join(root, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue  # listed by git but gone from the work tree, or a link
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue  # binary: a figure
        if not ANY.search(data.lower()):
            continue
        text = data.decode("utf-8", "replace")
        for offset, why, word in hits(text):
            line = text.count("\n", 0, offset) + 1
            problems.append(f"{rel}:{line}: {why}: \"{word}\"")
    return problems


def self_test():
    """A tree with each kind of hit, in text and in paths, and text that must pass."""
    import tempfile
    ordinal = "eigh" + "teen" + "th"
    bad = {
        "notes/a.md": "measured in the " + ordinal + " run\n",
        "notes/b.c": "/* as the " + PERIOD.capitalize() + " found */\n",
        "notes/c.txt": "two " + PERIOD.upper() + "S later\n",
        "notes/d.md": "the second\n" + PERIOD + " of the day\n",
        "notes/e.md": "the twenty-" + "fir" + "st cell\n",
        "notes/f.md": "the " + "ten" + "th call\n",
        "results/2026-01-01-" + ordinal + "/README.md": "data\n",
        "results/x/" + PERIOD + "-log.txt": "data\n",
    }
    good = {
        "notes/g.md": "the first call, a second MPI, a third of the blocks; thirteen ranks, fifty calls\n",
        "notes/h.c": "MPI_" + PERIOD.capitalize() + "_init(); start_new_" + PERIOD + "=True; fourier; tenths\n",
        "notes/osu-shm2-first/table.md": "the first run\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {**bad, **good}.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        with open(os.path.join(root, "notes", "figure.png"), "wb") as f:
            f.write(b"\x89PNG\0 " + PERIOD.encode())  # binary: not read
        found = check(root)
    missed = [rel for rel in bad if not any(p.startswith(rel + ":") for p in found)]
    wrong = [p for p in found if not any(p.startswith(rel + ":") for rel in bad)]
    for rel in missed:
        print(f"self-test: {rel} not reported")
    for p in wrong:
        print(f"self-test: false alarm {p}")
    if missed or wrong:
        return 1
    print(f"check_words self-test: all {len(bad)} files reported, no false alarm")
    return 0


def main():
    return repo_check.run(
        "check_words", check, self_test,
        lambda n: f"{n} hit(s): name subjects, dates and commits, not work periods",
        lambda root: "no file names a work period")


if __name__ == "__main__":
    sys.exit(main())
