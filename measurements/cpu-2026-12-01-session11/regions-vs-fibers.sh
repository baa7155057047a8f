#!/bin/bash
# Google Benchmark (bench/bench_banksim.cpp) with kernels cut into regions (the default) and with
# a fiber per thread (BANKSIM_FIBERS=1: the region pass is not loaded), ROUNDS rounds alternating
# the two in one sitting; prints each benchmark's median of the rounds' medians. Usage:
#   measurements/cpu-2026-12-01-session11/regions-vs-fibers.sh [ROUNDS] [FILTER]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
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
"$here/../bench-medians.py" "$out" regions fibers
rm -f "$out"
