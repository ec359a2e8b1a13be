#!/usr/bin/env python3
"""The results as a ledger a user reads in ten minutes: the limits, checked.

- BENCHMARKS.md: at most 600 lines; it opens with "## Headline results", which
  shows a figure; then "## The standing claims" with its table; it ends with
  "## History"; every image it shows and every results folder it names exists.
- bench/results: at most 15 folders, each named DATE-SUBJECT (2026-11-26-nodes),
  each with a README.md, each cited by BENCHMARKS.md.
- README.md: "## What it is" has at most 25 lines, one table and one figure.

The folders are those git tracks files in where the source is a git checkout
(a demo run's ignored folder is not one), else those on disk.

    python3 tests/tools/check_ledger.py [SOURCE_DIR]
    python3 tests/tools/check_ledger.py --self-test   # it catches each broken limit
"""
import os
import re
import subprocess
import sys

import repo_check

MAX_LINES = 600
MAX_FOLDERS = 15
MAX_WHAT_IT_IS = 25
FOLDER_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*$")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
CITED = re.compile(r"(?:`|(?<![0-9a-f]:)bench/results/)(\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*)")


def result_folders(root):
    results = os.path.join(root, "bench", "results")
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, check=True,
                             text=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(root):
            out = subprocess.run(["git", "-C", root, "ls-files", "-z", "bench/results"], capture_output=True,
                                 check=True).stdout.decode("utf-8", "replace")
            return sorted({p.split("/")[2] for p in out.split("\0") if p.count("/") >= 3
                           and os.path.exists(os.path.join(root, p))})
    except (OSError, subprocess.CalledProcessError):
        pass
    if not os.path.isdir(results):
        return []
    return sorted(d for d in os.listdir(results) if os.path.isdir(os.path.join(results, d)) and "-demo" not in d)


def sections(text):
    """[(title, body)] of the level-2 sections."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


def check(root):
    problems = []
    with open(os.path.join(root, "BENCHMARKS.md"), encoding="utf-8") as f:
        bench = f.read()
    lines = bench.count("\n")
    if lines > MAX_LINES:
        problems.append(f"BENCHMARKS.md: {lines} lines, more than {MAX_LINES}: replace claims, condense history")
    secs = sections(bench)
    titles = [t for t, _ in secs]
    if not titles or titles[0] != "Headline results":
        problems.append("BENCHMARKS.md: the first section is not \"Headline results\"")
    elif not IMAGE.search(secs[0][1]):
        problems.append("BENCHMARKS.md: \"Headline results\" shows no figure")
    if len(titles) < 2 or titles[1] != "The standing claims" or "|---" not in secs[1][1]:
        problems.append("BENCHMARKS.md: the second section is not \"The standing claims\" with its table")
    if not titles or titles[-1] != "History":
        problems.append("BENCHMARKS.md: the last section is not \"History\"")
    for path in IMAGE.findall(bench):
        if not os.path.isfile(os.path.join(root, path)):
            problems.append(f"BENCHMARKS.md: shows {path}, which is not there")
    folders = result_folders(root)
    # a folder named as `DATE-NAME...` or bench/results/DATE-NAME must be here; COMMIT:bench/results/... is history
    for name in sorted({m.group(1) for m in CITED.finditer(bench)} - set(folders)):
        problems.append(f"BENCHMARKS.md: names the results folder {name}, which is not in bench/results")
    if len(folders) > MAX_FOLDERS:
        problems.append(f"bench/results: {len(folders)} folders, more than {MAX_FOLDERS}")
    for name in folders:
        if not FOLDER_NAME.match(name):
            problems.append(f"bench/results/{name}: not named DATE-SUBJECT (e.g. 2026-11-26-nodes)")
        if not os.path.isfile(os.path.join(root, "bench", "results", name, "README.md")):
            problems.append(f"bench/results/{name}: no README.md (the commands, the machine, the date)")
        if name not in bench:
            problems.append(f"bench/results/{name}: no claim in BENCHMARKS.md cites it")
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = dict(sections(f.read()))
    what = readme.get("What it is")
    if what is None:
        problems.append("README.md: no section \"What it is\"")
    else:
        body = what.strip("\n").split("\n")
        if len(body) > MAX_WHAT_IT_IS:
            problems.append(f"README.md: \"What it is\" has {len(body)} lines, more than {MAX_WHAT_IT_IS}")
        tables = sum(1 for line in body if re.match(r"^\|\s*-+", line))
        if tables != 1:
            problems.append(f"README.md: \"What it is\" has {tables} tables, not one")
        images = len(IMAGE.findall(what))
        if images != 1:
            problems.append(f"README.md: \"What it is\" has {images} figures, not one")
    return problems


def self_test():
    """A tree that keeps every limit, then one change per limit: each must be reported alone."""
    import tempfile
    good_bench = ("# b\n\n## Headline results\n\n![f](bench/results/2026-01-02-nodes/f.png)\n\n"
                  "## The standing claims\n\n| claim | folder |\n|---|---|\n| x | `2026-01-02-nodes` |\n\n"
                  "## History\n\n- gone: `fd17eab:bench/results/2026-01-01-old`\n")
    good_readme = "# r\n\n## What it is\n\ntext\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![f](x.png)\n\n## Next\n"
    cases = {
        "keeps every limit": ({}, 0),
        "is too long": ({"BENCHMARKS.md": good_bench + "\n" * 700}, 1),
        "opens without headlines": ({"BENCHMARKS.md": good_bench.replace("Headline results", "Intro")}, 1),
        "shows a missing figure": ({"BENCHMARKS.md": good_bench.replace("f.png", "g.png")}, 1),
        "cites a removed folder": ({"BENCHMARKS.md": good_bench + "`2026-01-01-old`\n"}, 1),
        "has an uncited folder": ({"bench/results/2026-01-03-scale/README.md": "r\n"}, 1),
        "has a folder named by no subject": ({"bench/results/2026-01-03/README.md": "r\n"}, 2),
        "has a folder without README": ({"bench/results/2026-01-02-nodes/README.md": None}, 1),
        "has too many folders": ({f"bench/results/2026-02-{i:02d}-x/README.md": "r\n" for i in range(1, 16)}, 1),
        "has a long What it is": ({"README.md": good_readme.replace("text\n", "text\n" * 30)}, 1),
        "has two figures in What it is": ({"README.md": good_readme.replace("![f](x.png)", "![f](x.png) ![g](y.png)")}, 1),
    }
    failed = 0
    for what, (change, want) in cases.items():
        files = {"BENCHMARKS.md": good_bench, "README.md": good_readme,
                 "bench/results/2026-01-02-nodes/README.md": "r\n", "bench/results/2026-01-02-nodes/f.png": "png\n"}
        files.update(change)
        if what == "has too many folders":
            files["BENCHMARKS.md"] = good_bench + "".join(f"`2026-02-{i:02d}-x`\n" for i in range(1, 16))
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                if text is not None:
                    with open(os.path.join(root, rel), "w") as f:
                        f.write(text)
            found = check(root)
        if (want == 0 and found) or (want and not found):
            print(f"self-test: a tree that {what}: {found or 'nothing reported'}")
            failed += 1
    if failed:
        return 1
    print(f"check_ledger self-test: all {len(cases)} cases right")
    return 0


def main():
    return repo_check.run(
        "check_ledger", check, self_test,
        lambda n: f"{n} limit(s) broken",
        lambda root: f"BENCHMARKS.md, bench/results ({len(result_folders(root))} folders) and README's "
                     "\"What it is\" keep their limits")


if __name__ == "__main__":
    sys.exit(main())
