#!/usr/bin/env python3
"""The demo's calibration progress is live (bench/sweep/demo.py's calibrate),
checked with a stand-in for the launch of pat-calibrate that prints what it
prints (the header, the link's rows at the largest size, then each size's
rows and, once that pass is done too, its back-to-back rows) and goes on to
the next size only once the progress line of the last one has been written:
a line held back (the link's rows taken for the last size's, or lines left in
a reader's buffer) leaves it waiting, and the check fails.  Also: no line of
a size before its last rows, and, without a terminal, no control characters.
No timings.

  check_calibration_progress.py --demo-py bench/sweep/demo.py --workdir DIR
"""
import argparse
import importlib.util
import os
import re
import shutil
import sys
import types

FAKE = r'''
import os, sys, time
d = os.environ["FAKE_DIR"]
rows = lambda b, how="": "".join("  %-6s %9d B  %10.3f us  (5 reps)%s\n" % (a, b, 10.0, how)
                                 for a in ("ring", "relay"))

def say(text):
    os.write(2, text.encode())  # one write: a burst of lines

def wait_for(k):  # the demo's line for size k
    t0 = time.time()
    while not os.path.exists(os.path.join(d, "shown-%d" % k)):
        if time.time() - t0 > 30:
            say("fake: no progress line for size %d after 30 s\n" % k)
            sys.exit(1)
        time.sleep(0.05)

def size(k, first=""):  # its rows, then (blocks up to 16 KiB) its back-to-back rows: then it is done
    say(first + rows(sizes[k - 1]))
    time.sleep(0.5)
    open(os.path.join(d, "printed-%d" % k), "w").close()
    say(rows(sizes[k - 1], " back to back"))

sizes = [64, 1024, 16384]
size(1, "pat-calibrate: P=2, 2 algorithms x 3 sizes (64..16384 B), at most 0.2 s per point\n"
        "  link           8 B       5.000 us  one way, ranks 0 and 1 alone\n"
        "  link       16384 B      50.000 us  one way, ranks 0 and 1 alone\n")
for k in (2, 3):
    wait_for(k - 1)
    size(k)
'''

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    sys.stdout.flush()
    if not cond:
        failures.append(what)


class Log:
    """The progress bar's stream, not a terminal: tells the stand-in that a size's line was shown."""

    def __init__(self, d):
        self.d, self.text, self.early = d, "", []

    def write(self, s):
        self.text += s
        for k in re.findall(r"\((\d)/3 sizes\)", s):
            if not os.path.exists(os.path.join(self.d, "printed-%s" % k)):
                self.early.append(int(k))
            open(os.path.join(self.d, "shown-%s" % k), "w").close()

    def flush(self):
        pass

    def isatty(self):
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--demo-py", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    spec = importlib.util.spec_from_file_location("demo", a.demo_py)
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    fake = os.path.join(a.workdir, "fake_launch.py")
    with open(fake, "w") as f:
        f.write(FAKE)
    os.environ["FAKE_DIR"] = a.workdir
    log = Log(a.workdir)
    prog = demo.sweep.Progress(stream=log)
    args = types.SimpleNamespace(calibrate="--quick --max-bytes 16k --points 3", P=2, est_ns_per_byte=1.0,
                                 est_call_ms=0.3, calibrate_timeout=120)
    why = demo.calibrate(args, prog, "%s %s" % (sys.executable, fake), a.workdir,
                         os.path.join(a.workdir, "c.csv"), os.path.join(a.workdir, "c.log"))
    prog.close()
    print(log.text)
    with open(os.path.join(a.workdir, "c.log")) as f:
        print(f.read())
    check(why is None, "the stand-in saw each size's progress line before it went on (calibrate: %s)" % why)
    shown = [int(k) for k in re.findall(r"\((\d)/3 sizes\)", log.text)]
    check(shown == [1, 2, 3], "one line per size, in order: %s" % shown)
    check(not log.early, "no size's line before its back-to-back rows (early: %s; nor on the link's rows)" % log.early)
    check(all("elapsed" in line for line in log.text.splitlines() if "sizes)" in line), "each line says the elapsed time")
    check(not re.search(r"[\r\033]", log.text), "no control characters without a terminal")
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
