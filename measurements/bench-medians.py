#!/usr/bin/env python3
"""Medians of interleaved Google Benchmark rounds (the measurement scripts' shared table).

Input: lines "WAY NAME_median COUNTER=VALUE" (one per benchmark, way and round), as the scripts
collect them from bench_banksim's aggregate output. Prints, per benchmark, each way's median of
its rounds' medians and the rounds themselves; M traced accesses/s, or ns per thread.
Usage: measurements/bench-medians.py FILE WAY [WAY ...]
"""
import collections
import re
import statistics
import sys


def value(text):
    m = re.match(r"[a-z_]+=([0-9.]+)(k|M)?(/s|ns|us)?", text)
    x = float(m.group(1))
    if m.group(3) == "/s":
        x *= {"k": 1e-3, "M": 1, None: 1e-6}[m.group(2)]
    elif m.group(3) == "us":
        x *= 1000
    return x


def main():
    path, ways = sys.argv[1], sys.argv[2:]
    d = collections.defaultdict(list)
    for line in open(path):
        way, name, text = line.split()
        d[(name.replace("_median", ""), way)].append(value(text))
    print(f"{'benchmark':40} " + " ".join(f"{w:>9}" for w in ways) +
          "  (M traced accesses/s, or ns per thread)")
    for n in sorted({n for n, _ in d}):
        med = " ".join(f"{statistics.median(d[(n, w)]):9.1f}" if d[(n, w)] else f"{'':9}"
                       for w in ways)
        rounds = " / ".join(" ".join(f"{x:.1f}" for x in d[(n, w)]) for w in ways)
        print(f"{n:40} {med}  rounds: {rounds}")


if __name__ == "__main__":
    main()
