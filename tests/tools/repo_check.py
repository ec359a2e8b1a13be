"""What the repository's checks (check_*.py) share: their command line and their verdict.

    check_NAME.py [SOURCE_DIR]      the check on a source tree (default: this checkout)
    check_NAME.py --self-test       the check on trees it plants, each problem it must catch

A check is check(root) -> the problems it found, one line each; its self-test returns the exit
status.  run() prints the problems, then one closing line, and returns 1 if there were any.
"""
import os
import sys


def run(name, check, self_test, failed, passed):
    """The check's main: failed(n) closes a report of n problems, passed(root) a clean one."""
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", ".."))
    problems = check(root)
    for p in problems:
        print(p)
    print(f"{name}: {failed(len(problems)) if problems else passed(root)}")
    return 1 if problems else 0
