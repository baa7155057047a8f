#!/usr/bin/env python3
"""Compares banksim's shared-memory totals on the everyday corpus with the H200's (ncu).

Usage:
  python3 tests/everyday/compare.py BANKSIM MEASURED.json [--widths nvcc|clang]
                                    [--expect-differ NAME ...] [--manifest M.json]

Runs banksim_totals.py with `--widths W` and compares, per launch and per kind (load, store,
atomic), the requests and the wavefronts per request with MEASURED.json (ncu_to_json.py's output of
the H200 run, measurements/h200-*/everyday-ncu.json): a launch agrees when the requests are equal
and the wavefronts per request are within 3%; where MEASURED.json has global memory
(global_load, global_store), its requests and 32-byte sectors per request too. Prints one line per
launch.

Exit status 0 when exactly the launches named by --expect-differ differ (none by default): with
nvcc's widths every launch must agree; with clang's, the launches where nvcc merges accesses must
differ (which shows the comparison can fail, and why banksim reads nvcc's SASS), and banksim must
flag exactly those as "mergeable" (the sign on which the grader runs nvcc).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def agree(mine, theirs):
    """(ok, why) for one kind's [requests, wavefronts] pair."""
    (mr, mw), (tr, tw) = mine, theirs
    if mr != tr:
        return False, f"{mr} requests, H200 {tr}"
    if tr == 0:
        return True, ""
    m, t = mw / mr, tw / tr
    if abs(m - t) > 0.03 * t:
        return False, f"{m:.2f} wavefronts/request, H200 {t:.2f}"
    return True, ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("banksim")
    p.add_argument("measured")
    p.add_argument("--widths", default="nvcc", choices=["nvcc", "clang"])
    p.add_argument("--expect-differ", nargs="*", default=[])
    p.add_argument("--manifest", help="the corpus manifest (default: banksim_totals.py's)")
    p.add_argument("--jobs", type=int, default=1, help="banksim runs side by side")
    a = p.parse_args()
    measured = json.load(open(a.measured))
    run = subprocess.run(
        [sys.executable, os.path.join(HERE, "banksim_totals.py"), a.banksim,
         f"--extra-arg=--widths={a.widths}"]
        + ([f"--manifest={a.manifest}", "--keep-going"] if a.manifest else [])
        + [f"--jobs={a.jobs}"],
        stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        print(f"compare: banksim_totals.py failed (exit {run.returncode})", file=sys.stderr)
        return 1
    mine = json.loads(run.stdout)
    differ = []
    for name, theirs in measured.items():
        if name not in mine:
            print(f"{name:36} MISSING from banksim's run")
            differ.append(name)
            continue
        whys = []
        if "error" in mine[name]:
            print(f"{name:36} DIFFERS: {mine[name]['error']}")
            differ.append(name)
            continue
        # Global memory ([requests, sectors]) where the measurement has it.
        kinds = ["load", "store", "atomic"] + [k for k in ("global_load", "global_store")
                                               if k in theirs]
        for kind in kinds:
            ok, why = agree(mine[name].get(kind, [0, 0]), theirs.get(kind, [0, 0]))
            if kind.startswith("global_"):
                why = why.replace("wavefronts", "sectors")
            if not ok:
                whys.append(f"{kind}: {why}")
        print(f"{name:36} {'agrees' if not whys else 'DIFFERS: ' + '; '.join(whys)}")
        if whys:
            differ.append(name)
    if a.widths == "clang":
        # banksim's own sign that nvcc's widths could differ (what makes the grader run nvcc) must
        # be on exactly where they do differ.
        flagged = sorted(n for n, v in mine.items() if v.get("mergeable"))
        print(f"flagged as mergeable: {', '.join(flagged) or 'none'}")
        if flagged != sorted(differ):
            print(f"compare: mergeable on {flagged}, but these differ: {sorted(differ)}",
                  file=sys.stderr)
            return 1
    want = sorted(a.expect_differ)
    print(f"{len(measured) - len(differ)}/{len(measured)} launches agree with the H200 "
          f"({a.widths}'s widths)")
    if sorted(differ) != want:
        print(f"compare: expected these to differ: {want or 'none'}; they did: {sorted(differ)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
