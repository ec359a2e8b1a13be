#!/usr/bin/env python3
"""Summarise a CSV of run.sh cluster or cluster6 (argument; default minibench.csv) in the table of
bench/runs/vcells.py, with the algorithms that ran."""
import csv, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import vcells  # bench/runs/vcells.py

# the results folder: OUT, or the committed one (from the repository root)
here = os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..", "bench/results/2026-11-24-vaware")
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "minibench.csv")
rows = list(csv.DictReader(open(path)))
ran = sorted({r["alg"] for r in rows})
algs = [a for a in ["native", "auto", "relay", "bdr", "ard", "direct"] if a in ran]
vcells.print_table(vcells.read_cells(rows), algs)
