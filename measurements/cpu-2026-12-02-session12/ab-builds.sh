#!/bin/bash
# Google Benchmark (bench/bench_banksim.cpp) of two builds of banksim, and of the second with
# fibers (BANKSIM_FIBERS=1), ROUNDS rounds alternating the three in one sitting (this machine's
# speed drifts by up to 2x within minutes: only numbers of one sitting compare); prints each
# benchmark's median of the rounds' medians. A build is a build folder with bin/bench_banksim
# (e.g. a `git worktree` of an older commit built with `cmake --build B --target bench_banksim
# banksim_regions`). Usage:
#   measurements/cpu-2026-12-02-session12/ab-builds.sh OLD_BUILD NEW_BUILD [ROUNDS] [FILTER]
set -eu
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
rounds=${3:-3}
filter=${4:-.}
out=$(mktemp)
for r in $(seq "$rounds"); do
  for way in old new fibers; do
    case $way in
      old) bin=$old/bin/bench_banksim; dir=$(dirname "$old") ;;
      *) bin=$new/bin/bench_banksim; dir=$(dirname "$new") ;;
    esac
    # Each build's benchmarks read their kernels from its own source tree.
    (cd "$dir" && env $([ $way = fibers ] && echo BANKSIM_FIBERS=1) "$bin" \
      --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1) |
      grep _median | awk -v w=$way '{print w, $1, $NF}' >>"$out"
  done
done
python3 - "$out" <<'PY'
import collections, re, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    way, name, value = line.split()
    m = re.match(r"[a-z_]+=([0-9.]+)(k|M)?(/s|ns|us)?", value)
    x = float(m.group(1))
    if m.group(3) == "/s":
        x *= {"k": 1e-3, "M": 1, None: 1e-6}[m.group(2)]
    elif m.group(3) == "us":
        x *= 1000
    d[(name.replace("_median", ""), way)].append(x)
ways = ("old", "new", "fibers")
print(f"{'benchmark':40} {'old':>8} {'new':>8} {'fibers':>8}  (M traced accesses/s, or ns per thread)")
for n in sorted({n for n, _ in d}):
    med = [f"{statistics.median(d[(n, w)]):8.1f}" if d[(n, w)] else f"{'':8}" for w in ways]
    rounds = " / ".join(" ".join(f"{x:.1f}" for x in d[(n, w)]) for w in ways)
    print(f"{n:40} {' '.join(med)}  rounds: {rounds}")
PY
rm -f "$out"
