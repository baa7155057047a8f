#!/usr/bin/env python3
"""Judges each graded submission's measured GPU speed again under two gate rows: the committed
one (the registry's row for the GPU) and a calibrated one (`make calibrate`'s gpu-gates.json).

  verdicts-under-rows.py CORPUS.json GPU-GATES.json [--registry build/bin/course-registry]
                         [--gpu "NVIDIA H200"]

CORPUS.json is tests/students/run_students.py's --json output of a GPU-mode run (each row's
gates with their outputs). A row's speed verdict depends on the row only through its threshold,
so the speed-up (or fraction of cudaMemcpy's or cuBLAS's speed) the speed gate's output states
is compared with both thresholds; rows whose speed gate did not run (not correct, bypassing
shared memory) have no measurement and are left out. Prints one line per row and a summary;
exits 1 when some verdict differs between the rows.
"""
import argparse
import json
import re
import subprocess
import sys

MEASURED = re.compile(r"timed on the GPU at [^:]*: (?:([0-9.]+)x faster|([0-9.]+)% of )")


def committed_row(registry, gpu):
    """{exercise id: min_ratio} of the registry's row for this GPU."""
    exported = json.loads(subprocess.run([registry, "export", "--json"], check=True,
                                         capture_output=True, text=True).stdout)
    row = {}
    for e in exported["exercises"]:
        for r in e.get("thresholds", {}).get("gpu", []):
            if r["gpu"] == gpu:
                row[e["id"]] = r["min_ratio"]
    return row


def calibrated_row(path, gpu):
    rows = [r for r in json.load(open(path))["rows"] if r["gpu"] == gpu]
    if not rows:
        sys.exit(f"{path} has no row for {gpu}")
    return {ex: v["min_ratio"] for ex, v in rows[0]["exercises"].items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("gates")
    ap.add_argument("--registry", default="build/bin/course-registry")
    ap.add_argument("--gpu", default="NVIDIA H200")
    a = ap.parse_args()
    committed = committed_row(a.registry, a.gpu)
    calibrated = calibrated_row(a.gates, a.gpu)
    rows = json.load(open(a.corpus))["students"]
    measured = differ = 0
    closest = None
    for s in rows:
        out = s.get("gates", {}).get("speed", {}).get("output", "")
        m = MEASURED.search(out)
        ex = s["exercise"]
        if not m or ex not in committed or ex not in calibrated:
            continue
        ratio = float(m.group(1)) if m.group(1) else float(m.group(2)) / 100
        c, k = committed[ex], calibrated[ex]
        same = (ratio >= c) == (ratio >= k)
        measured += 1
        differ += not same
        margin = min(abs(ratio - c) / c, abs(ratio - k) / k)
        if closest is None or margin < closest[0]:
            closest = (margin, s["name"])
        print(f"{s['name']:<32} {ratio:7.3f}  committed {c:.3f}: {'pass' if ratio >= c else 'fail'}"
              f"  calibrated {k:.3f}: {'pass' if ratio >= k else 'fail'}"
              f"{'' if same else '  DIFFERS'}")
    print(f"{measured} rows with a measured speed: {measured - differ} the same verdict under both "
          f"rows, {differ} not" +
          (f"; closest to a threshold: {closest[1]}, {100 * closest[0]:.1f}% away" if closest else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
