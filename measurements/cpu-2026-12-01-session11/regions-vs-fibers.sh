#!/bin/bash
# Google Benchmark (bench/bench_banksim.cpp) with kernels cut into regions (the default) and with
# a fiber per thread (BANKSIM_FIBERS=1: the region pass is not loaded), ROUNDS rounds alternating
# the two in one sitting; prints each benchmark's median of the rounds' medians. Usage:
#   measurements/cpu-2026-12-01-session11/regions-vs-fibers.sh [ROUNDS] [FILTER]
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-3}
filter=${2:-.}
out=$(mktemp)
for r in $(seq "$rounds"); do
  for way in regions fibers; do
    env $([ $way = fibers ] && echo BANKSIM_FIBERS=1) ./build/bin/bench_banksim \
      --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 |
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
names = sorted({n for n, _ in d})
print(f"{'benchmark':40} {'regions':>9} {'fibers':>9}  (M traced accesses/s, or ns per thread)")
for n in names:
    r, f = (statistics.median(d[(n, w)]) for w in ("regions", "fibers"))
    rounds = [" ".join(f"{x:.1f}" for x in d[(n, w)]) for w in ("regions", "fibers")]
    print(f"{n:40} {r:9.1f} {f:9.1f}  rounds: {rounds[0]} / {rounds[1]}")
PY
rm -f "$out"
