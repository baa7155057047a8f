#!/usr/bin/env python3
"""A/B benchmark of banksim: builds (and ways of running them) compared round by round.

The development machine's speed drifts by up to 2x within minutes, so two builds are only
compared interleaved: each round runs every way once (Google Benchmark, bench/bench_banksim.cpp,
`--benchmark_repetitions=R`, aggregates only), and the table gives each way's median of its
rounds' medians, with the rounds themselves. A way is a build folder holding bin/bench_banksim
(its benchmarks read kernels from the build's own source tree, the folder above it), optionally
with environment settings:
  scripts/bench-ab.py [--rounds 3] [--repetitions 3] [--filter REGEX] WAY [WAY ...]
  WAY = NAME=BUILD_DIR[,VAR=VALUE...]
e.g. an older commit against today's code and today's code with fibers:
  git worktree add /tmp/old OLDCOMMIT && cmake -S /tmp/old -B /tmp/old/build -G Ninja &&
  cmake --build /tmp/old/build --target bench_banksim banksim_regions
  scripts/bench-ab.py old=/tmp/old/build new=build fibers=build,BANKSIM_FIBERS=1
or two runtime libraries of one build: lib=build,LD_LIBRARY_PATH=/tmp/libdir.
Prints M traced shared accesses/s (traced_per_s) or ns a thread (s_per_thread).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys


def parse_way(text):
    name, _, rest = text.partition("=")
    if not rest:
        sys.exit(f"bench-ab: way '{text}': expected NAME=BUILD_DIR[,VAR=VALUE...]")
    build, *settings = rest.split(",")
    env = dict(s.split("=", 1) for s in settings)
    exe = os.path.join(os.path.abspath(build), "bin", "bench_banksim")
    if not os.access(exe, os.X_OK):
        sys.exit(f"bench-ab: way '{name}': {exe} not found; build it with "
                 f"`cmake --build {build} --target bench_banksim banksim_regions`")
    return name, exe, env


def value(bench):
    """M traced accesses/s, or ns a thread, of one aggregate row."""
    if "traced_per_s" in bench:
        return bench["traced_per_s"] / 1e6, "M/s"
    if "s_per_thread" in bench:
        return bench["s_per_thread"] * 1e9, "ns"
    return bench["real_time"], bench.get("time_unit", "")


def run(exe, env, filt, reps):
    p = subprocess.run([exe, f"--benchmark_filter={filt}", f"--benchmark_repetitions={reps}",
                        "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(exe))),
                       env={**os.environ, **env}, capture_output=True, text=True, check=True)
    out, single = {}, {}
    for b in json.loads(p.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = value(b)
        elif b.get("run_type") == "iteration":
            single[b["run_name"]] = value(b)
    return out or single  # one repetition: Google Benchmark reports no aggregates


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ways", nargs="+", help="NAME=BUILD_DIR[,VAR=VALUE...]")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--filter", default=".")
    args = ap.parse_args()
    ways = [parse_way(w) for w in args.ways]
    rounds = collections.defaultdict(list)
    units = {}
    for r in range(args.rounds):
        for name, exe, env in ways:
            for bench, (v, unit) in run(exe, env, args.filter, args.repetitions).items():
                rounds[(bench, name)].append(v)
                units[bench] = unit
        print(f"bench-ab: round {r + 1}/{args.rounds} done", file=sys.stderr)
    names = [w[0] for w in ways]
    print(f"{'benchmark':44} {'unit':>4} " + " ".join(f"{n:>10}" for n in names) + "  rounds")
    for bench in sorted(units):
        med = " ".join(f"{statistics.median(rounds[(bench, n)]):10.1f}" if rounds[(bench, n)]
                       else f"{'':10}" for n in names)
        all_rounds = " / ".join(" ".join(f"{x:.1f}" for x in rounds[(bench, n)]) for n in names)
        print(f"{bench:44} {units[bench]:>4} {med}  {all_rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
