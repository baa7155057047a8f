#!/usr/bin/env python3
"""class-summary.py LOG [GRADEBOOK]: a class log's students and exercises, in a few lines.

Per-student times, how many exercises were graded and when the last one was, the last
student's line (how the GPU was held so far), and the gradebook's rows at full marks.
"""
import csv
import os
import re
import sys

text = open(sys.argv[1]).read()
ts = sorted(float(m) for m in re.findall(r"graded \S+ in ([0-9.]+) s", text))
if ts:
    print(f"  per student: median {ts[len(ts)//2]:.1f} s, min {ts[0]:.1f}, max {ts[-1]:.1f} "
          f"(with {len(ts)} graded)")
ex = [float(m) for m in re.findall(
    r"^  \S+ · \S+: \d+/\d+ \([0-9.]+ s, ([0-9]+) s into the class\)", text, re.M)]
if ex:
    print(f"  exercises graded: {len(ex)}, the last {max(ex):.0f} s into the class")
last = [line for line in text.splitlines() if re.match(r"^\[\d+/\d+\] ", line)]
if last:
    print("  last:", last[-1])
# The grader's own last lines: the class's wall time, and how the GPU was held over all of it.
for line in text.splitlines():
    if re.match(r"^(graded \d+ submissions in |over the class: )", line):
        print("  " + line)
if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
    rows = list(csv.reader(open(sys.argv[2])))[1:]
    print(f"  gradebook: {len(rows)} rows, {sum(r[1] == r[2] for r in rows)} at full marks")
