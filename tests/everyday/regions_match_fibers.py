#!/usr/bin/env python3
"""Runs every launch of the everyday corpus twice, cut into regions and with fibers, and checks
that banksim's two JSON reports are the same.

Usage:
  python3 tests/everyday/regions_match_fibers.py BANKSIM_BINARY [--min-cut N] [--widths W]

banksim cuts a kernel whose barriers a thread passes at most once into regions
(banksim/pass/regions.cpp) and runs it with a call per thread and barrier; `--fibers` runs every
thread as a fiber instead. Both must give the same counts (shared and global), problems, lines
and abort reasons: the reports are compared whole, less "seconds" and "execution". Exit status 1
when a launch differs, or when fewer than N launches (--min-cut) ran cut into regions (the pass
must not silently stop cutting).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from banksim_totals import banksim_command, load_manifest  # noqa: E402


def report(binary, entry, extra, path):
    cmd = banksim_command(binary, entry, path, extra, HERE)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"regions_match_fibers: {entry['name']}: banksim failed with exit status "
                 f"{proc.returncode}\n  command: {' '.join(cmd)}")
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    execution = j.pop("execution", "?")
    j.pop("seconds", None)
    return execution, j


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("banksim")
    p.add_argument("--min-cut", type=int, default=1)
    p.add_argument("--widths", default="clang", choices=["nvcc", "clang"])
    a = p.parse_args()
    differ, cut = [], 0
    entries = load_manifest()
    with tempfile.TemporaryDirectory(prefix="regions_match_fibers.") as tmp:
        for entry in entries:
            widths = f"--widths={a.widths}"
            way, mine = report(a.banksim, entry, [widths], os.path.join(tmp, "r.json"))
            _, theirs = report(a.banksim, entry, [widths, "--fibers"], os.path.join(tmp, "f.json"))
            cut += way == "regions"
            same = mine == theirs
            print(f"{entry['name']:36} {way:8} {'same' if same else 'DIFFERS'}")
            if not same:
                differ.append(entry["name"])
                for key in sorted(set(mine) | set(theirs)):
                    if mine.get(key) != theirs.get(key):
                        print(f"  {key}: regions {json.dumps(mine.get(key))[:400]}")
                        print(f"  {key}: fibers  {json.dumps(theirs.get(key))[:400]}")
    print(f"{len(entries) - len(differ)}/{len(entries)} launches the same; {cut} cut into regions")
    if differ:
        print(f"regions_match_fibers: these differ: {differ}", file=sys.stderr)
        return 1
    if cut < a.min_cut:
        print(f"regions_match_fibers: only {cut} launches cut into regions, expected at least "
              f"{a.min_cut}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
