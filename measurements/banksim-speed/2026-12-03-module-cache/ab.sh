#!/bin/bash
# bench_banksim (bench/bench_banksim.cpp) of two builds, ROUNDS rounds alternating old and new in
# one sitting (the machine's speed drifts: only numbers of one sitting compare); prints each
# benchmark's median of the rounds' medians (measurements/bench-medians.py). A build is a build
# folder with bin/bench_banksim, its kernels read from its own source tree. Usage:
#   measurements/banksim-speed/2026-12-03-module-cache/ab.sh OLD_BUILD NEW_BUILD [ROUNDS] [FILTER]
set -eu
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
rounds=${3:-3}
filter=${4:-.}
out=$(mktemp)
for r in $(seq "$rounds"); do
  for way in old new; do
    case $way in
      old) bin=$old/bin/bench_banksim; dir=$(dirname "$old") ;;
      new) bin=$new/bin/bench_banksim; dir=$(dirname "$new") ;;
    esac
    (cd "$dir" && "$bin" --benchmark_filter="$filter" --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true 2>&1) |
      grep _median | awk -v w=$way '{print w, $1, $NF}' >>"$out"
  done
done
"$(dirname "$0")/../../bench-medians.py" "$out" old new
rm -f "$out"
